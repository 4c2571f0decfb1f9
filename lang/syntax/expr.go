package syntax

import (
	"github.com/shoal-sh/shoal/lang/diag"
)

// parseExpr parses expr = coalesce { "catch" [ IDENT ] ( block | expr ) }.
func (p *parser) parseExpr() Expr { return p.parseExprFrom(nil) }

// parseExprFrom parses an expression whose first and/or operand (a
// command) is already parsed, or from scratch when first is nil.
func (p *parser) parseExprFrom(first Expr) Expr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.fail(diag.Span{Start: p.pos, End: p.pos + 1}, "nesting too deep", "")
	}
	x := p.parseCoalesce(first)
	for {
		t := p.peekLine()
		if t.kind == tNewline {
			if p.nl {
				t = p.peek()
			} else if i, ok := p.nextLineStarts("catch"); ok {
				p.pos = i
				t = p.peek()
			}
		}
		if t.kind != tIdent || t.text != "catch" {
			return x
		}
		p.pos = t.end
		c := &Catch{X: x}
		// `catch IDENT` binds IDENT unless nothing follows it.
		if b := p.peekLine(); b.kind == tIdent && !isReserved(b.text) {
			after := p.lexAt(b.end)
			if after.kind != tNewline && after.kind != tEOF && after.kind != tSemi &&
				after.kind != tRBrace && after.kind != tRParen && after.kind != tComma {
				p.pos = b.end
				c.Binder = b.text
			}
		}
		p.push()
		p.bind(c.Binder, boundValue)
		if p.peek().kind == tLBrace {
			c.Handler = p.parseBraceExpr()
		} else {
			c.Handler = p.parseCoalesce(nil)
		}
		p.pop()
		c.S = diag.Span{Start: x.Span().Start, End: p.pos}
		x = c
	}
}

func (p *parser) binary(op string, l, r Expr) Expr {
	return &Binary{Pos: span(l.Span().Start, r.Span().End), Op: op, L: l, R: r}
}

// parseCoalesce parses or_expr { "??" or_expr }.
func (p *parser) parseCoalesce(first Expr) Expr {
	x := p.parseOr(first)
	for p.peek().kind == tQQ {
		p.advance()
		p.skipNewlines()
		x = p.binary("??", x, p.parseOr(nil))
	}
	return x
}

// parseOr parses and_expr { "||" and_expr }; right operands may be
// commands.
func (p *parser) parseOr(first Expr) Expr {
	x := p.parseAnd(first)
	for p.peek().kind == tOrOr {
		p.advance()
		p.skipNewlines()
		x = p.binary("||", x, p.parseAnd(p.parseOperand()))
	}
	return x
}

func (p *parser) parseAnd(first Expr) Expr {
	x := first
	if x == nil {
		x = p.parseCmp()
	}
	for p.peek().kind == tAndAnd {
		p.advance()
		p.skipNewlines()
		x = p.binary("&&", x, p.parseOperand())
	}
	return x
}

// parseOperand parses an &&/|| operand: a command when the shorter test
// of §3 says so, else a comparison-level expression.
func (p *parser) parseOperand() Expr {
	if p.operandIsCommand(p.skipSpace(p.pos, true)) {
		return p.parseCommand()
	}
	return p.parseCmp()
}

// operandIsCommand is the shorter dispatch test used inside ( … ) and for
// && / || operands.
func (p *parser) operandIsCommand(i int) bool {
	if i >= p.end {
		return false
	}
	if p.src[i] == '^' || p.isPathHead(i) {
		return true
	}
	name := p.identAt(i)
	if name == "" {
		return false
	}
	j := i + len(name)
	switch name {
	case "true", "false", "null":
		return false
	}
	if isReserved(name) {
		return false
	}
	if (isInterpTool(name) && p.interpFollows(j)) || p.prefixedStringAt(name, j) {
		return false
	}
	if p.envWordAt(i) {
		return true
	}
	if j < p.end {
		switch p.src[j] {
		case '.', '(', '[':
			return false
		case '?':
			if hasPrefixAt(p.src[:p.end], j, "?.") {
				return false
			}
		}
	}
	if hasPrefixAt(p.src[:p.end], p.skipSpace(j, false), "=>") || p.valueBound(name) {
		return false
	}
	if name == "it" || name == "out" {
		p.failReplOnly(diag.Span{Start: i, End: j}, name)
	}
	return true
}

func isCmpOp(k tokKind) bool {
	switch k {
	case tEqEq, tNotEq, tLt, tLe, tGt, tGe:
		return true
	}
	return false
}

// parseCmp parses range [ cmpop range ], rejecting chains.
func (p *parser) parseCmp() Expr {
	x := p.parseRange()
	t := p.peek()
	op := ""
	switch {
	case isCmpOp(t.kind):
		op = t.text
	case t.kind == tIdent && t.text == "in":
		op = "in"
	default:
		return x
	}
	p.advance()
	p.skipNewlines()
	x = p.binary(op, x, p.parseRange())
	if n := p.peek(); isCmpOp(n.kind) || (n.kind == tIdent && n.text == "in") {
		p.fail(diag.Span{Start: n.start, End: n.end}, "comparison operators do not chain",
			"combine comparisons with `&&`, e.g. `a < b && b < c`")
	}
	return x
}

func (p *parser) parseRange() Expr {
	x := p.parseAdditive()
	for {
		t := p.peek()
		if t.kind != tDotDot && t.kind != tDotDotEq {
			return x
		}
		p.advance()
		p.skipNewlines()
		x = p.binary(t.text, x, p.parseAdditive())
	}
}

