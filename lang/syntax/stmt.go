package syntax

import (
	"github.com/shoal-sh/shoal/lang/diag"
)

// parseStmts parses statements until EOF (program) or `}` (block).
func (p *parser) parseStmts(inBlock bool) []Stmt {
	var out []Stmt
	for {
		p.skipTerms()
		if p.pos >= p.end {
			if inBlock {
				p.failPartial(diag.Span{Start: p.pos, End: p.pos}, "expected `}`, found EOF", "")
			}
			return out
		}
		if inBlock && p.src[p.pos] == '}' {
			return out
		}
		out = append(out, p.parseStmt())
		i := p.skipSpace(p.pos, true)
		if i >= p.end || p.src[i] == '\n' || p.src[i] == ';' || (inBlock && p.src[i] == '}') {
			continue
		}
		t := p.lexAt(i)
		switch t.kind {
		case tPipe:
			p.failPipe(t)
		case tAmp:
			p.failAmp(t)
		case tAssign, tPlusEq, tMinusEq, tStarEq, tSlashEq:
			p.fail(diag.Span{Start: t.start, End: t.end}, "only a variable or `env.NAME` can be assigned",
				"values are immutable: build a new one, e.g. `r = r.set(\"k\", v)`")
		case tRBrace, tRParen, tRBracket:
			p.fail(diag.Span{Start: t.start, End: t.end}, "unexpected `"+p.src[t.start:t.end]+"`", "")
		}
		p.fail(diag.Span{Start: t.start, End: t.end}, "expected newline or `;` between statements",
			"to run a command here, force the command with `^name`")
	}
}

// isPathHead reports whether a path word starts at i: / ./ ../ ~/ or ~.
func (p *parser) isPathHead(i int) bool {
	s := p.src[:p.end]
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '/':
		return true
	case '.':
		return hasPrefixAt(s, i, "./") || hasPrefixAt(s, i, "../")
	case '~':
		return i+1 >= len(s) || s[i+1] == '/' || isWordEnd(s[i+1])
	}
	return false
}

// interpFollows reports whether an interpreter block follows the tool name
// ending at j: an adjacent `'` or, after spaces, `{`.
func (p *parser) interpFollows(j int) bool {
	if j < p.end && p.src[j] == '\'' {
		return true
	}
	for j < p.end && (p.src[j] == ' ' || p.src[j] == '\t') {
		j++
	}
	return j < p.end && p.src[j] == '{'
}

// prefixedStringAt reports whether name, ending at j, is the prefix of a
// re"…" or t"…" literal.
func (p *parser) prefixedStringAt(name string, j int) bool {
	return (name == "re" || name == "t") && j < p.end && p.src[j] == '"'
}

// envWordAt reports whether an IDENT=… word starts at i and more command
// content follows it on the line (rule 6 of §3).
func (p *parser) envWordAt(i int) bool {
	name := p.identAt(i)
	j := i + len(name)
	if name == "" || j >= p.end || p.src[j] != '=' || j+1 >= p.end {
		return false
	}
	if c := p.src[j+1]; c == '=' || c == '>' {
		return false
	}
	k := j + 1
	if k < p.end && (p.src[k] == '"' || p.src[k] == '\'') {
		return true // FOO="x" cmd; the string decides
	}
	for k < p.end && !isWordEnd(p.src[k]) {
		k++
	}
	k = p.skipSpace(k, true)
	return k < p.end && !isCmdTerminator(p.src[k])
}

func isCmdTerminator(c byte) bool {
	return c == '\n' || c == ';' || c == '}' || c == ')'
}

// assignOpAt returns the assignment operator at i, or "".
func (p *parser) assignOpAt(i int) string {
	s := p.src[:p.end]
	for _, op := range []string{"+=", "-=", "*=", "/="} {
		if hasPrefixAt(s, i, op) {
			return op
		}
	}
	if hasPrefixAt(s, i, "=") && !hasPrefixAt(s, i, "==") && !hasPrefixAt(s, i, "=>") {
		return "="
	}
	return ""
}

