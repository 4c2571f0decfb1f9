package syntax

import (
	"fmt"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
)

// The lexer is position-addressed: the parser asks for the token at a byte
// offset in the mode its grammar position needs (LANGUAGE.md §2.2), so the
// same bytes can be read as an expression or as command words while a
// statement head is decided. Nothing is pre-tokenised.

// skipSpace returns the first offset at or after i that is not blank,
// a backslash-newline or (when comments is set) inside a comment.
func (p *parser) skipSpace(i int, comments bool) int {
	for i < p.end {
		c := p.src[i]
		switch {
		case isSpace(c):
			i++
		case c == '\\' && i+1 < p.end && p.src[i+1] == '\n':
			i += 2
		case c == '\\' && i+2 < p.end && p.src[i+1] == '\r' && p.src[i+2] == '\n':
			i += 3
		case c == '#' && comments:
			for i < p.end && p.src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// lexAt scans one expression-mode token starting at offset i (after
// blanks and comments).
func (p *parser) lexAt(i int) token {
	i = p.skipSpace(i, true)
	if i >= p.end {
		return token{kind: tEOF, start: i, end: i}
	}
	c := p.src[i]
	one := func(k tokKind) token { return token{kind: k, start: i, end: i + 1, text: p.src[i : i+1]} }
	two := func(k tokKind) token { return token{kind: k, start: i, end: i + 2, text: p.src[i : i+2]} }
	next := byte(0)
	if i+1 < p.end {
		next = p.src[i+1]
	}
	switch {
	case c == '\n':
		return token{kind: tNewline, start: i, end: i + 1}
	case c == '\\' && p.skipSpace(i+1, false) >= p.end:
		p.failPartial(diag.Span{Start: i, End: i + 1}, "unexpected end of input after `\\`", "")
	case isIdentStart(c):
		j := i + 1
		for j < p.end && isIdentChar(p.src[j]) {
			j++
		}
		word := p.src[i:j]
		if j < p.end && p.src[j] == '"' && (word == "re" || word == "t") {
			body, end := p.scanRawQuoted(j)
			k := tRegex
			if word == "t" {
				k = tDatetime
			}
			return token{kind: k, start: i, end: end, text: p.src[body.Start:body.End]}
		}
		return token{kind: tIdent, start: i, end: j, text: word}
	case isDigit(c):
		return p.lexNumber(i)
	case c == '"' || c == '\'':
		return p.lexString(i)
	}
	switch c {
	case ';':
		return one(tSemi)
	case '(':
		return one(tLParen)
	case ')':
		return one(tRParen)
	case '{':
		return one(tLBrace)
	case '}':
		return one(tRBrace)
	case '[':
		return one(tLBracket)
	case ']':
		return one(tRBracket)
	case ',':
		return one(tComma)
	case ':':
		return one(tColon)
	case '.':
		if next == '.' {
			if i+2 < p.end && p.src[i+2] == '=' {
				return token{kind: tDotDotEq, start: i, end: i + 3, text: "..="}
			}
			if i+2 < p.end && p.src[i+2] == '.' {
				return token{kind: tEllipsis, start: i, end: i + 3, text: "..."}
			}
			return two(tDotDot)
		}
		return one(tDot)
	case '?':
		switch next {
		case '.':
			return two(tQDot)
		case '?':
			return two(tQQ)
		}
		return one(tQuestion)
	case '=':
		switch next {
		case '>':
			return two(tFatArrow)
		case '=':
			return two(tEqEq)
		}
		return one(tAssign)
	case '-':
		switch next {
		case '>':
			return two(tArrow)
		case '=':
			return two(tMinusEq)
		}
		return one(tMinus)
	case '+':
		if next == '=' {
			return two(tPlusEq)
		}
		return one(tPlus)
	case '*':
		if next == '=' {
			return two(tStarEq)
		}
		return one(tStar)
	case '/':
		if next == '=' {
			return two(tSlashEq)
		}
		return one(tSlash)
	case '%':
		return one(tPercent)
	case '!':
		if next == '=' {
			return two(tNotEq)
		}
		return one(tBang)
	case '<':
		if next == '=' {
			return two(tLe)
		}
		return one(tLt)
	case '>':
		if next == '=' {
			return two(tGe)
		}
		return one(tGt)
	case '&':
		if next == '&' {
			return two(tAndAnd)
		}
		return one(tAmp)
	case '|':
		if next == '|' {
			return two(tOrOr)
		}
		return one(tPipe)
	case '^':
		return one(tCaret)
	case '$':
		p.fail(diag.Span{Start: i, End: i + 1}, "shoal variables have no sigil", "read environment variables with `env.NAME`")
	case '`':
		p.fail(diag.Span{Start: i, End: i + 1}, "backtick is not shoal syntax", "capture a command with `(cmd …)` or use `sh { … }`")
	}
	r, size := utf8.DecodeRuneInString(p.src[i:p.end])
	if r == utf8.RuneError && size <= 1 {
		p.fail(diag.Span{Start: i, End: i + 1}, fmt.Sprintf("unexpected byte 0x%02x", c), "")
	}
	p.fail(diag.Span{Start: i, End: i + size}, fmt.Sprintf("unexpected character `%c`", r), "")
	panic("unreachable")
}

// scanRawQuoted scans a raw "…" starting at the quote at i (re"…", t"…"),
// returning the body span and the offset after the closing quote.
func (p *parser) scanRawQuoted(i int) (diag.Span, int) {
	j := i + 1
	for j < p.end && p.src[j] != '"' {
		if p.src[j] == '\n' {
			p.fail(diag.Span{Start: i, End: j}, "unterminated string (newline)", "use triple quotes for multi-line text")
		}
		j++
	}
	if j >= p.end {
		// A one-line string cannot be completed by a following line, so
		// this is not Partial.
		p.fail(diag.Span{Start: i, End: j}, "unterminated string", "close it with `\"`")
	}
	return diag.Span{Start: i + 1, End: j}, j + 1
}

// lexString scans a string literal at i and records its body; escapes and
// interpolation are decoded by the parser (strings.go).
func (p *parser) lexString(i int) token {
	q := p.src[i]
	if i+2 < p.end && p.src[i+1] == q && p.src[i+2] == q {
		body := i + 3
		j := body
		for {
			if j+2 >= p.end {
				p.failPartial(diag.Span{Start: i, End: p.end}, "unterminated string", "close it with "+string([]byte{q, q, q}))
			}
			if p.src[j] == q && p.src[j+1] == q && p.src[j+2] == q {
				break
			}
			if q == '"' && p.src[j] == '\\' {
				j += 2
				continue
			}
			if q == '"' && p.src[j] == '{' {
				j = p.skipInterp(j, true)
				continue
			}
			j++
		}
		return token{kind: tStr, start: i, end: j + 3, str: strForm{bodyStart: body, bodyEnd: j, triple: true, raw: q == '\''}}
	}
	j := i + 1
	for {
		if j >= p.end {
			// Not Partial: a one-line string cannot continue on the next line.
			p.fail(diag.Span{Start: i, End: j}, "unterminated string", "close it with `"+string(q)+"`; use triple quotes for multi-line text")
		}
		c := p.src[j]
		if c == q {
			break
		}
		if c == '\n' {
			p.fail(diag.Span{Start: i, End: j}, "unterminated string (newline)", "use triple quotes (\"\"\"…\"\"\") for multi-line text")
		}
		if q == '"' && c == '\\' {
			j += 2
			continue
		}
		if q == '"' && c == '{' {
			j = p.skipInterp(j, false)
			continue
		}
		j++
	}
	return token{kind: tStr, start: i, end: j + 1, str: strForm{bodyStart: i + 1, bodyEnd: j, raw: q == '\''}}
}

// skipInterp skips a {expr} hole starting at the '{' at i: braces nest and
// string literals inside are skipped. It returns the offset after '}'.
func (p *parser) skipInterp(i int, multiline bool) int {
	depth := 0
	j := i
	for j < p.end {
		c := p.src[j]
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"', '\'':
			end, ok := p.skipNestedString(j, 0)
			if !ok {
				j = p.end
				continue
			}
			j = end
			continue
		case '\n':
			if !multiline {
				j = p.end
				continue
			}
		}
		j++
	}
	sp := diag.Span{Start: i, End: i + 1}
	if !multiline {
		// The hole of a one-line string cannot continue on the next line.
		p.fail(sp, "unterminated `{expr}` in string", "escape a literal brace as \\{")
	}
	p.failPartial(sp, "unterminated `{expr}` in string", "escape a literal brace as \\{")
	return 0
}

// skipNestedString skips a single-line or triple-quoted string inside an
// interpolation hole, reporting false when it does not close.
func (p *parser) skipNestedString(i, depth int) (int, bool) {
	if depth > maxDepth {
		p.fail(diag.Span{Start: i, End: i + 1}, "nesting too deep", "")
	}
	q := p.src[i]
	if i+2 < p.end && p.src[i+1] == q && p.src[i+2] == q {
		for j := i + 3; j+2 < p.end; j++ {
			if q == '"' && p.src[j] == '\\' {
				j++
				continue
			}
			if p.src[j] == q && p.src[j+1] == q && p.src[j+2] == q {
				return j + 3, true
			}
		}
		return 0, false
	}
	for j := i + 1; j < p.end; j++ {
		c := p.src[j]
		switch {
		case c == '\n':
			return 0, false
		case c == q:
			return j + 1, true
		case q == '"' && c == '\\':
			j++
		case q == '"' && c == '{':
			braces := 0
			for ; j < p.end; j++ {
				if p.src[j] == '{' {
					braces++
				} else if p.src[j] == '}' {
					braces--
					if braces == 0 {
						break
					}
				} else if p.src[j] == '"' || p.src[j] == '\'' {
					end, ok := p.skipNestedString(j, depth+1)
					if !ok {
						return 0, false
					}
					j = end - 1
				}
			}
		}
	}
	return 0, false
}