func (p *parser) parseAdditive() Expr {
	x := p.parseMul()
	for {
		t := p.peek()
		if t.kind != tPlus && t.kind != tMinus {
			return x
		}
		p.advance()
		p.skipNewlines()
		x = p.binary(t.text, x, p.parseMul())
	}
}

func (p *parser) parseMul() Expr {
	x := p.parseUnary()
	for {
		t := p.peek()
		if t.kind != tStar && t.kind != tSlash && t.kind != tPercent {
			return x
		}
		p.advance()
		p.skipNewlines()
		x = p.binary(t.text, x, p.parseUnary())
	}
}

// parseUnary parses ( "!" | "-" ) unary | postfix.
func (p *parser) parseUnary() Expr {
	if p.pending != nil {
		return p.parsePostfix()
	}
	t := p.peek()
	if t.kind != tBang && t.kind != tMinus {
		return p.parsePostfix()
	}
	p.advance()
	p.depth++
	if p.depth > maxDepth {
		p.fail(diag.Span{Start: t.start, End: t.end}, "nesting too deep", "")
	}
	x := p.parseUnary()
	p.depth--
	return &Unary{Pos: span(t.start, p.pos), Op: t.text, X: x}
}

// parsePostfix parses primary { "." IDENT … | "?." IDENT … | "[" expr "]" |
// callargs [ trailing ] }.
func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	start := x.Span().Start
	for {
		t := p.peekLine()
		if t.kind == tNewline {
			if p.nl {
				t = p.peek()
			} else if i, ok := p.nextLineStarts(".", "?."); ok {
				p.pos = i
				t = p.peek()
			} else {
				return x
			}
		}
		switch t.kind {
		case tDot, tQDot:
			p.advance()
			nt := p.peekLine()
			if nt.kind != tIdent || nt.start != t.end {
				p.failExpected("a field or method name after `"+t.text+"`", nt)
			}
			p.advance()
			safe := t.kind == tQDot
			if p.pos < p.end && p.src[p.pos] == '(' {
				args := p.parseCallArgs(nt.text == "feed")
				args = p.trailing(args)
				x = &MethodCall{Pos: span(start, p.pos), Recv: x, Name: nt.text, Args: args, Safe: safe}
				continue
			}
			if !safe {
				if args := p.trailing(nil); args != nil {
					x = &MethodCall{Pos: span(start, p.pos), Recv: x, Name: nt.text, Args: args}
					continue
				}
			}
			x = &Field{Pos: span(start, p.pos), X: x, Name: nt.text, Safe: safe}
		case tLBracket:
			if t.start != p.pos {
				return x
			}
			p.advance()
			saved := p.enter(true)
			idx := p.parseExpr()
			p.expect(tRBracket, "`]`")
			p.leave(saved)
			x = &Index{Pos: span(start, p.pos), X: x, Index: idx}
		case tLParen:
			if t.start != p.pos {
				return x
			}
			args := p.parseCallArgs(false)
			args = p.trailing(args)
			x = &Call{Pos: span(start, p.pos), Fn: x, Args: args}
		default:
			return x
		}
	}
}

// trailing appends a same-line trailing block as a zero-parameter lambda.
func (p *parser) trailing(args []*Arg) []*Arg {
	if p.noTrail {
		return args
	}
	t := p.peekLine()
	if t.kind != tLBrace {
		return args
	}
	b := p.parseBlock()
	lam := &Lambda{Pos: b.Pos, Body: b}
	return append(args, &Arg{Pos: b.Pos, Value: lam})
}

// parseCallArgs parses "(" [ arg { "," arg } [ "," ] ] ")". With cmdArg
// (the .feed argument) an argument may be a command.
func (p *parser) parseCallArgs(cmdArg bool) []*Arg {
	p.expect(tLParen, "`(`")
	saved := p.enter(true)
	defer p.leave(saved)
	args := []*Arg{}
	for {
		t := p.peek()
		if t.kind == tRParen {
			p.advance()
			return args
		}
		a := &Arg{}
		switch {
		case t.kind == tIdent && p.namedArgAt(t):
			p.advance()
			p.advance() // ':'
			a.Name = t.text
			a.Value = p.parseExpr()
		case t.kind == tDot:
			a.Value = p.parseDotLambda(t)
		case cmdArg && p.operandIsCommand(t.start):
			p.pos = t.start
			a.Value = p.parseExprFrom(p.parseCommand())
		default:
			a.Value = p.parseExpr()
		}
		a.S = diag.Span{Start: t.start, End: p.pos}
		args = append(args, a)
		n := p.peek()
		switch n.kind {
		case tComma:
			p.advance()
		case tRParen:
		default:
			p.failExpected("`,` or `)` in arguments", n)
		}
	}
}

// namedArgAt reports whether the identifier token t is followed by `:`.
func (p *parser) namedArgAt(t token) bool {
	i := p.skipSpace(t.end, true)
	return i < p.end && p.src[i] == ':' && (i+1 >= p.end || p.src[i+1] != ':')
}

// parseDotLambda parses an argument starting with "." as
// Lambda{Implicit, Params: ["."]} over the implicit item.
func (p *parser) parseDotLambda(t token) Expr {
	item := &Ident{Pos: span(t.start, t.start), Name: "."}
	p.pending = item
	body := p.parseExpr()
	return &Lambda{Pos: span(t.start, p.pos), Params: []*Param{{Pos: span(t.start, t.start), Name: "."}},
		Body: body, Implicit: true}
}
