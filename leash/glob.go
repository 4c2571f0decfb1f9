package leash

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Glob is a compiled policy pattern. Unlike filepath.Match, '*' (and so
// '**') also crosses '/': policy globs describe path prefixes and host
// names, where "~/src/**" must cover every depth. '?' matches one
// character, "[abc]", "[a-z]", "[!x]" and "[^x]" one character of a class,
// and '\' escapes the next character.
type Glob struct {
	src   string
	items []globItem
	bad   bool
}

type globKind uint8

const (
	globLit globKind = iota
	globStar
	globAny
	globClass
)

type globItem struct {
	kind   globKind
	lit    rune
	neg    bool
	ranges []runeRange
}

type runeRange struct{ lo, hi rune }

// errGlob is wrapped by every glob syntax error.
var errGlob = errors.New("invalid glob")

// CompileGlob parses pattern. An invalid pattern is an error here; the
// policy parser reports it, and [MatchGlob] treats it as never matching.
func CompileGlob(pattern string) (Glob, error) {
	g := Glob{src: pattern}
	if !utf8.ValidString(pattern) {
		return Glob{src: pattern, bad: true}, fmt.Errorf("%w: %s", errGlob, "not valid UTF-8")
	}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			// Runs of stars are one star: both cross '/'.
			if n := len(g.items); n == 0 || g.items[n-1].kind != globStar {
				g.items = append(g.items, globItem{kind: globStar})
			}
		case '?':
			g.items = append(g.items, globItem{kind: globAny})
		case '\\':
			if i+1 >= len(rs) {
				return Glob{src: pattern, bad: true}, fmt.Errorf("%w: %s", errGlob, "trailing backslash")
			}
			i++
			g.items = append(g.items, globItem{kind: globLit, lit: rs[i]})
		case '[':
			item, next, err := parseClass(rs, i)
			if err != nil {
				return Glob{src: pattern, bad: true}, err
			}
			g.items = append(g.items, item)
			i = next
		case ']':
			return Glob{src: pattern, bad: true}, fmt.Errorf("%w: %s", errGlob, "unmatched ']'")
		default:
			g.items = append(g.items, globItem{kind: globLit, lit: c})
		}
	}
	return g, nil
}

// parseClass parses the class starting at rs[i] == '[' and returns the
// index of its closing ']'.
func parseClass(rs []rune, i int) (globItem, int, error) {
	item := globItem{kind: globClass}
	j := i + 1
	if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
		item.neg = true
		j++
	}
	first := true
	for ; j < len(rs); j++ {
		c := rs[j]
		if c == ']' && !first {
			if len(item.ranges) == 0 {
				break
			}
			return item, j, nil
		}
		first = false
		if c == '\\' {
			if j+1 >= len(rs) {
				break
			}
			j++
			c = rs[j]
		}
		lo, hi := c, c
		if j+2 < len(rs) && rs[j+1] == '-' && rs[j+2] != ']' {
			hi = rs[j+2]
			if hi == '\\' {
				if j+3 >= len(rs) {
					break
				}
				hi = rs[j+3]
				j++
			}
			j += 2
			if hi < lo {
				return globItem{}, 0, fmt.Errorf("%w: %s", errGlob, "reversed range in class")
			}
		}
		item.ranges = append(item.ranges, runeRange{lo, hi})
	}
	return globItem{}, 0, fmt.Errorf("%w: %s", errGlob, "unterminated '['")
}

// String returns the source pattern.
func (g Glob) String() string { return g.src }

// Valid reports whether the pattern compiled.
func (g Glob) Valid() bool { return !g.bad }

// HasMeta reports whether s contains a glob metacharacter.
func HasMeta(s string) bool { return strings.ContainsAny(s, "*?[\\") }

// Match reports whether name matches the whole pattern. Invalid patterns
// never match.
func (g Glob) Match(name string) bool {
	if g.bad {
		return false
	}
	if !utf8.ValidString(name) {
		// Compare invalid bytes as U+FFFD would alias distinct names;
		// such names match only a pattern of pure stars.
		for _, it := range g.items {
			if it.kind != globStar {
				return false
			}
		}
		return true
	}
	return matchItems(g.items, []rune(name))
}

// matchItems is the usual greedy star matcher with one backtrack point: a
// later star supersedes an earlier one, so it runs in O(len(p)·len(s)).
func matchItems(p []globItem, s []rune) bool {
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			it := p[pi]
			switch it.kind {
			case globStar:
				starP, starS = pi, si
				pi++
				continue
			case globAny:
				pi++
				si++
				continue
			case globLit:
				if it.lit == s[si] {
					pi++
					si++
					continue
				}
			case globClass:
				if it.matchClass(s[si]) {
					pi++
					si++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi].kind == globStar {
		pi++
	}
	return pi == len(p)
}

func (it globItem) matchClass(c rune) bool {
	in := false
	for _, r := range it.ranges {
		if r.lo <= c && c <= r.hi {
			in = true
			break
		}
	}
	return in != it.neg
}

// MatchGlob compiles pattern and matches name; an invalid pattern never
// matches. Policies compile their globs once; this is for one-off use.
func MatchGlob(pattern, name string) bool {
	g, err := CompileGlob(pattern)
	return err == nil && g.Match(name)
}
