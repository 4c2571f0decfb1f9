package eval

import (
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

func (t *thread) forStmt(sc *scope, n *syntax.ForStmt) (value.Value, error) {
	it, err := t.expr(sc, n.Iter)
	if err != nil {
		return nil, err
	}
	t.loops++
	defer func() { t.loops-- }()
	// A body that creates no closures cannot observe its iteration scope
	// after the iteration ends, so one scope is reset and reused.
	reuse := !capturesScope(n.Body)
	var shared *scope
	if reuse {
		shared = newScope1(sc, n.Var, value.Null{}, false)
	}
	body := func(x value.Value) (bool, error) {
		var inner *scope
		switch {
		case reuse:
			inner = shared
			inner.inline[0] = binding{name: n.Var, val: x}
			inner.vars = inner.inline[:1:1]
		case n.Var != "_":
			inner = newScope1(sc, n.Var, x, false)
		default:
			inner = newScope(sc)
		}
		_, err := t.stmts(inner, n.Body.Stmts, false)
		if err != nil {
			if err == breakSignal {
				return false, nil
			}
			if err == continueSignal {
				return true, nil
			}
			return false, err
		}
		return true, nil
	}
	if r, ok := it.(value.Range); ok {
		end := r.End
		if r.Inclusive {
			end++
		}
		for i := r.Start; i < end; i++ {
			if i&1023 == 0 {
				if err := t.ctx.Err(); err != nil {
					return nil, diag.New(diag.Cancelled, "cancelled")
				}
			}
			more, err := body(value.Int(i))
			if err != nil || !more {
				return value.Null{}, err
			}
		}
		return value.Null{}, nil
	}
	items, err := t.iterItems(it)
	if err != nil {
		return nil, err
	}
	for i, x := range items {
		if i&1023 == 0 {
			if err := t.ctx.Err(); err != nil {
				return nil, diag.New(diag.Cancelled, "cancelled")
			}
		}
		more, err := body(x)
		if err != nil || !more {
			return value.Null{}, err
		}
	}
	return value.Null{}, nil
}

// iterItems materialises an iterable for `for` (LANGUAGE.md §7.5).
func (t *thread) iterItems(v value.Value) ([]value.Value, error) {
	switch x := v.(type) {
	case *value.List:
		return x.Items, nil
	case *value.Table:
		out := make([]value.Value, len(x.Rows))
		for i, r := range x.Rows {
			out[i] = r
		}
		return out, nil
	case value.Glob:
		paths, err := t.e.expandGlob(x)
		if err != nil {
			return nil, err
		}
		out := make([]value.Value, len(paths))
		for i, p := range paths {
			out[i] = value.Path{P: p}
		}
		return out, nil
	case *value.Stream:
		return t.collectStream(x)
	case *value.Outcome:
		if x.OK {
			out, err := outcomeOut(x)
			if err != nil {
				return nil, err
			}
			return t.iterItems(out)
		}
	}
	return nil, diag.New(diag.TypeError, "%s value is not iterable", value.TypeName(v))
}

func (t *thread) whileStmt(sc *scope, n *syntax.WhileStmt) (value.Value, error) {
	t.loops++
	defer func() { t.loops-- }()
	reuse := !capturesScope(n.Body)
	shared := newScope(sc)
	for i := 0; ; i++ {
		if i&1023 == 0 {
			if err := t.ctx.Err(); err != nil {
				return nil, diag.New(diag.Cancelled, "cancelled")
			}
		}
		c, err := t.expr(sc, n.Cond)
		if err != nil {
			return nil, err
		}
		ok, err := cond(c)
		if err != nil {
			return nil, err
		}
		if !ok {
			return value.Null{}, nil
		}
		body := shared
		if reuse {
			shared.vars = shared.vars[:0]
		} else {
			body = newScope(sc)
		}
		if _, err := t.stmts(body, n.Body.Stmts, false); err != nil {
			if err == breakSignal {
				return value.Null{}, nil
			}
			if err == continueSignal {
				continue
			}
			return nil, err
		}
	}
}

func (t *thread) ifExpr(sc *scope, n *syntax.If, used bool) (value.Value, error) {
	for {
		c, err := t.expr(sc, n.Cond)
		if err != nil {
			return nil, err
		}
		b, err := cond(c)
		if err != nil {
			return nil, err
		}
		if b {
			return t.stmts(newScope(sc), n.Then.Stmts, used)
		}
		switch e := n.Else.(type) {
		case nil:
			return value.Null{}, nil
		case *syntax.Block:
			return t.stmts(newScope(sc), e.Stmts, used)
		case *syntax.If:
			n = e
		default:
			return t.expr(sc, e)
		}
	}
}

// body evaluates an arm/handler body that is a block or an expression.
func (t *thread) body(sc *scope, x syntax.Expr, used bool) (value.Value, error) {
	if b, ok := x.(*syntax.Block); ok {
		return t.stmts(newScope(sc), b.Stmts, used)
	}
	if !used {
		return t.exprStmt(sc, x, true)
	}
	return t.expr(sc, x)
}

// catchable reports whether err is a language error that try/catch may
// handle (unwinding signals and cancellation pass through).
func (t *thread) catchable(err error) (*diag.Error, bool) {
	switch err.(type) {
	case *ctrl, *exitSignal:
		return nil, false
	}
	d := diag.As(err)
	if d == nil {
		return nil, false
	}
	// Cancellation of this thread must unwind; a cancelled error from
	// elsewhere (an awaited task) is an ordinary error.
	if d.Code == diag.Cancelled && t.ctx.Err() != nil {
		return nil, false
	}
	return d, true
}

func (t *thread) tryExpr(sc *scope, n *syntax.Try, used bool) (value.Value, error) {
	v, err := t.stmts(newScope(sc), n.Body.Stmts, used)
	if err == nil {
		return v, nil
	}
	d, ok := t.catchable(err)
	if !ok {
		return nil, err
	}
	hs := newScope(sc)
	if n.Binder != "" && n.Binder != "_" {
		hs.declare(n.Binder, &value.ErrorVal{Err: d}, false)
	}
	return t.stmts(hs, n.Handler.Stmts, used)
}

func (t *thread) catchExpr(sc *scope, n *syntax.Catch) (value.Value, error) {
	v, err := t.expr(sc, n.X)
	if err == nil {
		return v, nil
	}
	d, ok := t.catchable(err)
	if !ok {
		return nil, err
	}
	hs := newScope(sc)
	if n.Binder != "" && n.Binder != "_" {
		hs.declare(n.Binder, &value.ErrorVal{Err: d}, false)
	}
	return t.body(hs, n.Handler, true)
}

// capturesScope reports whether evaluating n may create something that
// keeps a reference to the enclosing scope (a closure, fn, alias, task).
func capturesScope(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(x syntax.Node) bool {
		switch c := x.(type) {
		case *syntax.Lambda, *syntax.FnDecl, *syntax.Spawn, *syntax.AliasStmt:
			found = true
		case *syntax.Command:
			if c.Background || c.Block != nil {
				found = true
			}
		}
		return !found
	})
	return found
}
