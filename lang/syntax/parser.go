package syntax

import (
	"fmt"

	"github.com/shoal-sh/shoal/lang/diag"
)

// maxDepth bounds syntactic nesting so hostile input (a thousand open
// parentheses) fails with a diagnostic instead of exhausting memory.
const maxDepth = 256

// parser is a recursive-descent parser over a byte range of src. A parse
// error aborts the whole parse through a bailout panic that Parse
// recovers, as go/parser does; nothing else panics.
type parser struct {
	src  string
	end  int // parsing stops here (interpolation holes parse a sub-range)
	pos  int // offset after the last consumed token
	opts Options
	sc   *scope

	depth int
	// nl is set inside ( ) [ ] records, argument lists and patterns,
	// where newlines are insignificant.
	nl bool
	// noTrail disables trailing-block sugar at the top level of if/while
	// conditions, for iterables and match scrutinees, so `if r.ok {` keeps
	// its body.
	noTrail bool
	// noIdentLambda keeps a match guard's final bare identifier from
	// being read as a lambda parameter before the arm's `=>`.
	noIdentLambda bool
	// pending is a primary already built by the caller (the implicit item
	// of a dot lambda, `it` for a REPL line starting with `.`).
	pending Expr

	cache      token
	cachePos   int
	cacheNL    bool
	cacheValid bool
}

type bailout struct{ err *diag.Error }

// bindKind records how a name is bound in a lexical block (§3).
type bindKind uint8

const (
	boundValue bindKind = iota + 1
	boundCommand
)

type scope struct {
	parent *scope
	names  map[string]bindKind
}

// Parse parses src as a program; see [Options] for the dispatch inputs.
// On failure the error is a *diag.Error with Code [diag.ParseError].
func Parse(src string, opts *Options) (prog *Program, err error) {
	p := &parser{src: src, end: len(src), sc: &scope{}}
	if opts != nil {
		p.opts = *opts
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			prog, err = nil, b.err
		}
	}()
	stmts := p.parseStmts(false)
	return &Program{Pos: Pos{diag.Span{Start: 0, End: len(src)}}, Stmts: stmts, Src: src}, nil
}

func (p *parser) newErr(sp diag.Span, msg, hint string) *diag.Error {
	return &diag.Error{Code: diag.ParseError, Msg: msg, Hint: hint, Span: sp, Src: p.src}
}

func (p *parser) fail(sp diag.Span, msg, hint string) {
	panic(bailout{p.newErr(sp, msg, hint)})
}

// failPartial reports an error caused by the input ending early; only the
// real end of the source counts (an interpolation hole's end does not).
func (p *parser) failPartial(sp diag.Span, msg, hint string) {
	e := p.newErr(sp, msg, hint)
	e.Partial = p.end == len(p.src)
	panic(bailout{e})
}

// failExpected reports "expected WHAT, found KIND".
func (p *parser) failExpected(what string, t token) {
	sp := diag.Span{Start: t.start, End: t.end}
	found := t.kind.String()
	switch {
	case t.kind == tIdent && isReserved(t.text):
		found = "keyword `" + t.text + "`"
	case t.kind == tPipe:
		p.failPipe(t)
	case t.kind == tAmp:
		p.failAmp(t)
	}
	msg := fmt.Sprintf("expected %s, found %s", what, found)
	if t.kind == tEOF {
		p.failPartial(sp, msg, "")
	}
	p.fail(sp, msg, "")
}

func (p *parser) failPipe(t token) {
	p.fail(diag.Span{Start: t.start, End: t.end}, "shoal has no pipe operator",
		"compose with `.`, e.g. `ls.where(.size > 1mb)`; send a value to a program with `.feed(cmd)`; or use `sh { … }`")
}

func (p *parser) failAmp(t token) {
	p.fail(diag.Span{Start: t.start, End: t.end}, "`&` is not an operator here",
		"backgrounding with & is command syntax; logical and is `&&`")
}

// ctxFlags are the context flags a nested delimiter saves and restores.
type ctxFlags struct{ nl, noTrail, noIdentLambda bool }

// enter saves the context flags for a nested delimiter, sets nl and
// counts the nesting depth; leave undoes it.
func (p *parser) enter(nl bool) ctxFlags {
	saved := ctxFlags{p.nl, p.noTrail, p.noIdentLambda}
	p.nl, p.noTrail, p.noIdentLambda = nl, false, false
	p.depth++
	if p.depth > maxDepth {
		p.fail(diag.Span{Start: p.pos, End: p.pos + 1}, "nesting too deep", "")
	}
	return saved
}

