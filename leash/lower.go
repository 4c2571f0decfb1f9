package leash

import (
	"path"
	"slices"
	"strings"
)

// Spec is the OS sandbox a principal's grants lower to. leash/sandbox
// enforces it; it travels to the sandbox helper as JSON, so it holds only
// plain data.
type Spec struct {
	// FS is false when no filesystem sandbox applies: every fs list has a
	// root grant, or nothing lowered to an existing root.
	FS bool `json:"fs"`
	// Read roots get read and execute; Write roots full access; Delete
	// roots removal of files and directories. Absolute, cleaned, sorted,
	// deduplicated, existing.
	Read   []string `json:"read,omitempty"`
	Write  []string `json:"write,omitempty"`
	Delete []string `json:"delete,omitempty"`

	// ConnectPorts/BindPorts are the only TCP ports the child may connect
	// to / bind when RestrictConnect/RestrictBind is set. Host names in
	// grants cannot be enforced by the OS; only their ports are.
	RestrictConnect bool  `json:"restrict_connect,omitempty"`
	ConnectPorts    []int `json:"connect_ports,omitempty"`
	RestrictBind    bool  `json:"restrict_bind,omitempty"`
	BindPorts       []int `json:"bind_ports,omitempty"`

	// Pin turns on executable pinning: the executed file must hash to one
	// of PinHashes, or its path must equal one of PinPaths, or its base
	// name one of PinNames.
	Pin       bool     `json:"pin,omitempty"`
	PinHashes []string `json:"pin_hashes,omitempty"`
	PinPaths  []string `json:"pin_paths,omitempty"`
	PinNames  []string `json:"pin_names,omitempty"`

	// Hermetic refuses the spawn if any requested dimension cannot be
	// enforced on this host.
	Hermetic bool `json:"hermetic,omitempty"`
}

// Concrete reports whether the spec restricts anything at all.
func (s Spec) Concrete() bool {
	return s.FS || s.RestrictConnect || s.RestrictBind || s.Pin
}

// LowerOptions supplies what lowering needs from the host. A nil
// *LowerOptions means no home directory and every root existing.
type LowerOptions struct {
	// Home replaces a leading "~" still present in a glob.
	Home string
	// Exists reports whether a root exists; nonexistent roots are dropped
	// (Landlock cannot add a rule for them). Nil keeps every root.
	Exists func(path string) bool
}

// Lower turns the principal's grants into a sandbox [Spec].
func (pr *Principal) Lower(opts *LowerOptions) Spec {
	var o LowerOptions
	if opts != nil {
		o = *opts
	}
	var s Spec
	lists := [][]string{pr.FsRead, pr.FsWrite, pr.FsDelete}
	allRoot := true
	for _, l := range lists {
		if !slices.ContainsFunc(l, func(g string) bool { return GlobRoot(ExpandHome(g, o.Home)) == "/" }) {
			allRoot = false
		}
	}
	if !allRoot {
		s.Read = lowerRoots(pr.FsRead, o)
		s.Write = lowerRoots(pr.FsWrite, o)
		s.Delete = lowerRoots(pr.FsDelete, o)
		s.FS = len(s.Read)+len(s.Write)+len(s.Delete) > 0
	}

	anyConnect := false
	for _, g := range pr.netConnect {
		if g.AnyPort {
			anyConnect = true
			break
		}
		s.ConnectPorts = append(s.ConnectPorts, g.Port)
	}
	if anyConnect {
		s.ConnectPorts = nil
	} else {
		s.RestrictConnect = true
		s.ConnectPorts = sortedUnique(s.ConnectPorts)
	}
	if !pr.NetListenAny {
		s.RestrictBind = true
		s.BindPorts = sortedUnique(slices.Clone(pr.NetListen))
	}

	if pr.PinningActive() {
		s.Pin = true
		for _, g := range pr.ProcSpawn {
			switch {
			case isHexHash(g):
				s.PinHashes = append(s.PinHashes, strings.ToLower(g))
			case strings.Contains(g, "/"):
				s.PinPaths = append(s.PinPaths, path.Clean(g))
			default:
				s.PinNames = append(s.PinNames, g)
			}
		}
	}
	s.Hermetic = pr.Hermetic
	return s
}

// GlobRoot returns the longest glob-free leading directory path of an
// absolute glob: "/home/u/x/**" gives "/home/u/x", "/usr/bin/git" gives
// itself, "/**" gives "/". A relative glob or one starting with a
// metacharacter gives "".
func GlobRoot(glob string) string {
	if !strings.HasPrefix(glob, "/") {
		return ""
	}
	parts := strings.Split(glob, "/")
	keep := parts[:0:0]
	for _, p := range parts {
		if HasMeta(p) {
			break
		}
		keep = append(keep, p)
	}
	root := strings.Join(keep, "/")
	if root == "" {
		return "/"
	}
	return path.Clean(root)
}

func lowerRoots(globs []string, o LowerOptions) []string {
	var roots []string
	for _, g := range globs {
		r := GlobRoot(ExpandHome(g, o.Home))
		if r == "" {
			continue
		}
		if o.Exists != nil && !o.Exists(r) {
			continue
		}
		roots = append(roots, r)
	}
	slices.Sort(roots)
	return slices.Compact(roots)
}

func sortedUnique(xs []int) []int {
	slices.Sort(xs)
	return slices.Compact(xs)
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