// parseStmt applies statement dispatch (LANGUAGE.md §3) at p.pos.
func (p *parser) parseStmt() Stmt {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.fail(diag.Span{Start: p.pos, End: p.pos + 1}, "nesting too deep", "")
	}
	i := p.skipSpace(p.pos, true)
	p.pos = i
	c := p.src[i]
	if p.opts.REPL && c == '.' && !p.isPathHead(i) {
		p.pending = &Ident{Pos: span(i, i), Name: "it"}
		x := p.parseExpr()
		return &ExprStmt{Pos: span(i, p.pos), X: x}
	}
	if p.isPathHead(i) || c == '^' {
		return p.commandStmt(i)
	}
	name := p.identAt(i)
	if name == "" {
		return p.exprStmt(i)
	}
	j := i + len(name)
	switch name {
	case "let", "var":
		return p.parseLet(name == "var")
	case "export":
		return p.parseExport()
	case "fn":
		return p.parseFn()
	case "alias":
		return p.parseAlias()
	case "use":
		return p.parseUse()
	case "return":
		return p.parseReturn()
	case "break":
		p.pos = j
		return &BreakStmt{span(i, j)}
	case "continue":
		p.pos = j
		return &ContinueStmt{span(i, j)}
	case "for":
		return p.parseFor()
	case "while":
		return p.parseWhile()
	case "true", "false", "null", "if", "match", "try", "with", "spawn":
		return p.exprStmt(i)
	}
	if isReserved(name) {
		hint := ""
		switch name {
		case "catch":
			hint = "postfix `catch` follows an expression; wrap a command in parentheses: `(cmd) catch e { … }`"
		case "else":
			hint = "`else` continues an `if … { }` expression"
		}
		p.fail(diag.Span{Start: i, End: j}, "unexpected keyword `"+name+"`", hint)
	}
	if (isInterpTool(name) && p.interpFollows(j)) || p.prefixedStringAt(name, j) {
		return p.exprStmt(i)
	}
	if p.envWordAt(i) {
		return p.commandStmt(i)
	}
	if name == "env" && j < p.end && p.src[j] == '.' {
		if n := p.identAt(j + 1); n != "" {
			k := p.skipSpace(j+1+len(n), false)
			if op := p.assignOpAt(k); op != "" {
				p.pos = k + len(op)
				p.skipNewlines()
				v := p.parseExpr()
				return &AssignStmt{Pos: span(i, p.pos), Name: n, Env: true, Op: op, Value: v}
			}
		}
	}
	k := p.skipSpace(j, false)
	if op := p.assignOpAt(k); op != "" {
		if (name == "it" || name == "out") && !p.opts.REPL {
			p.failReplOnly(diag.Span{Start: i, End: j}, name)
		}
		p.pos = k + len(op)
		p.skipNewlines()
		v := p.parseExpr()
		return &AssignStmt{Pos: span(i, p.pos), Name: name, Op: op, Value: v}
	}
	if j < p.end {
		switch p.src[j] {
		case '.', '(', '[':
			return p.exprStmt(i)
		case '?':
			if hasPrefixAt(p.src[:p.end], j, "?.") {
				return p.exprStmt(i)
			}
		}
	}
	if hasPrefixAt(p.src[:p.end], k, "=>") || p.valueBound(name) {
		return p.exprStmt(i)
	}
	if name == "it" || name == "out" {
		p.failReplOnly(diag.Span{Start: i, End: j}, name)
	}
	return p.commandStmt(i)
}

func (p *parser) exprStmt(i int) Stmt {
	x := p.parseExpr()
	return &ExprStmt{Pos: span(i, p.pos), X: x}
}

// commandStmt parses command { ( "&&" | "||" ) operand }.
func (p *parser) commandStmt(i int) Stmt {
	p.pos = i
	c := p.parseCommand()
	x := p.parseOr(c)
	return &ExprStmt{Pos: span(i, p.pos), X: x}
}

// parseLet parses ( "let" | "var" ) binder [ ":" type ] "=" expr.
func (p *parser) parseLet(mutable bool) Stmt {
	start := p.advance().start
	t := p.peek()
	if t.kind == tLBracket || t.kind == tLBrace {
		p.fail(diag.Span{Start: t.start, End: t.end}, "destructuring in `let` is not supported", "bind the whole value and index it")
	}
	name := p.expectBinder()
	var typ *TypeExpr
	if p.peek().kind == tColon {
		p.advance()
		typ = p.parseType()
	}
	p.expect(tAssign, "`=`")
	p.skipNewlines()
	v := p.parseExpr()
	p.bind(name, boundValue)
	return &LetStmt{Pos: span(start, p.pos), Mutable: mutable, Name: name, Type: typ, Value: v}
}

// expectBinder reads IDENT or `_`.
func (p *parser) expectBinder() string {
	t := p.peek()
	if t.kind != tIdent || isReserved(t.text) {
		p.failExpected("a name", t)
	}
	p.advance()
	return t.text
}

func (p *parser) parseExport() Stmt {
	kw := p.advance()
	start := kw.start
	if p.sc.parent != nil {
		p.fail(diag.Span{Start: kw.start, End: kw.end}, "`export` is only allowed at the top level of a module", "")
	}
	t := p.peek()
	var d Stmt
	switch {
	case t.kind == tIdent && (t.text == "let" || t.text == "var"):
		d = p.parseLet(t.text == "var")
	case t.kind == tIdent && t.text == "fn":
		d = p.parseFn()
	default:
		p.failExpected("`let`, `var` or `fn` after `export`", t)
	}
	return &ExportStmt{Pos: span(start, p.pos), Decl: d}
}

