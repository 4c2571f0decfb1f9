package syntax

import (
	"github.com/shoal-sh/shoal/lang/diag"
)

// parseMatch parses "match" expr "{" { TERM } { arm [ "," ] { TERM } } "}".
func (p *parser) parseMatch() Expr {
	t := p.advance()
	subject := p.parseCond()
	open := p.peek()
	if open.kind != tLBrace {
		p.failExpected("`{` to open the match arms", open)
	}
	p.advance()
	saved := p.enter(false)
	m := &Match{Subject: subject}
	for {
		p.skipArmSeps()
		n := p.peek()
		if n.kind == tRBrace {
			p.advance()
			break
		}
		if n.kind == tEOF {
			p.failPartial(diag.Span{Start: n.start, End: n.end}, "expected `}` to close the match, found EOF", "")
		}
		m.Arms = append(m.Arms, p.parseArm())
		a := p.peek()
		switch a.kind {
		case tNewline, tSemi, tComma, tRBrace:
		default:
			p.failExpected("newline, `;` or `,` between match arms", a)
		}
	}
	p.leave(saved)
	m.S = diag.Span{Start: t.start, End: p.pos}
	return m
}

func (p *parser) skipArmSeps() {
	for {
		p.skipTerms()
		i := p.skipSpace(p.pos, true)
		if i < p.end && p.src[i] == ',' {
			p.pos = i + 1
			continue
		}
		return
	}
}

// parseArm parses pattern { "|" pattern } [ "if" expr ] "=>" ( block | expr ).
func (p *parser) parseArm() *MatchArm {
	first := p.peek()
	if first.kind == tPipe {
		p.fail(diag.Span{Start: first.start, End: first.end}, "unexpected `|` at the start of a match arm",
			"alternation is `a | b => …`; drop the leading `|`")
	}
	arm := &MatchArm{}
	p.push()
	defer p.pop()
	for {
		arm.Patterns = append(arm.Patterns, p.parsePattern())
		if p.peek().kind != tPipe {
			break
		}
		p.advance()
		p.skipNewlines()
	}
	if g := p.peek(); g.kind == tIdent && g.text == "if" {
		p.advance()
		saved := p.noIdentLambda
		p.noIdentLambda = true
		arm.Guard = p.parseExpr()
		p.noIdentLambda = saved
	}
	p.expect(tFatArrow, "`=>` after a match pattern")
	p.skipNewlines()
	if p.peek().kind == tLBrace {
		arm.Body = p.parseBlock()
	} else {
		arm.Body = p.parseExpr()
	}
	arm.S = diag.Span{Start: first.start, End: p.pos}
	return arm
}

