package eval

import (
	"context"
	"io"
	"regexp"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// maxDepth is the nested-call limit of LANGUAGE.md §7.2.
const maxDepth = 10000

// thread is one line of evaluation: the session it belongs to, its
// context and call depth. spawn and parallel get their own thread, so call
// depth never races.
type thread struct {
	e     *Evaluator
	ctx   context.Context
	depth int
	// inFn counts enclosing function bodies: cwd and env mutation is
	// rejected inside functions.
	inFn int
	// loops counts enclosing loops in the current function body, so a
	// stray break/continue is reported rather than leaking.
	loops int
	// task is the background task this thread runs for, if any: its
	// processes are tracked so the task can be suspended.
	task *taskImpl
}

// ctrl is a non-error unwinding signal: return, break, continue. It
// travels as an error so every evaluation step passes it through, and
// try/catch lets it go by.
type ctrl struct {
	kind int
	val  value.Value
}

const (
	ctrlBreak = iota + 1
	ctrlContinue
	ctrlReturn
)

func (c *ctrl) Error() string {
	switch c.kind {
	case ctrlBreak:
		return "break outside a loop"
	case ctrlContinue:
		return "continue outside a loop"
	}
	return "return outside a function"
}

// exitSignal unwinds the whole program for `exit N`.
type exitSignal struct{ code int }

func (x *exitSignal) Error() string { return "exit" }

func parseSource(src string, o *syntax.Options) (*syntax.Program, error) {
	return syntax.Parse(src, o)
}

func (e *Evaluator) newThread(ctx context.Context) *thread {
	return &thread{e: e, ctx: ctx}
}

func (e *Evaluator) runProgram(ctx context.Context, prog *syntax.Program, pos Position) (value.Value, error) {
	t := e.newThread(ctx)
	var last value.Value = value.Null{}
	n := len(prog.Stmts)
	for i, s := range prog.Stmts {
		if err := ctx.Err(); err != nil {
			return nil, diag.New(diag.Cancelled, "cancelled")
		}
		stmtPos := !(pos == Value && i == n-1)
		v, err := t.stmt(e.root, s, stmtPos)
		if err != nil {
			return nil, e.topError(err)
		}
		last = v
	}
	return last, nil
}

// show writes the output of a statement-position command (a builtin's
// stdout, or a captured chain result) to Stdout once, and remembers it so
// Streamed tells hosts not to print it again.
func (e *Evaluator) show(v value.Value) {
	o, ok := v.(*value.Outcome)
	if !ok || e.Streamed(o) {
		return
	}
	switch o.Out.(type) {
	case *value.Table, *value.List, *value.Record:
		// A structured builtin result (ls, stat, rm…) is shown the way a
		// person reads it: aligned columns / key-value lines.
		if text := value.RenderBlock(o.Out, 0); text != "" {
			io.WriteString(e.opts.Stdout, text+"\n")
		}
	default:
		if len(o.Stdout) > 0 {
			e.opts.Stdout.Write(o.Stdout)
		}
	}
	e.markStreamed(o)
}

// topError converts unwinding signals that escaped to the top level.
func (e *Evaluator) topError(err error) error {
	switch x := err.(type) {
	case *exitSignal:
		return &ExitError{Code: x.code}
	case *ctrl:
		return diag.New(diag.Custom, "%s", x.Error())
	}
	return err
}

// isCommandish reports whether x is a command-like expression whose failed
// outcome raises cmd_failed in statement position (LANGUAGE.md §9.4).
func isCommandish(x syntax.Expr) bool {
	switch n := x.(type) {
	case *syntax.Command, *syntax.LangBlock:
		return true
	case *syntax.MethodCall:
		return n.Name == "feed"
	}
	return false
}

// stmts runs a statement list. used says whether the list's value is
// needed: then the last statement is in value position; otherwise every
// statement is in statement position.
func (t *thread) stmts(sc *scope, list []syntax.Stmt, used bool) (value.Value, error) {
	var last value.Value = value.Null{}
	n := len(list)
	for i, s := range list {
		v, err := t.stmt(sc, s, !(used && i == n-1))
		if err != nil {
			return nil, err
		}
		last = v
	}
	return last, nil
}

func (t *thread) stmt(sc *scope, s syntax.Stmt, stmtPos bool) (value.Value, error) {
	v, err := t.stmt1(sc, s, stmtPos)
	if err != nil {
		return nil, spanned(err, s.Span())
	}
	return v, nil
}

// spanned gives a language error the span of the node it escaped from
// when it has none yet (the innermost span wins). It copies the error:
// libraries may return shared error values, which must never be mutated.
func spanned(err error, sp diag.Span) error {
	d, ok := err.(*diag.Error)
	if !ok || !d.Span.IsZero() {
		return err
	}
	c := *d
	c.Span = sp
	return &c
}

func (t *thread) stmt1(sc *scope, s syntax.Stmt, stmtPos bool) (value.Value, error) {
	switch n := s.(type) {
	case *syntax.ExprStmt:
		return t.exprStmt(sc, n.X, stmtPos)
	case *syntax.LetStmt:
		v, err := t.expr(sc, n.Value)
		if err != nil {
			return nil, err
		}
		if n.Name != "_" {
			t.bind(sc, n.Name, v, n.Mutable)
		}
		return value.Null{}, nil
	case *syntax.AssignStmt:
		return t.assign(sc, n)
	case *syntax.FnDecl:
		c := t.makeFn(sc, n)
		t.bind(sc, n.Name, c, false)
		return value.Null{}, nil
	case *syntax.ExportStmt:
		v, err := t.stmt(sc, n.Decl, true)
		if err != nil {
			return nil, err
		}
		switch d := n.Decl.(type) {
		case *syntax.LetStmt:
			sc.export(d.Name)
		case *syntax.FnDecl:
			sc.export(d.Name)
		}
		return v, nil
	case *syntax.AliasStmt:
		t.bind(sc, n.Name, &value.Command{Head: n.Cmd.HeadName(), Impl: &aliasImpl{cmd: n.Cmd, sc: sc}}, false)
		return value.Null{}, nil
	case *syntax.UseStmt:
		return t.use(sc, n)
	case *syntax.ReturnStmt:
		var v value.Value = value.Null{}
		if n.Value != nil {
			var err error
			if v, err = t.expr(sc, n.Value); err != nil {
				return nil, err
			}
		}
		if t.inFn == 0 {
			return nil, diag.New(diag.Custom, "`return` outside a function")
		}
		return nil, &ctrl{kind: ctrlReturn, val: v}
	case *syntax.BreakStmt:
		if t.loops == 0 {
			return nil, diag.New(diag.Custom, "`break` outside a loop")
		}
		return nil, breakSignal
	case *syntax.ContinueStmt:
		if t.loops == 0 {
			return nil, diag.New(diag.Custom, "`continue` outside a loop")
		}
		return nil, continueSignal
	case *syntax.ForStmt:
		return t.forStmt(sc, n)
	case *syntax.WhileStmt:
		return t.whileStmt(sc, n)
	}
	return nil, diag.New(diag.Custom, "unsupported statement %T", s)
}

// bind declares a statement-level name. Root-scope declarations take the
// evaluator lock so Bound and Parse may run from other goroutines.
func (t *thread) bind(sc *scope, name string, v value.Value, mutable bool) {
	if sc == t.e.root {
		t.e.mu.Lock()
		defer t.e.mu.Unlock()
	}
	sc.declare(name, v, mutable)
}

// The loop signals carry no data, so one value of each serves every loop.
var (
	breakSignal    error = &ctrl{kind: ctrlBreak}
	continueSignal error = &ctrl{kind: ctrlContinue}
)

// exprStmt evaluates an expression statement. In statement position a
// failed command outcome raises cmd_failed, and compound expressions pass
// statement position on to their bodies.
func (t *thread) exprStmt(sc *scope, x syntax.Expr, stmtPos bool) (value.Value, error) {
	if !stmtPos {
		return t.expr(sc, x)
	}
	var v value.Value
	var err error
	switch n := x.(type) {
	case *syntax.Block:
		v, err = t.stmts(newScope(sc), n.Stmts, false)
	case *syntax.If:
		v, err = t.ifExpr(sc, n, false)
	case *syntax.Match:
		v, err = t.matchExpr(sc, n, false)
	case *syntax.Try:
		v, err = t.tryExpr(sc, n, false)
	case *syntax.With:
		v, err = t.withExpr(sc, n, false)
	case *syntax.Command:
		v, err = t.command(sc, n, true)
	case *syntax.LangBlock:
		v, err = t.langBlock(sc, n, nil, true)
	case *syntax.MethodCall:
		v, err = t.methodCall(sc, n, true)
	case *syntax.Binary:
		if n.Op == "&&" || n.Op == "||" {
			v, err = t.chain(sc, n, true)
		} else {
			v, err = t.expr(sc, x)
		}
	default:
		v, err = t.expr(sc, x)
	}
	if err != nil {
		return nil, err
	}
	if isCommandish(x) {
		if o, ok := v.(*value.Outcome); ok && !o.OK {
			return nil, cmdFailed(o).WithSpan(x.Span())
		}
		t.e.show(v)
	} else if b, ok := x.(*syntax.Binary); ok && (b.Op == "&&" || b.Op == "||") {
		t.e.show(v)
	}
	return v, nil
}

func (t *thread) assign(sc *scope, n *syntax.AssignStmt) (value.Value, error) {
	if n.Env {
		if n.Op != "=" {
			return nil, diag.New(diag.TypeError, "environment variables only support `=`")
		}
		if t.inFn > 0 {
			return nil, diag.New(diag.Custom, "cannot set env.%s inside a function", n.Name).
				WithHint("use `with env: {…} { … }` to scope environment changes")
		}
		v, err := t.expr(sc, n.Value)
		if err != nil {
			return nil, err
		}
		s, err := argvString(v)
		if err != nil {
			return nil, err
		}
		t.e.setenv(n.Name, s)
		return v, nil
	}
	owner, idx := sc.lookupRef(n.Name)
	if owner == nil {
		if n.Op != "=" {
			return nil, diag.New(diag.UndefinedVar, "undefined variable `%s`", n.Name)
		}
		return nil, diag.New(diag.TypeError, "cannot assign to undeclared variable `%s`", n.Name).
			WithHint("declare it first with `var " + n.Name + " = …`")
	}
	if !owner.vars[idx].mutable {
		return nil, diag.New(diag.TypeError, "cannot assign to immutable binding `%s`", n.Name).
			WithHint("declare it with `var` to make it mutable")
	}
	v, err := t.expr(sc, n.Value)
	if err != nil {
		return nil, err
	}
	// Evaluating the right side may have declared names (shifting this
	// binding) in rare cases such as `source`; re-resolve only then.
	if idx >= len(owner.vars) || !sameName(owner.vars[idx].name, n.Name) {
		owner, idx = sc.lookupRef(n.Name)
	}
	b := &owner.vars[idx]
	if n.Op != "=" {
		if v, err = binaryOp(n.Op[:1], b.val, v); err != nil {
			return nil, err
		}
	}
	b.val = v
	return v, nil
}

// expr evaluates x in value position.
func (t *thread) expr(sc *scope, x syntax.Expr) (value.Value, error) {
	v, err := t.expr1(sc, x)
	if err != nil {
		return nil, spanned(err, x.Span())
	}
	return v, nil
}

func (t *thread) expr1(sc *scope, x syntax.Expr) (value.Value, error) {
	switch n := x.(type) {
	case *syntax.IntLit:
		return value.Int(n.V), nil
	case *syntax.Ident:
		return t.ident(sc, n)
	case *syntax.Binary:
		return t.binary(sc, n)
	case *syntax.Field:
		return t.field(sc, n)
	case *syntax.MethodCall:
		return t.methodCall(sc, n, false)
	case *syntax.Call:
		return t.call(sc, n)
	case *syntax.StrLit:
		return value.Str(n.V), nil
	case *syntax.FloatLit:
		return value.Float(n.V), nil
	case *syntax.SizeLit:
		return value.Size(n.Bytes), nil
	case *syntax.DurationLit:
		return value.Duration(n.Ns), nil
	case *syntax.TimeLit:
		return value.Time{H: n.H, M: n.M, S: n.S}, nil
	case *syntax.BoolLit:
		return value.Bool(n.V), nil
	case *syntax.NullLit:
		return value.Null{}, nil
	case *syntax.InterpStr:
		return t.interp(sc, n)
	case *syntax.RegexLit:
		re, err := regexp.Compile(n.Src)
		if err != nil {
			return nil, diag.New(diag.ArgError, "invalid regex: %v", err)
		}
		return value.Regex{Src: n.Src, Re: re}, nil
	case *syntax.DatetimeLit:
		return parseDatetime(n.Src)
	case *syntax.Unary:
		return t.unary(sc, n)
	case *syntax.Index:
		return t.index(sc, n)
	case *syntax.Lambda:
		return t.makeLambda(sc, n), nil
	case *syntax.ListLit:
		items := make([]value.Value, len(n.Items))
		for i, it := range n.Items {
			v, err := t.expr(sc, it)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return &value.List{Items: items}, nil
	case *syntax.RecordLit:
		keys := make([]string, 0, len(n.Fields))
		vals := make([]value.Value, 0, len(n.Fields))
		for _, f := range n.Fields {
			v, err := t.expr(sc, f.Value)
			if err != nil {
				return nil, err
			}
			dup := false
			for i, k := range keys {
				if k == f.Key {
					vals[i] = v
					dup = true
				}
			}
			if !dup {
				keys = append(keys, f.Key)
				vals = append(vals, v)
			}
		}
		return value.NewRecord(keys, vals), nil
	case *syntax.Block:
		return t.stmts(newScope(sc), n.Stmts, true)
	case *syntax.If:
		return t.ifExpr(sc, n, true)
	case *syntax.Match:
		return t.matchExpr(sc, n, true)
	case *syntax.Try:
		return t.tryExpr(sc, n, true)
	case *syntax.Catch:
		return t.catchExpr(sc, n)
	case *syntax.With:
		return t.withExpr(sc, n, true)
	case *syntax.Spawn:
		return t.spawn(sc, n.Body)
	case *syntax.LangBlock:
		return t.langBlock(sc, n, nil, false)
	case *syntax.Command:
		return t.command(sc, n, false)
	}
	return nil, diag.New(diag.Custom, "unsupported expression %T", x)
}

func (t *thread) interp(sc *scope, n *syntax.InterpStr) (value.Value, error) {
	var b []byte
	for _, p := range n.Parts {
		if p.Expr == nil {
			b = append(b, p.Lit...)
			continue
		}
		v, err := t.expr(sc, p.Expr)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case value.Str:
			b = append(b, x...)
		case *value.Secret:
			return nil, diag.New(diag.TypeError, "a secret cannot be interpolated into a string")
		default:
			b = value.AppendInline(b, v)
		}
	}
	return value.Str(b), nil
}

func (t *thread) unary(sc *scope, n *syntax.Unary) (value.Value, error) {
	v, err := t.expr(sc, n.X)
	if err != nil {
		return nil, err
	}
	if n.Op == "!" {
		b, err := cond(v)
		if err != nil {
			return nil, err
		}
		return value.Bool(!b), nil
	}
	return neg(v)
}

func (t *thread) binary(sc *scope, n *syntax.Binary) (value.Value, error) {
	switch n.Op {
	case "&&", "||":
		return t.chain(sc, n, false)
	case "??":
		l, err := t.expr(sc, n.L)
		if err != nil {
			return nil, err
		}
		if _, isNull := l.(value.Null); !isNull && l != nil {
			return l, nil
		}
		return t.expr(sc, n.R)
	}
	l, err := t.expr(sc, n.L)
	if err != nil {
		return nil, err
	}
	r, err := t.expr(sc, n.R)
	if err != nil {
		return nil, err
	}
	return binaryOp(n.Op, l, r)
}

// chain evaluates && / ||: operands are conditions in value position and
// the deciding operand is the result (§6.5).
func (t *thread) chain(sc *scope, n *syntax.Binary, stmt bool) (value.Value, error) {
	var l value.Value
	var err error
	lb, nested := n.L.(*syntax.Binary)
	nested = nested && (lb.Op == "&&" || lb.Op == "||")
	if stmt && nested {
		l, err = t.chain(sc, lb, true)
	} else {
		l, err = t.expr(sc, n.L)
	}
	if err != nil {
		return nil, err
	}
	b, err := cond(l)
	if err != nil {
		return nil, err
	}
	if b == (n.Op == "||") {
		return l, nil
	}
	if stmt && (nested || isCommandish(n.L)) {
		// A statement chain shows the commands it ran besides its result.
		t.e.show(l)
	}
	r, err := t.expr(sc, n.R)
	if err != nil {
		return nil, err
	}
	if _, err := cond(r); err != nil {
		return nil, err
	}
	return r, nil
}

// binaryOp applies a strict binary operator to evaluated operands.
func binaryOp(op string, l, r value.Value) (value.Value, error) {
	// Integer fast path: loops and recursion are dominated by it.
	if a, ok := l.(value.Int); ok {
		if b, ok := r.(value.Int); ok {
			switch op {
			case "<":
				return value.Bool(a < b), nil
			case "<=":
				return value.Bool(a <= b), nil
			case ">":
				return value.Bool(a > b), nil
			case ">=":
				return value.Bool(a >= b), nil
			case "==":
				return value.Bool(a == b), nil
			case "!=":
				return value.Bool(a != b), nil
			case "+":
				s := a + b
				if (s > a) == (b > 0) {
					return s, nil
				}
			case "-":
				s := a - b
				if (s < a) == (b > 0) {
					return s, nil
				}
			}
		}
	}
	if a, ok := l.(value.Size); ok {
		if b, ok := r.(value.Size); ok {
			switch op {
			case "<":
				return value.Bool(a < b), nil
			case "<=":
				return value.Bool(a <= b), nil
			case ">":
				return value.Bool(a > b), nil
			case ">=":
				return value.Bool(a >= b), nil
			}
		}
	}
	switch op {
	case "==", "!=":
		eq, err := equal(l, r)
		if err != nil {
			return nil, err
		}
		return value.Bool(eq == (op == "==")), nil
	case "<", "<=", ">", ">=":
		c, err := compare(l, r)
		if err != nil {
			return nil, err
		}
		switch op {
		case "<":
			return value.Bool(c < 0), nil
		case "<=":
			return value.Bool(c <= 0), nil
		case ">":
			return value.Bool(c > 0), nil
		}
		return value.Bool(c >= 0), nil
	case "in":
		return in(l, r)
	case "..", "..=":
		return newRange(l, r, op == "..=")
	}
	return binop(op, l, r)
}
