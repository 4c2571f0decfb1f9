package syntax

import (
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// parsePrimary parses one primary expression (§4 `primary`).
func (p *parser) parsePrimary() Expr {
	if x := p.pending; x != nil {
		p.pending = nil
		return x
	}
	t := p.peek()
	sp := diag.Span{Start: t.start, End: t.end}
	switch t.kind {
	case tInt, tFloat, tSize, tDuration, tTime:
		p.advance()
		return t.lit
	case tStr:
		p.advance()
		return p.stringExpr(t)
	case tRegex:
		p.advance()
		return &RegexLit{Pos{sp}, t.text}
	case tDatetime:
		p.advance()
		return &DatetimeLit{Pos{sp}, t.text}
	case tIdent:
		return p.parseIdentPrimary(t)
	case tLParen:
		return p.parseParen()
	case tLBracket:
		return p.parseList()
	case tLBrace:
		return p.parseBraceExpr()
	case tDot:
		p.fail(sp, "a leading `.` has no receiver here",
			"a `.name` shorthand works only as a whole call argument, e.g. `.map(.name)`; write `x => x.name`")
	case tPipe:
		if p.nl {
			p.failPipe(t)
		}
	case tRBracket:
		p.fail(sp, "unexpected `]`", "")
	}
	p.failExpected("expression", t)
	return nil
}

func (p *parser) parseIdentPrimary(t token) Expr {
	sp := diag.Span{Start: t.start, End: t.end}
	switch t.text {
	case "true", "false":
		p.advance()
		return &BoolLit{Pos{sp}, t.text == "true"}
	case "null":
		p.advance()
		return &NullLit{Pos{sp}}
	case "if":
		return p.parseIf()
	case "match":
		return p.parseMatch()
	case "try":
		return p.parseTry()
	case "with":
		return p.parseWith()
	case "spawn":
		p.advance()
		b := p.parseBlock()
		return &Spawn{Pos: span(t.start, p.pos), Body: b}
	case "it", "out":
		if !p.opts.REPL && p.lookup(t.text) != boundValue {
			p.failReplOnly(sp, t.text)
		}
	}
	if isReserved(t.text) {
		p.failExpected("expression", t)
	}
	if isInterpTool(t.text) && p.interpFollows(t.end) {
		return p.parseLangBlock(t)
	}
	p.advance()
	if !p.noIdentLambda {
		if n := p.peekLine(); n.kind == tFatArrow {
			p.advance()
			return p.lambdaBody(t.start, []*Param{{Pos: Pos{sp}, Name: t.text}})
		}
	}
	return &Ident{Pos{sp}, t.text}
}

// lambdaBody parses a lambda body after `=>` with params bound.
func (p *parser) lambdaBody(start int, params []*Param) Expr {
	p.skipNewlines()
	p.push()
	for _, prm := range params {
		p.bind(prm.Name, boundValue)
	}
	var body Expr
	if p.peek().kind == tLBrace {
		body = p.parseBraceExpr()
	} else {
		body = p.parseExpr()
	}
	p.pop()
	return &Lambda{Pos: span(start, p.pos), Params: params, Body: body}
}

// parseParen parses "(" lparams ")" "=>" body, trying the parameter list
// first, else "(" expr_or_command ")". Grouping adds no node.
func (p *parser) parseParen() Expr {
	t := p.peek()
	if params, ok := p.tryLambdaParams(); ok {
		return p.lambdaBody(t.start, params)
	}
	p.advance()
	saved := p.enter(true)
	x := p.exprOrCommand()
	n := p.peek()
	if n.kind != tRParen {
		p.failExpected("`)`", n)
	}
	p.advance()
	p.leave(saved)
	return x
}

// exprOrCommand parses the inside of ( … ) with the shorter test of §3.
func (p *parser) exprOrCommand() Expr {
	if p.operandIsCommand(p.skipSpace(p.pos, true)) {
		return p.parseExprFrom(p.parseCommand())
	}
	return p.parseExpr()
}

// tryLambdaParams reads "(" [ IDENT [ ":" type ] { "," … } ] ")" "=>"
// speculatively, restoring the position when it is not a lambda.
func (p *parser) tryLambdaParams() (params []*Param, ok bool) {
	snapshot := *p
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			*p = snapshot
			params, ok = nil, false
		}
	}()
	p.advance()
	flags := p.enter(true)
	params = []*Param{}
	for p.peek().kind != tRParen {
		t := p.peek()
		if t.kind != tIdent || isReserved(t.text) {
			*p = snapshot
			return nil, false
		}
		p.advance()
		prm := &Param{Name: t.text}
		if p.peek().kind == tColon {
			p.advance()
			prm.Type = p.parseType()
		}
		prm.S = diag.Span{Start: t.start, End: p.pos}
		params = append(params, prm)
		if p.peek().kind == tComma {
			p.advance()
			continue
		}
		if p.peek().kind != tRParen {
			*p = snapshot
			return nil, false
		}
	}
	p.advance()
	p.leave(flags)
	if p.peekLine().kind != tFatArrow {
		*p = snapshot
		return nil, false
	}
	p.advance()
	return params, true
}

