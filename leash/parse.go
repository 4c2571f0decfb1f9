package leash

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ParseOptions configures [Parse]. A nil *ParseOptions means defaults.
type ParseOptions struct {
	// Home replaces a leading "~" in fs globs. Empty leaves "~" in place,
	// where it will only match paths that literally start with "~".
	Home string
}

// PolicyError is a policy file that cannot be used. Line is 1-based, or 0
// when the problem has no single line.
type PolicyError struct {
	Line int
	Msg  string
}

func (e *PolicyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("policy line %d: %s", e.Line, e.Msg)
	}
	return "policy: " + e.Msg
}

// rawFile mirrors the TOML layout. Every accepted spelling has a field so
// that DisallowUnknownFields rejects exactly the misspelled keys.
type rawFile struct {
	Principal map[string]rawPrincipal `toml:"principal"`
}

type rawPrincipal struct {
	NetConnect     []string   `toml:"net_connect"`
	Net            []string   `toml:"net"`
	NetListen      []any      `toml:"net_listen"`
	ProcSpawn      []string   `toml:"proc_spawn"`
	Spawn          []string   `toml:"spawn"`
	Proc           *rawProc   `toml:"proc"`
	EnvRead        []string   `toml:"env_read"`
	EnvWrite       []string   `toml:"env_write"`
	Env            *rawEnv    `toml:"env"`
	SecretUse      []string   `toml:"secret_use"`
	Secrets        []string   `toml:"secrets"`
	Secret         *rawSecret `toml:"secret"`
	SessionWrite   bool       `toml:"session_write"`
	JournalRead    bool       `toml:"journal_read"`
	JournalReadAll bool       `toml:"journal_read_all"`
	Approve        []string   `toml:"approve"`
	Time           bool       `toml:"time"`
	AutoApply      string     `toml:"auto_apply"`
	Opaque         string     `toml:"opaque"`
	Hermetic       bool       `toml:"hermetic"`
	Fs             *rawFs     `toml:"fs"`
	Quotas         *rawQuotas `toml:"quotas"`
}

type rawProc struct {
	Spawn []string `toml:"spawn"`
}

type rawEnv struct {
	Read  []string `toml:"read"`
	Write []string `toml:"write"`
}

type rawSecret struct {
	Use []string `toml:"use"`
}

type rawFs struct {
	Read   []string `toml:"read"`
	Write  []string `toml:"write"`
	Delete []string `toml:"delete"`
}

type rawQuotas struct {
	Sessions      *int `toml:"sessions"`
	Tasks         *int `toml:"tasks"`
	PTYs          *int `toml:"ptys"`
	Subscriptions *int `toml:"subscriptions"`
}

// Parse reads a Leash policy strictly: unknown keys, wrong types, invalid
// globs, net grants and enum values are errors carrying the line number.
// Aliases (net, spawn, secrets) and the nested tables (fs, env, secret,
// proc) fold into the flat fields; missing fields take the defaults
// (empty lists, false, auto_apply "never", opaque "deny", DefaultQuotas).
func Parse(src []byte, opts *ParseOptions) (*Policy, error) {
	var home string
	if opts != nil {
		home = opts.Home
	}
	var raw rawFile
	dec := toml.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, tomlError(err)
	}
	pol := &Policy{principals: make(map[string]*Principal, len(raw.Principal))}
	for name, rp := range raw.Principal {
		pr, err := buildPrincipal(src, name, rp, home)
		if err != nil {
			return nil, err
		}
		pol.principals[name] = pr
	}
	return pol, nil
}

// tomlError turns go-toml's errors into a PolicyError with a line.
func tomlError(err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		var keys []string
		line, _ := sm.Errors[0].Position()
		for i := range sm.Errors {
			l, _ := sm.Errors[i].Position()
			keys = append(keys, fmt.Sprintf("%s (line %d)", strings.Join(sm.Errors[i].Key(), "."), l))
		}
		return &PolicyError{Line: line, Msg: "unknown key " + strings.Join(keys, ", ")}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if k := de.Key(); len(k) > 0 {
			msg = strings.Join(k, ".") + ": " + msg
		}
		return &PolicyError{Line: line, Msg: msg}
	}
	return &PolicyError{Msg: err.Error()}
}

