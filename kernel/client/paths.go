package client

import (
	"path/filepath"
	"strconv"
)

// LookupEnv reads one environment variable; commands pass os.LookupEnv, tests a map.
type LookupEnv func(name string) (string, bool)

func get(lookup LookupEnv, name string) string {
	if lookup == nil {
		return ""
	}
	v, _ := lookup(name)
	return v
}

// SocketPath chooses the kernel socket by environment precedence, never by probing files:
// explicit (a --socket flag, or SHOAL_SOCKET for the facade, resolved by the caller) wins; then
// $XDG_RUNTIME_DIR/shoal/<session>.sock; then $TMPDIR/shoal-<euid>/shoal/<session>.sock; then
// /tmp/shoal-<euid>/shoal/<session>.sock. An empty session means "default".
func SocketPath(explicit, session string, euid int, lookup LookupEnv) string {
	if explicit != "" {
		return explicit
	}
	if session == "" {
		session = "default"
	}
	name := session + ".sock"
	if d := get(lookup, "XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "shoal", name)
	}
	base := "/tmp"
	if d := get(lookup, "TMPDIR"); d != "" {
		base = d
	}
	return filepath.Join(base, "shoal-"+strconv.Itoa(euid), "shoal", name)
}

// StateDir is where the journal, CAS, spill files and tokens live: $XDG_STATE_HOME/shoal, else
// $HOME/.local/state/shoal, else ./shoal.
func StateDir(lookup LookupEnv) string {
	if d := get(lookup, "XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "shoal")
	}
	if h := get(lookup, "HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "shoal")
	}
	return "shoal"
}

// TokenStorePath is the tokens.json path: explicit (flag or SHOAL_TOKEN_STORE) wins, else
// <state dir>/tokens.json.
func TokenStorePath(explicit string, lookup LookupEnv) string {
	if explicit != "" {
		return explicit
	}
	if v := get(lookup, "SHOAL_TOKEN_STORE"); v != "" {
		return v
	}
	return filepath.Join(StateDir(lookup), "tokens.json")
}