// parseList parses "[" [ expr { "," expr } [ "," ] ] "]".
func (p *parser) parseList() Expr {
	t := p.advance()
	saved := p.enter(true)
	l := &ListLit{Items: []Expr{}}
	for p.peek().kind != tRBracket {
		l.Items = append(l.Items, p.parseExpr())
		n := p.peek()
		if n.kind == tComma {
			p.advance()
			continue
		}
		if n.kind != tRBracket {
			p.failExpected("`,` or `]` in list", n)
		}
	}
	p.advance()
	p.leave(saved)
	l.S = diag.Span{Start: t.start, End: p.pos}
	return l
}

// parseBraceExpr parses "{" "}" | record | block: `{` followed by an
// identifier or string and `:` is a record, otherwise a block.
func (p *parser) parseBraceExpr() Expr {
	t := p.peek()
	if t.kind != tLBrace {
		p.failExpected("`{`", t)
	}
	i := t.end
	for {
		i = p.skipSpace(i, true)
		if i < p.end && p.src[i] == '\n' {
			i++
			continue
		}
		break
	}
	if i < p.end && p.src[i] == '}' {
		p.pos = i + 1
		return &RecordLit{Pos: span(t.start, p.pos), Fields: []*RecordField{}}
	}
	if p.recordKeyAt(i) {
		return p.parseRecord()
	}
	return p.parseBlock()
}

// recordKeyAt reports whether ( IDENT | STRING ) ":" starts at i.
func (p *parser) recordKeyAt(i int) bool {
	j := i
	if name := p.identAt(i); name != "" {
		j = i + len(name)
	} else if i < p.end && (p.src[i] == '"' || p.src[i] == '\'') {
		end, ok := p.skipNestedString(i, 0)
		if !ok {
			return false
		}
		j = end
	} else {
		return false
	}
	j = p.skipSpace(j, false)
	return j < p.end && p.src[j] == ':' && (j+1 >= p.end || p.src[j+1] != ':')
}

// parseRecord parses "{" field { "," field } [ "," ] "}".
func (p *parser) parseRecord() Expr {
	t := p.advance()
	saved := p.enter(true)
	r := &RecordLit{Fields: []*RecordField{}}
	for p.peek().kind != tRBrace {
		k := p.peek()
		f := &RecordField{}
		switch k.kind {
		case tIdent:
			f.Key = k.text
			p.advance()
		case tStr:
			p.advance()
			s, ok := p.stringExpr(k).(*StrLit)
			if !ok {
				p.fail(diag.Span{Start: k.start, End: k.end}, "a record key cannot be interpolated", "")
			}
			f.Key = s.V
		default:
			p.failExpected("a field name", k)
		}
		p.expect(tColon, "`:` after a record key")
		f.Value = p.parseExpr()
		f.S = diag.Span{Start: k.start, End: p.pos}
		r.Fields = append(r.Fields, f)
		n := p.peek()
		if n.kind == tComma {
			p.advance()
			continue
		}
		if n.kind != tRBrace {
			p.failExpected("`,` or `}` in record", n)
		}
	}
	p.advance()
	p.leave(saved)
	r.S = diag.Span{Start: t.start, End: p.pos}
	return r
}

