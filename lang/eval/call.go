package eval

import (
	"context"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// closureImpl is the evaluator's side of a value.Closure.
type closureImpl struct {
	name   string
	params []*syntax.Param
	rest   *syntax.Param
	body   syntax.Expr
	sc     *scope
	isFn   bool // a named fn: strict arity; lambdas are lenient
	// fast, when set, evaluates an implicit dot-lambda over a record
	// without building a scope (.size > 500kb, .name).
	fast *fastLambda
}

// fastLambda is `.field` or `.field OP literal`.
type fastLambda struct {
	field string
	op    string // "" for a bare field read
	lit   value.Value
	// apply is the lambda's result from the field's value: nil for a bare
	// read, else binaryOp(op, v, lit) with the common cases inlined.
	apply func(value.Value) (value.Value, error)
}

// FieldFunc implements lib.FieldFunc, so collection methods read the
// field of each row themselves (.where(.size > 500kb), .sort_by(.name)).
func (c *closureImpl) FieldFunc() (string, func(value.Value) (value.Value, error)) {
	if c.fast == nil {
		return "", nil
	}
	return c.fast.field, c.fast.apply
}

var _ lib.FieldFunc = (*closureImpl)(nil)

// Comparison codes for the compiled fast lambdas.
const (
	opLT = iota
	opLE
	opGT
	opGE
	opEQ
	opNE
)

// compileCompare returns binaryOp(op, v, lit) as a function of v that
// answers the same-kind ordered comparisons without the general
// dispatch; for int literals == and != too (binaryOp's own int path).
func compileCompare(op string, lit value.Value) func(value.Value) (value.Value, error) {
	slow := func(v value.Value) (value.Value, error) { return binaryOp(op, v, lit) }
	var code int
	switch op {
	case "<":
		code = opLT
	case "<=":
		code = opLE
	case ">":
		code = opGT
	case ">=":
		code = opGE
	case "==":
		code = opEQ
	case "!=":
		code = opNE
	default:
		return slow
	}
	switch l := lit.(type) {
	case value.Int:
		return orderedCompare(code, l, slow)
	case value.Size:
		if code < opEQ {
			return orderedCompare(code, l, slow)
		}
	case value.Duration:
		if code < opEQ {
			return orderedCompare(code, l, slow)
		}
	}
	return slow
}

func orderedCompare[T value.Int | value.Size | value.Duration](code int, lit T, slow func(value.Value) (value.Value, error)) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		a, ok := v.(T)
		if !ok {
			return slow(v)
		}
		switch code {
		case opLT:
			return value.Bool(a < lit), nil
		case opLE:
			return value.Bool(a <= lit), nil
		case opGT:
			return value.Bool(a > lit), nil
		case opGE:
			return value.Bool(a >= lit), nil
		case opEQ:
			return value.Bool(a == lit), nil
		}
		return value.Bool(a != lit), nil
	}
}

func (t *thread) makeFn(sc *scope, n *syntax.FnDecl) *value.Closure {
	impl := &closureImpl{name: n.Name, params: n.Params, rest: n.Rest, body: n.Body, sc: sc, isFn: true}
	return &value.Closure{Name: n.Name, Params: paramNames(n.Params), Rest: restName(n.Rest), Impl: impl}
}

func (t *thread) makeLambda(sc *scope, n *syntax.Lambda) *value.Closure {
	impl := &closureImpl{params: n.Params, body: n.Body, sc: sc}
	if n.Implicit {
		impl.fast = analyseDotLambda(n.Body)
	}
	return &value.Closure{Params: paramNames(n.Params), Impl: impl}
}

