package effects

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// cwdState tracks the session cwd through the program's sequential flow:
// a literal cd moves it, anything the walker cannot follow (cd -, popd, j,
// a computed target, a cd on only one branch) makes it unknown, and then
// every relative path resolves to [Anywhere].
type cwdState struct {
	cwd, prev        string
	known, prevKnown bool
}

func (s *cwdState) set(dir string, known bool) {
	s.prev, s.prevKnown = s.cwd, s.known
	s.cwd, s.known = dir, known
}

func (s *cwdState) forget() { s.set("", false) }

// join records after a conditional construct: if the cwd may differ
// between the paths through it, it is unknown from here on.
func (s *cwdState) join(branches ...cwdState) {
	for _, b := range branches {
		if b.known != s.known || b.cwd != s.cwd {
			s.forget()
			return
		}
	}
}

// resolve turns a literal path as written into an effect path: "~"
// expanded, joined to the tracked cwd, normalized by
// [leash.NormalizePath]. When the home or the cwd it needs is unknown
// the path is [Anywhere].
func (w *walker) resolve(p string, st *cwdState) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if w.env.Home == "" {
			return Anywhere
		}
		return leash.NormalizePath(p, w.env.Home, "")
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	if !st.known {
		return Anywhere
	}
	return leash.NormalizePath(p, w.env.Home, st.cwd)
}

// globRoot returns the effect path covering every match of a glob
// pattern: its longest glob-free leading directory with "/**" appended
// (policy globs match the pattern text, so "/p/src/**" covers it and a
// narrower grant such as "/p/src/a.go" does not). A pattern without
// metacharacters is just a path.
func (w *walker) globRoot(pattern string, st *cwdState) string {
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs) && !leash.HasMeta(segs[i]) && !strings.Contains(segs[i], "]") {
		i++
	}
	if i == len(segs) {
		return w.resolve(pattern, st)
	}
	root := strings.Join(segs[:i], "/")
	switch {
	case root == "" && strings.HasPrefix(pattern, "/"):
		return Anywhere
	case root == "":
		root = "."
	}
	r := w.resolve(root, st)
	if r == Anywhere {
		return r
	}
	return strings.TrimSuffix(r, "/") + "/**"
}

// literalString returns the text of a string literal, or of an
// interpolated string with no embedded expressions.
func literalString(x syntax.Expr) (string, bool) {
	switch s := x.(type) {
	case *syntax.StrLit:
		return s.V, true
	case *syntax.InterpStr:
		var b strings.Builder
		for _, p := range s.Parts {
			if p.Expr != nil {
				return "", false
			}
			b.WriteString(p.Lit)
		}
		return b.String(), true
	}
	return "", false
}

// literalPrefix returns the literal text before the first embedded
// expression of a string.
func literalPrefix(x syntax.Expr) string {
	switch s := x.(type) {
	case *syntax.StrLit:
		return s.V
	case *syntax.InterpStr:
		var b strings.Builder
		for _, p := range s.Parts {
			if p.Expr != nil {
				break
			}
			b.WriteString(p.Lit)
		}
		return b.String()
	}
	return ""
}

// endpoint derives the host and port an http.* call connects to from
// its URL argument. An interpolated URL still yields its endpoint when
// the literal text before the first {expr} ends past the authority (a
// "/", "?" or "#" follows the host). Anything else is [AnyHost] port 0.
func endpoint(x syntax.Expr) (string, int) {
	full, isLit := literalString(x)
	text := full
	if !isLit {
		text = literalPrefix(x)
		scheme, rest, ok := strings.Cut(text, "://")
		if !ok || scheme == "" || !strings.ContainsAny(rest, "/?#") {
			return AnyHost, 0
		}
	}
	u, err := url.Parse(text)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return AnyHost, 0
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return AnyHost, 0
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return AnyHost, 0
		}
		return host, n
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return host, 80
	case "https":
		return host, 443
	}
	return host, 0
}
