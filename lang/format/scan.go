package format

import (
	"fmt"
	"sort"

	"github.com/shoal-sh/shoal/lang/syntax"
)

// The formatter never lexes a line on its own: whether `#` starts a
// comment or sits inside a command word, and whether a `[` is a bracket
// or part of a glob, depends on the lexical mode the parser chose for the
// statement (LANGUAGE.md §2.2, §3). So the lexical map is derived from the
// parsed program: every leaf that carries source text verbatim (strings,
// regex and datetime literals, interpreter blocks, command words) becomes
// an opaque range, and only the gaps between them are scanned. A gap holds
// nothing but blanks, line continuations, comments, punctuation,
// keywords, identifiers, numbers and the odd string the AST keeps no node
// for (a quoted record key); in a gap `#` always starts a comment.

// rangeKind says what an opaque range holds.
type rangeKind uint8

const (
	kindWord    rangeKind = iota // a command word or flag: never spans lines
	kindString                   // a string, regex or datetime literal
	kindLang                     // an interpreter block, `sh { … }` to `}`
	kindComment                  // `#` to the end of the line, newline excluded
)

type opaque struct {
	start, end int
	kind       rangeKind
}

// bracket is an opening or closing delimiter found in a gap.
type bracket struct {
	pos  int
	open bool
}

// lexMap is what the layout pass needs to know about every byte.
type lexMap struct {
	ranges   []opaque  // sorted, disjoint; comments included
	brackets []bracket // in source order
	comments []opaque  // the comment ranges alone
	nodes    [][2]int  // spans of the program's nodes that cover several bytes
	// anchors maps the offset of a construct's body brace (an if, while,
	// for, fn, match, try, catch, with or spawn body, a command's
	// trailing block, a match arm's block) to the offset where the
	// construct starts: the body indents from the construct's line.
	anchors map[int]int
}