// parsePattern parses one pattern (§4 `pattern`), binding its names in
// the arm scope.
func (p *parser) parsePattern() Pattern {
	p.depth++
	defer func() { p.depth-- }()
	t := p.peek()
	sp := diag.Span{Start: t.start, End: t.end}
	if p.depth > maxDepth {
		p.fail(sp, "nesting too deep", "")
	}
	switch t.kind {
	case tIdent:
		p.advance()
		switch t.text {
		case "_":
			return &WildcardPat{Pos{sp}}
		case "true", "false":
			return &LitPat{Pos{sp}, &BoolLit{Pos{sp}, t.text == "true"}}
		case "null":
			// Treating null as a literal is corpus-neutral and avoids the
			// original's surprise of a catch-all binder named null.
			return &LitPat{Pos{sp}, &NullLit{Pos{sp}}}
		}
		if isReserved(t.text) {
			p.failExpected("a pattern", t)
		}
		if isTypeName(t.text) {
			if n := p.peek(); n.kind == tIdent && !isReserved(n.text) {
				p.advance()
				p.bind(n.text, boundValue)
				return &TypePat{Pos: span(t.start, p.pos), Type: t.text, Name: n.text}
			}
		}
		p.bind(t.text, boundValue)
		return &BindPat{Pos{sp}, t.text}
	case tInt:
		p.advance()
		lo := t.lit.(*IntLit).V
		if r := p.peek(); r.kind == tDotDot || r.kind == tDotDotEq {
			p.advance()
			h := p.peek()
			if h.kind != tInt {
				p.failExpected("an integer range end", h)
			}
			p.advance()
			return &RangePat{Pos: span(t.start, p.pos), Lo: lo, Hi: h.lit.(*IntLit).V, Inclusive: r.kind == tDotDotEq}
		}
		return &LitPat{Pos{sp}, t.lit}
	case tMinus:
		p.advance()
		n := p.peek()
		if n.kind != tInt && n.kind != tFloat {
			p.failExpected("a number after `-` in a pattern", n)
		}
		p.advance()
		var lit Expr
		if n.kind == tInt {
			lit = &IntLit{Pos: span(t.start, n.end), V: -n.lit.(*IntLit).V}
		} else {
			lit = &FloatLit{Pos: span(t.start, n.end), V: -n.lit.(*FloatLit).V}
		}
		return &LitPat{Pos: span(t.start, n.end), Lit: lit}
	case tFloat, tSize, tDuration, tTime:
		p.advance()
		return &LitPat{Pos{sp}, t.lit}
	case tStr:
		p.advance()
		s, ok := p.stringExpr(t).(*StrLit)
		if !ok {
			p.fail(sp, "a string pattern cannot be interpolated", "")
		}
		return &LitPat{Pos{sp}, s}
	case tLBrace:
		return p.parseRecordPat()
	case tLBracket:
		return p.parseListPat()
	case tPipe:
		p.fail(sp, "unexpected `|` at the start of a match arm", "alternation is `a | b => …`; drop the leading `|`")
	}
	p.failExpected("a pattern", t)
	return nil
}

// parseRecordPat parses "{" [ fpat { "," fpat } [ "," ] ] "}".
func (p *parser) parseRecordPat() Pattern {
	t := p.advance()
	saved := p.enter(true)
	rp := &RecordPat{Fields: []*FieldPat{}}
	for p.peek().kind != tRBrace {
		k := p.peek()
		if k.kind != tIdent || isReserved(k.text) {
			p.failExpected("a field name in a record pattern", k)
		}
		p.advance()
		fp := &FieldPat{Name: k.text}
		if p.peek().kind == tColon {
			p.advance()
			fp.Pat = p.parsePattern()
		} else {
			p.bind(k.text, boundValue)
		}
		fp.S = diag.Span{Start: k.start, End: p.pos}
		rp.Fields = append(rp.Fields, fp)
		n := p.peek()
		if n.kind == tComma {
			p.advance()
			continue
		}
		if n.kind != tRBrace {
			p.failExpected("`,` or `}` in record pattern", n)
		}
	}
	p.advance()
	p.leave(saved)
	rp.S = diag.Span{Start: t.start, End: p.pos}
	return rp
}

// parseListPat parses "[" [ pattern { "," pattern } ] [ "," "..." IDENT ] "]".
func (p *parser) parseListPat() Pattern {
	t := p.advance()
	saved := p.enter(true)
	lp := &ListPat{Elems: []Pattern{}}
	for p.peek().kind != tRBracket {
		e := p.peek()
		if lp.HasRest {
			p.fail(diag.Span{Start: e.start, End: e.end}, "`...rest` must be the last element of a list pattern", "")
		}
		if e.kind == tEllipsis {
			p.advance()
			lp.HasRest = true
			lp.Rest = p.expectBinder()
			p.bind(lp.Rest, boundValue)
		} else {
			lp.Elems = append(lp.Elems, p.parsePattern())
		}
		n := p.peek()
		if n.kind == tComma {
			p.advance()
			continue
		}
		if n.kind != tRBracket {
			p.failExpected("`,` or `]` in list pattern", n)
		}
	}
	p.advance()
	p.leave(saved)
	lp.S = diag.Span{Start: t.start, End: p.pos}
	return lp
}
