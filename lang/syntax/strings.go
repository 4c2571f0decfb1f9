package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
)

// stringExpr decodes a string token into a StrLit or, when it has {expr}
// holes, an InterpStr (LANGUAGE.md §2.5).
func (p *parser) stringExpr(t token) Expr {
	f := t.str
	segs := [][2]int{{f.bodyStart, f.bodyEnd}}
	if f.triple {
		segs = p.dedent(f.bodyStart, f.bodyEnd)
	}
	sp := diag.Span{Start: t.start, End: t.end}
	if len(segs) == 1 && (f.raw || !strings.ContainsAny(p.src[segs[0][0]:segs[0][1]], "\\{")) {
		return &StrLit{Pos{sp}, p.src[segs[0][0]:segs[0][1]]} // nothing to decode
	}
	if f.raw {
		var b strings.Builder
		for k, s := range segs {
			if k > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.src[s[0]:s[1]])
		}
		return &StrLit{Pos{sp}, b.String()}
	}
	var parts []StrPart
	var b strings.Builder
	for k, s := range segs {
		if k > 0 {
			b.WriteByte('\n')
		}
		p.decode(&parts, &b, s[0], s[1])
	}
	if len(parts) == 0 {
		return &StrLit{Pos{sp}, b.String()}
	}
	if b.Len() > 0 {
		parts = append(parts, StrPart{Lit: b.String()})
	}
	return &InterpStr{Pos{sp}, parts}
}

// decode appends the decoded text of src[s:e] to b, flushing literal text
// into parts whenever an {expr} hole is parsed.
func (p *parser) decode(parts *[]StrPart, b *strings.Builder, s, e int) {
	for i := s; i < e; {
		c := p.src[i]
		switch c {
		case '\\':
			i = p.decodeEscape(b, i, e)
		case '{':
			close := p.skipInterp(i, true)
			if b.Len() > 0 {
				*parts = append(*parts, StrPart{Lit: b.String()})
				b.Reset()
			}
			*parts = append(*parts, StrPart{Expr: p.parseInterp(i+1, close-1)})
			i = close
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// decodeEscape decodes the escape at i and returns the offset after it.
func (p *parser) decodeEscape(b *strings.Builder, i, e int) int {
	if i+1 >= e {
		p.fail(diag.Span{Start: i, End: i + 1}, "unknown escape `\\`", escapeHint)
	}
	switch c := p.src[i+1]; c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case '\\', '"', '{', '}':
		b.WriteByte(c)
	case 'u':
		j := i + 2
		if j >= e || p.src[j] != '{' {
			p.fail(diag.Span{Start: i, End: j}, "invalid unicode escape, expected `\\u{HEX}`", escapeHint)
		}
		k := j + 1
		for k < e && p.src[k] != '}' {
			k++
		}
		hex := p.src[j+1 : min(k, e)]
		v, err := strconv.ParseUint(hex, 16, 32)
		if k >= e || err != nil || hex == "" || len(hex) > 6 || !utf8.ValidRune(rune(v)) {
			p.fail(diag.Span{Start: i, End: min(k+1, e)}, "invalid unicode escape `\\u{"+hex+"}`", escapeHint)
		}
		b.WriteRune(rune(v))
		return k + 1
	case '\n', '\r':
		p.fail(diag.Span{Start: i, End: i + 1}, "unknown escape: `\\` before a line break", "a string cannot continue across lines; use triple quotes")
	default:
		r, size := utf8.DecodeRuneInString(p.src[i+1 : e])
		p.fail(diag.Span{Start: i, End: i + 1 + size}, fmt.Sprintf("unknown escape `\\%c`", r), escapeHint)
	}
	return i + 2
}

const escapeHint = `escapes: \n \t \r \0 \\ \" \{ \} \u{…}`

// parseInterp parses the hole src[s:e] as exactly one expression, in the
// enclosing scope.
func (p *parser) parseInterp(s, e int) Expr {
	sub := &parser{src: p.src, end: e, pos: s, opts: p.opts, sc: p.sc, depth: p.depth + 1, nl: true}
	if sub.depth > maxDepth {
		p.fail(diag.Span{Start: s, End: e}, "nesting too deep", "")
	}
	if t := sub.peek(); t.kind == tEOF {
		p.fail(diag.Span{Start: s - 1, End: e + 1}, "interpolation must contain one expression", "escape a literal brace as \\{")
	}
	x := sub.parseExpr()
	if t := sub.peek(); t.kind != tEOF {
		p.fail(diag.Span{Start: t.start, End: t.end}, "interpolation must contain one expression", "")
	}
	return x
}

// dedent returns the kept ranges of a triple-quoted body, one per line:
// one leading newline and a final blank line are dropped, then the least
// indentation of the non-blank lines is removed from every line.
func (p *parser) dedent(s, e int) [][2]int {
	if hasPrefixAt(p.src, s, "\r\n") {
		s += 2
	} else if hasPrefixAt(p.src, s, "\n") {
		s++
	}
	if k := strings.LastIndexByte(p.src[s:e], '\n'); k >= 0 && strings.Trim(p.src[s+k+1:e], " \t\r") == "" {
		e = s + k
		if e > s && p.src[e-1] == '\r' {
			e--
		}
	}
	var lines [][2]int
	for i := s; ; {
		k := strings.IndexByte(p.src[i:e], '\n')
		if k < 0 {
			lines = append(lines, [2]int{i, e})
			break
		}
		lines = append(lines, [2]int{i, i + k})
		i += k + 1
	}
	indent := -1
	for _, l := range lines {
		line := p.src[l[0]:l[1]]
		if strings.Trim(line, " \t\r") == "" {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	if indent < 0 {
		indent = 0
	}
	for k, l := range lines {
		if l[1] > l[0] && p.src[l[1]-1] == '\r' {
			lines[k][1]-- // CRLF sources: CR is whitespace, not content
		}
		n := 0
		for n < indent && l[0]+n < l[1] && (p.src[l[0]+n] == ' ' || p.src[l[0]+n] == '\t') {
			n++
		}
		lines[k][0] += n
	}
	return lines
}