// buildMap derives the lexical map of src from its parsed program.
func buildMap(src string, prog *syntax.Program) (*lexMap, error) {
	m := &lexMap{anchors: map[int]int{}}
	var leaves []opaque
	var matches [][2]int // subject end, match start
	anchor := func(body syntax.Node, start int) {
		if b, ok := body.(*syntax.Block); ok && b != nil {
			m.anchors[b.S.Start] = start
		}
	}
	var bad error
	add := func(s, e int, k rangeKind) {
		if s < 0 || e > len(src) || s > e {
			if bad == nil {
				bad = fmt.Errorf("node span [%d,%d) outside the source", s, e)
			}
			return
		}
		if s < e {
			leaves = append(leaves, opaque{s, e, k})
		}
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		sp := n.Span()
		if _, isProg := n.(*syntax.Program); !isProg && sp.End-sp.Start > 1 {
			m.nodes = append(m.nodes, [2]int{sp.Start, sp.End})
		}
		switch x := n.(type) {
		case *syntax.If:
			anchor(x.Then, sp.Start)
			anchor(x.Else, sp.Start)
		case *syntax.WhileStmt:
			anchor(x.Body, sp.Start)
		case *syntax.ForStmt:
			anchor(x.Body, sp.Start)
		case *syntax.FnDecl:
			anchor(x.Body, sp.Start)
		case *syntax.Try:
			anchor(x.Body, sp.Start)
			anchor(x.Handler, sp.Start)
		case *syntax.Catch:
			anchor(x.Handler, sp.Start)
		case *syntax.With:
			anchor(x.Body, sp.Start)
		case *syntax.Spawn:
			anchor(x.Body, sp.Start)
		case *syntax.MatchArm:
			anchor(x.Body, sp.Start)
		case *syntax.Match:
			if x.Subject != nil {
				matches = append(matches, [2]int{x.Subject.Span().End, sp.Start})
			}
		case *syntax.StrLit, *syntax.InterpStr, *syntax.RegexLit, *syntax.DatetimeLit:
			add(sp.Start, sp.End, kindString)
			return false
		case *syntax.LangBlock:
			add(sp.Start, sp.End, kindLang)
			return false
		case *syntax.Word, *syntax.PathWord, *syntax.GlobWord, *syntax.EndOfFlags, *syntax.Dash:
			add(sp.Start, sp.End, kindWord)
		case *syntax.Flag:
			// The span may run on to a value taken from the next token
			// (`--name= "v"`); only the flag's own spelling is a word.
			add(sp.Start, sp.Start+len(x.Raw), kindWord)
		case *syntax.UseStmt:
			add(sp.End-len(x.Target), sp.End, kindWord)
		case *syntax.Command:
			if x.Block != nil {
				anchor(x.Block, sp.Start)
			}
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	sort.Slice(leaves, func(i, j int) bool {
		if leaves[i].start != leaves[j].start {
			return leaves[i].start < leaves[j].start
		}
		return leaves[i].end > leaves[j].end
	})
	// Keep the outermost of nested leaves (a word inside a string's
	// interpolation, a flag's value inside its spelling).
	var outer []opaque
	for _, l := range leaves {
		if n := len(outer); n > 0 && l.start < outer[n-1].end {
			if l.end > outer[n-1].end {
				return nil, fmt.Errorf("leaves [%d,%d) and [%d,%d) overlap", outer[n-1].start, outer[n-1].end, l.start, l.end)
			}
			continue
		}
		outer = append(outer, l)
	}
	for _, l := range outer {
		if l.kind == kindWord {
			for i := l.start; i < l.end; i++ {
				if src[i] == '\n' {
					return nil, fmt.Errorf("command word at %d spans a line break", l.start)
				}
			}
		}
	}
	if err := m.scanGaps(src, outer); err != nil {
		return nil, err
	}
	// A match's brace is no node's start: it is the first bracket after
	// the subject (a parenthesised subject's `)` comes first).
	for _, mt := range matches {
		i := sort.Search(len(m.brackets), func(i int) bool { return m.brackets[i].pos >= mt[0] })
		for ; i < len(m.brackets); i++ {
			if m.brackets[i].open {
				if src[m.brackets[i].pos] == '{' {
					m.anchors[m.brackets[i].pos] = mt[1]
				}
				break
			}
		}
	}
	return m, nil
}

// scanGaps walks the bytes outside the leaves, recording comments,
// strings without a node, and brackets; it fills m.ranges in order.
func (m *lexMap) scanGaps(src string, leaves []opaque) error {
	next := 0 // index of the next leaf
	for i := 0; i < len(src); {
		if next < len(leaves) && i == leaves[next].start {
			m.ranges = append(m.ranges, leaves[next])
			i = leaves[next].end
			next++
			continue
		}
		limit := len(src)
		if next < len(leaves) {
			limit = leaves[next].start
		}
		c := src[i]
		switch {
		case c == '#':
			j := i
			for j < len(src) && src[j] != '\n' {
				j++
			}
			if j > limit {
				return fmt.Errorf("comment at %d runs into a token at %d", i, limit)
			}
			r := opaque{i, j, kindComment}
			m.ranges = append(m.ranges, r)
			m.comments = append(m.comments, r)
			i = j
		case c == '"' || c == '\'':
			j, ok := stringEnd(src, i)
			if !ok || j > limit {
				return fmt.Errorf("string at %d does not end before the next token", i)
			}
			m.ranges = append(m.ranges, opaque{i, j, kindString})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			if w := src[i:j]; (w == "re" || w == "t") && j < limit && src[j] == '"' {
				k := j + 1
				for k < len(src) && src[k] != '"' && src[k] != '\n' {
					k++
				}
				if k >= len(src) || src[k] != '"' || k+1 > limit {
					return fmt.Errorf("raw string at %d does not end before the next token", i)
				}
				j = k + 1
				m.ranges = append(m.ranges, opaque{i, j, kindString})
			}
			i = j
		case c == '(' || c == '[' || c == '{':
			m.brackets = append(m.brackets, bracket{i, true})
			i++
		case c == ')' || c == ']' || c == '}':
			m.brackets = append(m.brackets, bracket{i, false})
			i++
		default:
			i++
		}
	}
	return nil
}

// stringEnd returns the offset after the string literal whose opening
// quote is at i, following the lexer's rules (LANGUAGE.md §2.5): triple
// quotes span lines, double quotes take escapes and {expr} holes in which
// braces nest and strings are skipped.
func stringEnd(src string, i int) (int, bool) {
	return stringEndDepth(src, i, 0)
}

func stringEndDepth(src string, i, depth int) (int, bool) {
	if depth > 64 {
		return 0, false
	}
	q := src[i]
	triple := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < len(src) {
		c := src[j]
		switch {
		case triple && c == q && j+2 < len(src) && src[j+1] == q && src[j+2] == q:
			return j + 3, true
		case !triple && c == q:
			return j + 1, true
		case !triple && c == '\n':
			return 0, false
		case q == '"' && c == '\\':
			j += 2
		case q == '"' && c == '{':
			k, ok := holeEnd(src, j, triple, depth)
			if !ok {
				return 0, false
			}
			j = k
		default:
			j++
		}
	}
	return 0, false
}

// holeEnd returns the offset after the {expr} hole opening at i.
func holeEnd(src string, i int, multiline bool, depth int) (int, bool) {
	braces := 0
	for j := i; j < len(src); {
		switch c := src[j]; c {
		case '{':
			braces++
		case '}':
			braces--
			if braces == 0 {
				return j + 1, true
			}
		case '"', '\'':
			k, ok := stringEndDepth(src, j, depth+1)
			if !ok {
				return 0, false
			}
			j = k
			continue
		case '\n':
			if !multiline {
				return 0, false
			}
		}
		j++
	}
	return 0, false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// isBlank reports the bytes the lexer treats as blanks inside a line.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