func buildPrincipal(src []byte, name string, rp rawPrincipal, home string) (*Principal, error) {
	fail := func(needle, format string, args ...any) error {
		return &PolicyError{Line: lineOf(src, needle), Msg: fmt.Sprintf("principal %q: ", name) + fmt.Sprintf(format, args...)}
	}
	if name == "" {
		return nil, fail("", "empty principal name")
	}
	pr := &Principal{
		Name:           name,
		NetConnect:     join(rp.NetConnect, rp.Net),
		ProcSpawn:      join(rp.ProcSpawn, rp.Spawn),
		EnvRead:        rp.EnvRead,
		EnvWrite:       rp.EnvWrite,
		SecretUse:      join(rp.SecretUse, rp.Secrets),
		Approve:        join(rp.Approve),
		SessionWrite:   rp.SessionWrite,
		JournalRead:    rp.JournalRead,
		JournalReadAll: rp.JournalReadAll,
		Time:           rp.Time,
		Hermetic:       rp.Hermetic,
		AutoApply:      AutoNever,
		Opaque:         OpaqueDeny,
		Quotas:         DefaultQuotas,
	}
	if rp.Proc != nil {
		pr.ProcSpawn = join(pr.ProcSpawn, rp.Proc.Spawn)
	}
	if rp.Env != nil {
		pr.EnvRead = join(pr.EnvRead, rp.Env.Read)
		pr.EnvWrite = join(pr.EnvWrite, rp.Env.Write)
	}
	if rp.Secret != nil {
		pr.SecretUse = join(pr.SecretUse, rp.Secret.Use)
	}
	pr.EnvRead, pr.EnvWrite = join(pr.EnvRead), join(pr.EnvWrite)
	if rp.Fs != nil {
		for _, l := range []struct {
			dst *[]string
			src []string
		}{{&pr.FsRead, rp.Fs.Read}, {&pr.FsWrite, rp.Fs.Write}, {&pr.FsDelete, rp.Fs.Delete}} {
			for _, g := range l.src {
				if _, err := CompileGlob(g); err != nil {
					return nil, fail(g, "fs glob %q: %v", g, err)
				}
				*l.dst = append(*l.dst, ExpandHome(g, home))
			}
		}
	}
	for _, g := range pr.Approve {
		if _, err := CompileGlob(g); err != nil {
			return nil, fail(g, "approve glob %q: %v", g, err)
		}
	}
	for _, g := range pr.NetConnect {
		if _, err := parseNetGrant(g); err != nil {
			return nil, fail(g, "net_connect %q: %v", g, err)
		}
	}
	for _, v := range rp.NetListen {
		switch v := v.(type) {
		case int64:
			if v < 1 || v > 65535 {
				return nil, fail(strconv.FormatInt(v, 10), "net_listen port %d out of range 1..65535", v)
			}
			pr.NetListen = append(pr.NetListen, int(v))
		case string:
			if v != "*" {
				return nil, fail(v, "net_listen %q: want a port number or \"*\"", v)
			}
			pr.NetListenAny = true
		default:
			return nil, fail("net_listen", "net_listen items must be port numbers or \"*\"")
		}
	}
	for _, s := range pr.ProcSpawn {
		if s == "" {
			return nil, fail("proc_spawn", "empty proc_spawn grant")
		}
	}
	switch a := AutoApply(rp.AutoApply); a {
	case "":
	case AutoNever, AutoInGrant, AutoReversible:
		pr.AutoApply = a
	default:
		return nil, fail(rp.AutoApply, "auto_apply %q: want never, in-grant or reversible", rp.AutoApply)
	}
	switch o := OpaqueMode(rp.Opaque); o {
	case "":
	case OpaqueDeny, OpaqueAsk, OpaqueAllow:
		pr.Opaque = o
	default:
		return nil, fail(rp.Opaque, "opaque %q: want deny, ask or allow", rp.Opaque)
	}
	if q := rp.Quotas; q != nil {
		for _, f := range []struct {
			name string
			v    *int
			dst  *int
		}{{"sessions", q.Sessions, &pr.Quotas.Sessions}, {"tasks", q.Tasks, &pr.Quotas.Tasks},
			{"ptys", q.PTYs, &pr.Quotas.PTYs}, {"subscriptions", q.Subscriptions, &pr.Quotas.Subscriptions}} {
			if f.v == nil {
				continue
			}
			if *f.v < 0 {
				return nil, fail(f.name, "quota %s must not be negative", f.name)
			}
			*f.dst = *f.v
		}
	}
	pr.compile()
	return pr, nil
}

// parseNetGrant splits "HOSTGLOB:PORT" at the last colon; PORT is a
// number or "*".
func parseNetGrant(s string) (NetGrant, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return NetGrant{}, errors.New("want HOST:PORT")
	}
	host, port := s[:i], s[i+1:]
	if host == "" {
		return NetGrant{}, errors.New("empty host")
	}
	g, err := CompileGlob(strings.ToLower(host))
	if err != nil {
		return NetGrant{}, err
	}
	ng := NetGrant{Host: g}
	if port == "*" {
		ng.AnyPort = true
		return ng, nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return NetGrant{}, fmt.Errorf("port %q: want 1..65535 or \"*\"", port)
	}
	ng.Port = n
	return ng, nil
}

// join concatenates lists (alias plus canonical spelling), keeping order
// and dropping duplicates; the result is never nil.
func join(lists ...[]string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// lineOf finds the 1-based line of the first quoted occurrence of needle,
// falling back to a bare occurrence. go-toml reports positions only for
// syntax and unknown-key errors, so semantic errors locate their value
// this way; 0 means not found.
func lineOf(src []byte, needle string) int {
	if needle == "" {
		return 0
	}
	for _, n := range []string{`"` + needle + `"`, `'` + needle + `'`, needle} {
		if i := bytes.Index(src, []byte(n)); i >= 0 {
			return bytes.Count(src[:i], []byte("\n")) + 1
		}
	}
	return 0
}