// parseIf parses "if" expr block [ "else" ( ifexpr | block ) ].
func (p *parser) parseIf() Expr {
	t := p.advance()
	cond := p.parseCond()
	then := p.parseBlock()
	x := &If{Cond: cond, Then: then}
	if i, ok := p.nextLineStarts("else"); ok {
		p.pos = i + len("else")
		n := p.peek()
		if n.kind == tIdent && n.text == "if" {
			flags := p.enter(p.nl)
			x.Else = p.parseIf()
			p.leave(flags)
		} else {
			x.Else = p.parseBlock()
		}
	}
	x.S = diag.Span{Start: t.start, End: p.pos}
	return x
}

// parseTry parses "try" block "catch" [ binder ] block.
func (p *parser) parseTry() Expr {
	t := p.advance()
	body := p.parseBlock()
	x := &Try{Body: body}
	i, ok := p.nextLineStarts("catch")
	if !ok {
		p.failExpected("`catch` after a `try` block", p.peek())
	}
	p.pos = i + len("catch")
	if b := p.peek(); b.kind == tIdent && !isReserved(b.text) {
		p.advance()
		x.Binder = b.text
	}
	p.push()
	p.bind(x.Binder, boundValue)
	x.Handler = p.parseBlock()
	p.pop()
	x.S = diag.Span{Start: t.start, End: p.pos}
	return x
}

// parseWith parses "with" wentry { "," wentry } block.
func (p *parser) parseWith() Expr {
	t := p.advance()
	x := &With{}
	for {
		k := p.peek()
		if k.kind != tIdent {
			p.failExpected("`cwd:`, `env:` or `reef:`", k)
		}
		switch k.text {
		case "cwd", "env", "reef":
		default:
			p.fail(diag.Span{Start: k.start, End: k.end}, "`with` accepts only cwd, env and reef, found `"+k.text+"`", "")
		}
		p.advance()
		p.expect(tColon, "`:`")
		v := p.parseCond()
		x.Entries = append(x.Entries, &WithEntry{Pos: span(k.start, p.pos), Key: k.text, Value: v})
		if p.peek().kind == tComma {
			p.advance()
			p.skipNewlines()
			continue
		}
		break
	}
	x.Body = p.parseBlock()
	x.S = diag.Span{Start: t.start, End: p.pos}
	return x
}

// parseLangBlock parses INTERP_TOOL ( RAWBRACE | "”'…”'" | "'…'" ).
func (p *parser) parseLangBlock(t token) Expr {
	p.advance()
	j := p.pos
	if j < p.end && p.src[j] == '\'' {
		st := p.lexString(j)
		p.pos = st.end
		text := p.src[st.str.bodyStart:st.str.bodyEnd]
		return &LangBlock{Pos: span(t.start, p.pos), Tool: t.text, Text: strings.TrimSpace(text)}
	}
	for p.src[j] != '{' {
		j++
	}
	end := p.scanRawBrace(j)
	p.pos = end
	return &LangBlock{Pos: span(t.start, end), Tool: t.text, Text: strings.TrimSpace(p.src[j+1 : end-1])}
}

// scanRawBrace finds the `}` balancing the `{` at i, skipping quoted
// regions; it returns the offset after it.
func (p *parser) scanRawBrace(i int) int {
	depth := 0
	for j := i; j < p.end; j++ {
		switch c := p.src[j]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"', '\'':
			k := j + 1
			for k < p.end && p.src[k] != c {
				if c == '"' && p.src[k] == '\\' {
					k++
				}
				k++
			}
			if k >= p.end {
				j = p.end
				continue
			}
			j = k
		case '\\':
			j++
		}
	}
	p.failPartial(diag.Span{Start: i, End: i + 1}, "unbalanced braces in interpreter block `{ … }`",
		"for text with unbalanced braces use the raw form tool'''…'''")
	return 0
}