// parseFn parses "fn" IDENT "(" [ params ] ")" [ "->" type ] block.
func (p *parser) parseFn() Stmt {
	start := p.advance().start
	name := p.expectBinder()
	p.expect(tLParen, "`(`")
	saved := p.enter(true)
	p.push()
	fd := &FnDecl{Name: name}
	for p.peek().kind != tRParen {
		if fd.Rest != nil {
			p.fail(fd.Rest.S, "`...rest` must be the last parameter", "")
		}
		pt := p.peek()
		if pt.kind == tEllipsis {
			p.advance()
			pname := p.expectBinder()
			rp := &Param{Name: pname}
			if p.peek().kind == tColon {
				p.advance()
				rp.Type = p.parseType()
			}
			rp.S = diag.Span{Start: pt.start, End: p.pos}
			fd.Rest = rp
			p.bind(pname, boundValue)
		} else {
			pname := p.expectBinder()
			prm := &Param{Name: pname}
			if p.peek().kind == tColon {
				p.advance()
				prm.Type = p.parseType()
			}
			if p.peek().kind == tAssign {
				p.advance()
				prm.Default = p.parseExpr()
			}
			prm.S = diag.Span{Start: pt.start, End: p.pos}
			fd.Params = append(fd.Params, prm)
			p.bind(pname, boundValue)
		}
		if p.peek().kind == tComma {
			p.advance()
			continue
		}
		if p.peek().kind != tRParen {
			p.failExpected("`,` or `)` in parameters", p.peek())
		}
	}
	p.advance()
	p.leave(saved)
	if p.peek().kind == tArrow {
		p.advance()
		fd.Ret = p.parseType()
	}
	fd.Body = p.parseBlock()
	p.pop()
	p.bind(name, boundCommand)
	fd.S = diag.Span{Start: start, End: p.pos}
	return fd
}

// parseType parses IDENT [ "<" type { "," type } ">" ] [ "?" ].
func (p *parser) parseType() *TypeExpr {
	t := p.peek()
	if t.kind != tIdent {
		p.failExpected("a type name", t)
	}
	p.advance()
	te := &TypeExpr{Name: t.text}
	if p.peek().kind == tLt {
		p.advance()
		flags := p.enter(p.nl)
		defer p.leave(flags)
		for {
			te.Args = append(te.Args, p.parseType())
			if p.peek().kind == tComma {
				p.advance()
				continue
			}
			break
		}
		p.expect(tGt, "`>`")
	}
	if p.peekLine().kind == tQuestion {
		p.advance()
		te.Optional = true
	}
	te.S = diag.Span{Start: t.start, End: p.pos}
	return te
}

// parseAlias parses "alias" IDENT "=" command.
func (p *parser) parseAlias() Stmt {
	start := p.advance().start
	name := p.expectBinder()
	p.expect(tAssign, "`=`")
	i := p.skipSpace(p.pos, true)
	if i >= p.end || isCmdTerminator(p.src[i]) {
		p.failPartial(diag.Span{Start: i, End: i}, "expected a command after `alias "+name+" =`", "")
	}
	p.pos = i
	c := p.parseCommand()
	p.bind(name, boundCommand)
	return &AliasStmt{Pos: span(start, p.pos), Name: name, Cmd: c}
}

// parseUse parses "use" ( WORD | PATHWORD ), read in command mode.
func (p *parser) parseUse() Stmt {
	start := p.advance().start
	i := p.skipSpace(p.pos, true)
	w := p.scanWord(i)
	if w == "" {
		p.failExpected("a module path after `use`", p.lexAt(i))
	}
	p.pos = i + len(w)
	return &UseStmt{Pos: span(start, p.pos), Target: w}
}

func (p *parser) parseReturn() Stmt {
	t := p.advance()
	i := p.skipSpace(p.pos, true)
	if i >= p.end || isCmdTerminator(p.src[i]) {
		return &ReturnStmt{Pos: span(t.start, t.end)}
	}
	v := p.parseExpr()
	return &ReturnStmt{Pos: span(t.start, p.pos), Value: v}
}

// parseFor parses "for" binder "in" expr_nb block.
func (p *parser) parseFor() Stmt {
	start := p.advance().start
	name := p.expectBinder()
	t := p.peek()
	if t.kind != tIdent || t.text != "in" {
		p.failExpected("`in`", t)
	}
	p.advance()
	iter := p.parseCond()
	p.push()
	p.bind(name, boundValue)
	body := p.parseBlock()
	p.pop()
	return &ForStmt{Pos: span(start, p.pos), Var: name, Iter: iter, Body: body}
}

func (p *parser) parseWhile() Stmt {
	start := p.advance().start
	cond := p.parseCond()
	body := p.parseBlock()
	return &WhileStmt{Pos: span(start, p.pos), Cond: cond, Body: body}
}

// parseCond parses an expression that a block follows, without
// trailing-block sugar at its top level.
func (p *parser) parseCond() Expr {
	saved := p.noTrail
	p.noTrail = true
	x := p.parseExpr()
	p.noTrail = saved
	return x
}

// parseBlock parses "{" { statement } "}" in a child scope.
func (p *parser) parseBlock() *Block {
	t := p.peek()
	if t.kind != tLBrace {
		p.failExpected("`{`", t)
	}
	p.pos = t.end
	saved := p.enter(false)
	p.push()
	stmts := p.parseStmts(true)
	p.pop()
	p.leave(saved)
	p.pos++ // the `}` parseStmts stopped at
	return &Block{Pos: span(t.start, p.pos), Stmts: stmts}
}
