package leash

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParsePolicy: arbitrary input never panics, and any accepted policy
// can be judged and lowered without panicking.
func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(examplePolicy))
	f.Add([]byte("[principal.a]\nnet_listen = [1, \"*\"]\nfs.read = [\"/[a-\"]\n"))
	f.Add([]byte("[principal.a.quotas]\ntasks = 3\n"))
	f.Add([]byte("[[principal]]\n"))
	f.Add([]byte("principal = 3"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src, &ParseOptions{Home: "/h"})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		for _, name := range p.Names() {
			pr, _ := p.Principal(name)
			for _, k := range Kinds {
				pr.EffectVerdict(Effect{Kind: k, Paths: []string{"/h/x"}, Host: "h", Port: 1, Names: []string{"A"}, Argv0: "x"})
			}
			pr.Lower(nil)
			p.CanApprove(name, name, "")
		}
	})
}

// globRegexp translates a compiled glob into an equivalent regexp, the
// reference the matcher is checked against.
func globRegexp(g Glob) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for _, it := range g.items {
		switch it.kind {
		case globLit:
			b.WriteString(regexp.QuoteMeta(string(it.lit)))
		case globStar:
			b.WriteString(`.*`)
		case globAny:
			b.WriteString(`.`)
		case globClass:
			b.WriteString(`[`)
			if it.neg {
				b.WriteString(`^`)
			}
			for _, r := range it.ranges {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r.lo, r.hi)
			}
			b.WriteString(`]`)
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// FuzzGlob checks the star-backtracking matcher against regexp.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"/usr/**", "/usr/bin/x"}, {"a*b?c", "aXbYc"}, {"[!a-c]*", "d/e"},
		{"*a*a*b", "aaaaaaab"}, {`\[x]`, "[x]"}, {"[]x]*", "]]"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		g, err := CompileGlob(pat)
		if err != nil {
			if g.Match(name) {
				t.Fatalf("invalid pattern %q matched %q", pat, name)
			}
			return
		}
		if !utf8.ValidString(name) {
			return
		}
		if got, want := g.Match(name), globRegexp(g).MatchString(name); got != want {
			t.Fatalf("Match(%q, %q) = %v, regexp says %v", pat, name, got, want)
		}
	})
}