func paramNames(ps []*syntax.Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func restName(p *syntax.Param) string {
	if p == nil {
		return ""
	}
	return p.Name
}

// analyseDotLambda recognises the dot-lambda shapes worth a fast path.
func analyseDotLambda(body syntax.Expr) *fastLambda {
	isItemField := func(x syntax.Expr) (string, bool) {
		f, ok := x.(*syntax.Field)
		if !ok || f.Safe {
			return "", false
		}
		id, ok := f.X.(*syntax.Ident)
		if !ok || id.Name != "." {
			return "", false
		}
		return f.Name, true
	}
	if name, ok := isItemField(body); ok {
		return &fastLambda{field: name}
	}
	b, ok := body.(*syntax.Binary)
	if !ok {
		return nil
	}
	switch b.Op {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return nil
	}
	name, ok := isItemField(b.L)
	if !ok {
		return nil
	}
	var lit value.Value
	switch l := b.R.(type) {
	case *syntax.IntLit:
		lit = value.Int(l.V)
	case *syntax.SizeLit:
		lit = value.Size(l.Bytes)
	case *syntax.DurationLit:
		lit = value.Duration(l.Ns)
	case *syntax.StrLit:
		lit = value.Str(l.V)
	case *syntax.FloatLit:
		lit = value.Float(l.V)
	case *syntax.BoolLit:
		lit = value.Bool(l.V)
	default:
		return nil
	}
	return &fastLambda{field: name, op: b.Op, lit: lit, apply: compileCompare(b.Op, lit)}
}

// Call implements value.Caller and lib.Env: library methods call back
// into closures with positional arguments.
func (t *thread) Call(ctx context.Context, fn value.Value, args ...value.Value) (value.Value, error) {
	if c, ok := fn.(*value.Closure); ok {
		if impl, ok := c.Impl.(*closureImpl); ok && impl.fast != nil && len(args) == 1 {
			if r, ok := args[0].(*value.Record); ok {
				if v, ok := r.Get(impl.fast.field); ok {
					if impl.fast.apply == nil {
						return v, nil
					}
					return impl.fast.apply(v)
				}
			}
		}
	}
	// Library combinators may call back from their own goroutines
	// (buffered and merged streams), so each callback runs on its own
	// thread rather than mutating this one's call depth.
	ct := &thread{e: t.e, ctx: ctx, depth: t.depth, inFn: t.inFn, task: t.task}
	return ct.callValue(fn, args, nil, false)
}

var _ lib.Env = (*thread)(nil)

// callValue calls a callable value with evaluated arguments.
func (t *thread) callValue(fn value.Value, pos []value.Value, named []lib.Named, words bool) (value.Value, error) {
	switch c := fn.(type) {
	case *value.Closure:
		impl, ok := c.Impl.(*closureImpl)
		if !ok {
			return nil, diag.New(diag.TypeError, "closure is not callable here")
		}
		return t.callClosure(impl, pos, named, nil)
	case *value.Command:
		a, ok := c.Impl.(*aliasImpl)
		if !ok {
			return nil, diag.New(diag.TypeError, "command is not callable here")
		}
		return t.callAlias(a, pos, named)
	}
	return nil, diag.New(diag.TypeError, "%s is not callable", value.TypeName(fn))
}

// callClosure binds arguments (LANGUAGE.md §7.2) and runs the body.
// rawWords, when non-nil, marks positional arguments that came from
// command words (they get word coercion to the parameter type).
func (t *thread) callClosure(c *closureImpl, pos []value.Value, named []lib.Named, rawWords []bool) (value.Value, error) {
	if t.depth >= maxDepth {
		return nil, diag.New(diag.RecursionLimit, "recursion limit exceeded (more than %d nested calls)", maxDepth)
	}
	if err := t.ctx.Err(); err != nil {
		return nil, diag.New(diag.Cancelled, "cancelled")
	}
	sc := &scope{parent: c.sc}
	if n := len(c.params); n > 1 || c.rest != nil {
		sc.vars = make([]binding, 0, n+1)
	} else {
		sc.vars = sc.inline[:0:1]
	}
	if c.isFn {
		if c.rest == nil && len(pos) > len(c.params) {
			return nil, diag.New(diag.ArgError, "expected %d argument%s, got %d", len(c.params), plural(len(c.params)), len(pos))
		}
		for _, na := range named {
			found := false
			for _, p := range c.params {
				if p.Name == na.Name {
					found = true
					break
				}
			}
			if !found {
				return nil, diag.New(diag.ArgError, "unknown argument `%s`", na.Name)
			}
		}
	}
	for i, p := range c.params {
		var v value.Value
		have := false
		for _, na := range named {
			if na.Name == p.Name {
				v, have = na.Value, true
			}
		}
		word := false
		if !have && i < len(pos) {
			v, have = pos[i], true
			word = rawWords != nil && rawWords[i]
		}
		if !have {
			if p.Default != nil {
				dv, err := t.withFrame(c, func() (value.Value, error) { return t.expr(sc, p.Default) })
				if err != nil {
					return nil, err
				}
				v = dv
			} else if c.isFn {
				return nil, diag.New(diag.ArgError, "missing argument `%s`", p.Name)
			} else {
				v = value.Null{}
			}
		}
		if p.Type != nil {
			cv, err := coerceParam(v, p.Type, word)
			if err != nil {
				return nil, err
			}
			v = cv
		}
		sc.vars = append(sc.vars, binding{name: p.Name, val: v, mutable: true})
	}
	if c.rest != nil {
		var extra []value.Value
		if len(pos) > len(c.params) {
			extra = append(extra, pos[len(c.params):]...)
		}
		if c.rest.Type != nil {
			elem := c.rest.Type
			if elem.Name == "list" && len(elem.Args) == 1 {
				elem = elem.Args[0]
			}
			for i, x := range extra {
				word := rawWords != nil && len(c.params)+i < len(rawWords) && rawWords[len(c.params)+i]
				cv, err := coerceParam(x, elem, word)
				if err != nil {
					return nil, err
				}
				extra[i] = cv
			}
		}
		if extra == nil {
			extra = []value.Value{}
		}
		sc.vars = append(sc.vars, binding{name: c.rest.Name, val: &value.List{Items: extra}, mutable: true})
	}
	return t.withFrame(c, func() (value.Value, error) {
		var v value.Value
		var err error
		if b, ok := c.body.(*syntax.Block); ok {
			v, err = t.stmts(sc, b.Stmts, true)
		} else {
			v, err = t.expr(sc, c.body)
		}
		if err != nil {
			if r, ok := err.(*ctrl); ok && r.kind == ctrlReturn {
				return r.val, nil
			}
			return nil, err
		}
		return v, nil
	})
}

// withFrame runs f as the body of c: one call deeper, outside any loop
// of the caller, inside a function when c is a named fn.
func (t *thread) withFrame(c *closureImpl, f func() (value.Value, error)) (value.Value, error) {
	t.depth++
	loops := t.loops
	t.loops = 0
	if c.isFn {
		t.inFn++
	}
	v, err := f()
	t.depth--
	t.loops = loops
	if c.isFn {
		t.inFn--
	}
	if err != nil {
		if r, ok := err.(*ctrl); ok && r.kind != ctrlReturn {
			return nil, diag.New(diag.Custom, "%s", r.Error())
		}
	}
	return v, err
}

// coerceParam applies the declared type to an argument: command words are
// coerced to any type (§7.3); other values only for list<T> elements.
func coerceParam(v value.Value, ty *syntax.TypeExpr, word bool) (value.Value, error) {
	if ty.Name == "list" && len(ty.Args) == 1 {
		l, ok := v.(*value.List)
		if !ok {
			if word {
				if s, ok := v.(value.Str); ok {
					x, err := coerceWord(string(s), ty.Args[0].Name)
					if err != nil {
						return nil, err
					}
					return &value.List{Items: []value.Value{x}}, nil
				}
			}
			return v, nil
		}
		var out []value.Value
		for i, it := range l.Items {
			if s, ok := it.(value.Str); ok {
				x, err := coerceWord(string(s), ty.Args[0].Name)
				if err != nil {
					return nil, err
				}
				if out == nil {
					out = append([]value.Value(nil), l.Items...)
				}
				out[i] = x
			}
		}
		if out == nil {
			return v, nil
		}
		return &value.List{Items: out}, nil
	}
	if !word {
		return v, nil
	}
	if s, ok := v.(value.Str); ok {
		return coerceWord(string(s), ty.Name)
	}
	return v, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// args evaluates call arguments into positional and named lists.
func (t *thread) args(sc *scope, list []*syntax.Arg) ([]value.Value, []lib.Named, error) {
	var pos []value.Value
	var named []lib.Named
	for _, a := range list {
		v, err := t.expr(sc, a.Value)
		if err != nil {
			return nil, nil, err
		}
		if a.Name != "" {
			named = append(named, lib.Named{Name: a.Name, Value: v})
		} else {
			pos = append(pos, v)
		}
	}
	return pos, named, nil
}

// callFirstNames are call forms resolved before user bindings (§7.6).
func callFirst(name string) bool {
	switch name {
	case "parallel", "retry", "on", "now", "today", "assert", "run", "save", "open",
		"path", "glob", "regex", "channel", "every", "watch", "tail":
		return true
	}
	return false
}

func (t *thread) call(sc *scope, n *syntax.Call) (value.Value, error) {
	id, ok := n.Fn.(*syntax.Ident)
	if !ok || id.Name == "." {
		fn, err := t.expr(sc, n.Fn)
		if err != nil {
			return nil, err
		}
		pos, named, err := t.args(sc, n.Args)
		if err != nil {
			return nil, err
		}
		return t.callValue(fn, pos, named, false)
	}
	name := id.Name
	if callFirst(name) {
		pos, named, err := t.args(sc, n.Args)
		if err != nil {
			return nil, err
		}
		return t.callBuiltin(sc, name, pos, named)
	}
	if b := sc.lookup(name); b != nil {
		pos, named, err := t.args(sc, n.Args)
		if err != nil {
			return nil, err
		}
		return t.callValue(b.val, pos, named, false)
	}
	if t.e.isCommandName(name) {
		pos, named, err := t.args(sc, n.Args)
		if err != nil {
			return nil, err
		}
		argv := []cmdArg{}
		for _, v := range pos {
			switch v.(type) {
			case value.Str, value.Path:
			default:
				return nil, diag.New(diag.TypeError, "%s cannot be passed as a command argument to `%s`", value.TypeName(v), name)
			}
			argv = append(argv, cmdArg{val: v})
		}
		for _, na := range named {
			s, err := argvString(na.Value)
			if err != nil {
				return nil, err
			}
			argv = append(argv, cmdArg{flag: true, raw: "--" + strings.ReplaceAll(na.Name, "_", "-") + "=" + s, name: na.Name, val: na.Value})
		}
		return t.runHead(sc, name, argv, &cmdOpts{span: n.Span()})
	}
	d := diag.New(diag.UndefinedVar, "undefined function `%s`", name)
	if h := didYouMean(sc, name); h != "" {
		d.Hint = h
	}
	return nil, d
}
