package syntax

import (
	"fmt"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// isWordEnd reports whether c ends a command word (§2.2).
func isWordEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '(', ')', '{', '}', '"', '\'', ';', '&', '<', '>', '|':
		return true
	}
	return false
}

// scanWord returns the command word starting at i ("" when a terminator
// is there). `$` and backticks inside a word are errors.
func (p *parser) scanWord(i int) string {
	j := i
	for j < p.end && !isWordEnd(p.src[j]) {
		switch p.src[j] {
		case '$':
			p.fail(diag.Span{Start: j, End: j + 1}, "shoal variables have no sigil", "read environment variables with `env.NAME`")
		case '`':
			p.fail(diag.Span{Start: j, End: j + 1}, "backtick is not shoal syntax", "capture a command with `(cmd …)` or use `sh { … }`")
		case '\\':
			if j+1 >= p.end {
				p.failPartial(diag.Span{Start: j, End: j + 1}, "unexpected end of input after `\\`", "")
			}
			if p.src[j+1] == '\n' || hasPrefixAt(p.src[:p.end], j+1, "\r\n") {
				return p.src[i:j] // a line continuation ends the word
			}
		}
		j++
	}
	return p.src[i:j]
}

// parseCommand parses
// command = { ENVWORD } [ "^" ] ( WORD | PATHWORD ) { cmdpart } [ "&" | block ].
func (p *parser) parseCommand() *Command {
	p.depth++
	defer func() { p.depth-- }()
	start := p.skipSpace(p.pos, true)
	if p.depth > maxDepth {
		p.fail(diag.Span{Start: start, End: start + 1}, "nesting too deep", "")
	}
	cmd := &Command{}
	i := start
	for p.envWordAt(i) {
		name := p.identAt(i)
		eq := i + len(name)
		ea := &EnvAssign{Name: name}
		p.pos = eq + 1
		ea.Value = p.cmdPart(false)
		if ea.Value == nil {
			ea.Value = &Word{Pos: span(eq+1, eq+1)}
		}
		ea.S = diag.Span{Start: i, End: p.pos}
		cmd.Env = append(cmd.Env, ea)
		i = p.skipSpace(p.pos, true)
	}
	if i < p.end && p.src[i] == '^' {
		cmd.Caret = true
		i++
	}
	w := p.scanWord(i)
	if w == "" {
		p.failExpected("a command name", p.lexAt(i))
	}
	p.pos = i + len(w)
	switch part := p.classify(w, i).(type) {
	case *Word, *PathWord:
		cmd.Head = part
	default:
		p.fail(diag.Span{Start: i, End: p.pos}, "expected a command name, found `"+w+"`", "")
	}
	for {
		j := p.skipSpace(p.pos, true)
		if j >= p.end {
			p.pos = j
			break
		}
		c := p.src[j]
		if c == '\n' || c == ';' || c == '}' || c == ')' || hasPrefixAt(p.src[:p.end], j, "&&") || hasPrefixAt(p.src[:p.end], j, "||") {
			break
		}
		sp := diag.Span{Start: j, End: j + 1}
		switch c {
		case '|':
			p.failPipe(token{start: j, end: j + 1})
		case '&':
			if hasPrefixAt(p.src[:p.end], j, "&>") {
				p.fail(diag.Span{Start: j, End: j + 2}, "shoal has no stream-merging redirect", "capture both streams with `(cmd).stdout` and `(cmd).stderr`")
			}
			cmd.Background = true
			p.pos = j + 1
			cmd.S = diag.Span{Start: start, End: p.pos}
			return cmd
		case '{':
			p.pos = j
			cmd.Block = p.parseBlock()
			cmd.S = diag.Span{Start: start, End: p.pos}
			return cmd
		case '<', '>':
			cmd.Redirs = append(cmd.Redirs, p.parseRedirect(j))
			continue
		case ']':
			p.fail(sp, "unexpected `]`", "")
		}
		p.pos = j
		part := p.cmdPart(true)
		if part == nil {
			// Defensive: every byte that reaches here starts a part, but
			// the loop must never spin without consuming input.
			p.fail(sp, fmt.Sprintf("unexpected `%c` in a command", c), "")
		}
		cmd.Args = append(cmd.Args, part)
	}
	cmd.S = diag.Span{Start: start, End: p.pos}
	return cmd
}