func (p *parser) leave(saved ctxFlags) {
	p.nl, p.noTrail, p.noIdentLambda = saved.nl, saved.noTrail, saved.noIdentLambda
	p.depth--
}

// ---- tokens ----

func (p *parser) peek() token {
	if p.cacheValid && p.cachePos == p.pos && p.cacheNL == p.nl {
		return p.cache
	}
	i := p.pos
	var t token
	for {
		t = p.lexAt(i)
		if t.kind == tNewline && p.nl {
			i = t.end
			continue
		}
		break
	}
	p.cache, p.cachePos, p.cacheNL, p.cacheValid = t, p.pos, p.nl, true
	return t
}

// peekLine peeks without skipping newlines, whatever the context.
func (p *parser) peekLine() token {
	saved := p.nl
	p.nl = false
	t := p.peek()
	p.nl = saved
	return t
}

func (p *parser) advance() token {
	t := p.peek()
	p.pos = t.end
	return t
}

func (p *parser) expect(k tokKind, what string) token {
	t := p.peek()
	if t.kind != k {
		p.failExpected(what, t)
	}
	p.pos = t.end
	return t
}

// skipNewlines consumes newlines and comments (after a binary operator,
// before `else`/`catch`).
func (p *parser) skipNewlines() {
	for {
		i := p.skipSpace(p.pos, true)
		if i < p.end && p.src[i] == '\n' {
			p.pos = i + 1
			continue
		}
		return
	}
}

// skipTerms consumes statement terminators: newlines, `;` and comments.
func (p *parser) skipTerms() {
	for {
		i := p.skipSpace(p.pos, true)
		if i < p.end && (p.src[i] == '\n' || p.src[i] == ';') {
			p.pos = i + 1
			continue
		}
		p.pos = i
		return
	}
}

// nextLineStarts reports whether, after the current newline(s), the next
// non-blank line starts with one of the continuation forms, and returns
// its offset. Bytes are inspected directly so a command line that follows
// is never lexed in expression mode.
func (p *parser) nextLineStarts(forms ...string) (int, bool) {
	i := p.pos
	for {
		i = p.skipSpace(i, true)
		if i < p.end && p.src[i] == '\n' {
			i++
			continue
		}
		break
	}
	for _, f := range forms {
		if !hasPrefixAt(p.src[:p.end], i, f) {
			continue
		}
		j := i + len(f)
		switch f {
		case ".":
			if j < p.end && isIdentStart(p.src[j]) {
				return i, true
			}
		case "?.":
			return i, true
		default: // keywords
			if j >= p.end || !isIdentChar(p.src[j]) {
				return i, true
			}
		}
	}
	return 0, false
}

func hasPrefixAt(s string, i int, pre string) bool {
	return i+len(pre) <= len(s) && s[i:i+len(pre)] == pre
}

// identAt returns the identifier starting at i, or "".
func (p *parser) identAt(i int) string {
	if i >= p.end || !isIdentStart(p.src[i]) {
		return ""
	}
	j := i + 1
	for j < p.end && isIdentChar(p.src[j]) {
		j++
	}
	return p.src[i:j]
}

// ---- scopes ----

func (p *parser) push() { p.sc = &scope{parent: p.sc} }
func (p *parser) pop()  { p.sc = p.sc.parent }

func (p *parser) bind(name string, k bindKind) {
	if name == "" || name == "_" {
		return
	}
	if p.sc.names == nil {
		p.sc.names = make(map[string]bindKind)
	}
	p.sc.names[name] = k
}

func (p *parser) lookup(name string) bindKind {
	for s := p.sc; s != nil; s = s.parent {
		if k, ok := s.names[name]; ok {
			return k
		}
	}
	return 0
}

// valueBound reports whether name is value-bound where the parser stands.
func (p *parser) valueBound(name string) bool {
	switch p.lookup(name) {
	case boundValue:
		return true
	case boundCommand:
		return false
	}
	switch name {
	case "path", "glob", "regex":
		return true
	case "it", "out":
		if p.opts.REPL {
			return true
		}
	}
	// A host may report a fn name as a value too (fns are closures in its
	// scope); the command binding decides dispatch.
	if p.opts.CommandBound != nil && p.opts.CommandBound(name) {
		return false
	}
	return p.opts.Bound != nil && p.opts.Bound(name)
}

func (p *parser) failReplOnly(sp diag.Span, name string) {
	p.fail(sp, fmt.Sprintf("`%s` is REPL-only", name), "bind a variable with `let`")
}

func span(start, end int) Pos { return Pos{diag.Span{Start: start, End: end}} }
