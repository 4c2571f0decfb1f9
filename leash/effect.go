package leash

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// Kind names an effect. The wire spelling is snake_case; clients may also
// write the dotted form ("fs.write"), which [ParseKind] accepts.
type Kind string

// The effect kinds.
const (
	KindFsRead       Kind = "fs_read"
	KindFsWrite      Kind = "fs_write"
	KindFsDelete     Kind = "fs_delete"
	KindProcSpawn    Kind = "proc_spawn"
	KindNetConnect   Kind = "net_connect"
	KindNetListen    Kind = "net_listen"
	KindEnvRead      Kind = "env_read"
	KindEnvWrite     Kind = "env_write"
	KindSecretUse    Kind = "secret_use"
	KindSessionWrite Kind = "session_write"
	KindJournalRead  Kind = "journal_read"
	KindTime         Kind = "time"
	KindOpaque       Kind = "opaque"
)

// Kinds lists every effect kind in a stable order.
var Kinds = [...]Kind{
	KindFsRead, KindFsWrite, KindFsDelete, KindProcSpawn, KindNetConnect,
	KindNetListen, KindEnvRead, KindEnvWrite, KindSecretUse,
	KindSessionWrite, KindJournalRead, KindTime, KindOpaque,
}

// ParseKind accepts a kind in wire ("fs_write") or dotted ("fs.write")
// spelling.
func ParseKind(s string) (Kind, bool) {
	k := Kind(strings.ReplaceAll(s, ".", "_"))
	for _, known := range Kinds {
		if k == known {
			return k, true
		}
	}
	return "", false
}

// Effect is one thing a plan may do. Only the payload fields of its kind
// are set; the rest stay zero and are omitted from JSON.
type Effect struct {
	Kind Kind `json:"kind"`
	// Paths for fs_read, fs_write and fs_delete: absolute and normalized
	// (see [NormalizePath]) before a verdict is asked for.
	Paths []string `json:"paths,omitempty"`
	// Permanent marks an fs_delete that bypasses the trash; it makes a
	// plan irreversible.
	Permanent bool `json:"permanent,omitempty"`
	// BinHash (64 lowercase hex BLAKE3 of the binary) and Argv0 for
	// proc_spawn.
	BinHash string `json:"bin_hash,omitempty"`
	Argv0   string `json:"argv0,omitempty"`
	// Host and Port for net_connect; Port alone for net_listen.
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	// Names for env_read, env_write and secret_use.
	Names []string `json:"names,omitempty"`
}

// UnmarshalJSON accepts the dotted kind spelling and rejects unknown kinds.
func (e *Effect) UnmarshalJSON(b []byte) error {
	type plain Effect
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	k, ok := ParseKind(string(p.Kind))
	if !ok {
		return fmt.Errorf("unknown effect kind %q", p.Kind)
	}
	p.Kind = k
	*e = Effect(p)
	return nil
}

// NormalizePath makes an effect path comparable with policy globs: "~" and
// "~/…" expand to home (when home is known), a relative path is joined to cwd (when cwd is not
// empty), and the result is cleaned lexically ("." dropped, ".." pops,
// no symlink resolution).
func NormalizePath(p, home, cwd string) string {
	switch {
	case home == "":
		// Without a home, "~" stays literal rather than becoming "/".
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = strings.TrimSuffix(home, "/") + p[1:]
	}
	if !path.IsAbs(p) && cwd != "" {
		p = path.Join(cwd, p)
	}
	return path.Clean(p)
}

// ExpandHome expands a leading "~" or "~/" in a policy glob; with no home
// the glob is left alone.
func ExpandHome(glob, home string) string {
	switch {
	case home == "":
	case glob == "~":
		return home
	case strings.HasPrefix(glob, "~/"):
		return strings.TrimSuffix(home, "/") + glob[1:]
	}
	return glob
}

// Normalize returns e with its paths normalized by [NormalizePath] and its
// kind in wire spelling.
func (e Effect) Normalize(home, cwd string) Effect {
	if k, ok := ParseKind(string(e.Kind)); ok {
		e.Kind = k
	}
	if e.Paths != nil {
		ps := make([]string, len(e.Paths))
		for i, p := range e.Paths {
			ps[i] = NormalizePath(p, home, cwd)
		}
		e.Paths = ps
	}
	return e
}

// Reversibility of a plan, as shown on the wire and used by auto_apply.
const (
	Reversible   = "reversible"
	Irreversible = "irreversible"
)

// Reversibility is the one function both the wire and auto_apply use: a
// plan is irreversible if any effect is opaque, connects, listens, or
// deletes permanently; otherwise it is reversible.
func Reversibility(effects []Effect) string {
	for _, e := range effects {
		switch e.Kind {
		case KindOpaque, KindNetConnect, KindNetListen:
			return Irreversible
		case KindFsDelete:
			if e.Permanent {
				return Irreversible
			}
		}
	}
	return Reversible
}