// parseRedirect parses ( "<" | ">" | ">>" ) cmdpart at j.
func (p *parser) parseRedirect(j int) *Redirect {
	s := p.src[:p.end]
	op := s[j : j+1]
	switch {
	case hasPrefixAt(s, j, "<<<"):
		p.fail(diag.Span{Start: j, End: j + 3}, "shoal has no here-strings", "send text to a program with `\"text\".feed(cmd)`")
	case hasPrefixAt(s, j, "<<"):
		p.fail(diag.Span{Start: j, End: j + 2}, "shoal has no heredocs", "send text to a program with `\"text\".feed(cmd)`")
	case hasPrefixAt(s, j, ">>"):
		op = ">>"
	}
	p.pos = j + len(op)
	k := p.skipSpace(p.pos, true)
	if k >= p.end || isCmdTerminator(s[k]) {
		p.failExpected("a redirect target after `"+op+"`", p.lexAt(k))
	}
	p.pos = k
	target := p.cmdPart(true)
	if target == nil {
		p.fail(diag.Span{Start: k, End: k + 1}, "expected a redirect target after `"+op+"`", "")
	}
	return &Redirect{Pos: span(j, p.pos), Op: op, Target: target}
}

// cmdPart parses one cmdpart at p.pos (no leading blanks): a word, a
// string or a ( expr_or_command ); nil when a terminator is there. With
// takeValue, a `--name=` flag takes the following part as its value; the
// value itself is read without it, so `--a= --b= x` cannot chain.
func (p *parser) cmdPart(takeValue bool) CmdPart {
	i := p.pos
	if i >= p.end {
		return nil
	}
	switch p.src[i] {
	case '"', '\'':
		t := p.lexString(i)
		p.pos = t.end
		x := p.stringExpr(t)
		return &ExprPart{Pos: span(i, p.pos), X: x}
	case '(':
		p.pos = i
		saved := p.enter(true)
		p.advance()
		if n := p.peek(); n.kind == tRParen && i > 0 && !isWordEnd(p.src[i-1]) {
			// `git log.len()`: a method call glued to a command word.
			p.fail(diag.Span{Start: n.start, End: n.end}, "expected expression, found RParen",
				"to call a method on a command's result, wrap the command: `(git log).len()`")
		}
		x := p.exprOrCommand()
		n := p.peek()
		if n.kind != tRParen {
			p.failExpected("`)`", n)
		}
		p.advance()
		p.leave(saved)
		return &ExprPart{Pos: span(i, p.pos), X: x}
	case '[':
		w := p.scanWord(i)
		if !strings.Contains(w[1:], "]") {
			p.fail(diag.Span{Start: i, End: i + 1}, "`[` cannot start a command argument",
				"quote it, or pass a list with (expr); mid-word [ranges] in globs are fine")
		}
	case ']':
		p.fail(diag.Span{Start: i, End: i + 1}, "unexpected `]`", "")
	}
	w := p.scanWord(i)
	if w == "" {
		return nil
	}
	end := i + len(w)
	if end < p.end && p.src[end] == '>' && isAllDigits(w) {
		p.fail(diag.Span{Start: i, End: end + 1}, "shoal has no fd-numbered redirects", "capture stderr with `(cmd).stderr`")
	}
	p.pos = end
	part := p.classify(w, i)
	if f, ok := part.(*Flag); ok && f.EmptyEq && takeValue {
		// --name= takes the next token as its value.
		save := p.pos
		p.pos = p.skipSpace(p.pos, true)
		if v := p.cmdPart(false); v != nil {
			f.Value = v
			f.S.End = p.pos
		} else {
			p.pos = save
		}
	}
	return part
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// classify applies the command-word classification rules 1–7 of §2.2
// (rule 6, env assignment, is decided by the caller's position).
func (p *parser) classify(w string, i int) CmdPart {
	sp := Pos{diag.Span{Start: i, End: i + len(w)}}
	switch {
	case w == "--":
		return &EndOfFlags{sp}
	case w == "-":
		return &Dash{sp}
	case strings.ContainsAny(w, "*?[]"):
		return &GlobWord{sp, w}
	case w == "~" || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") ||
		strings.HasPrefix(w, "../") || strings.HasPrefix(w, "/"):
		return &PathWord{sp, w}
	}
	if strings.HasPrefix(w, "--") {
		name, val, hasEq := strings.Cut(w[2:], "=")
		if name != "" && isFlagName(name) {
			f := &Flag{Pos: sp, Name: strings.ReplaceAll(name, "-", "_"), Raw: w}
			if hasEq {
				if val == "" {
					f.EmptyEq = true
				} else {
					vs := i + 2 + len(name) + 1
					f.Value = &Word{span(vs, vs+len(val)), val}
				}
			}
			return f
		}
	}
	if len(w) > 1 && w[0] == '-' && isAlnum(w[1:]) {
		return &Flag{Pos: sp, Name: w[1:], Raw: w, Short: true}
	}
	return &Word{sp, w}
}

func isFlagName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isIdentChar(c) && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && !(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}
