package effects

import (
	"path"
	"strings"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// Env is the session context a derivation reads. Every function field is
// optional; a nil one makes the derivation assume the conservative answer.
type Env struct {
	// Cwd is the session cwd relative paths resolve against; empty means
	// unknown, and every relative path is then [Anywhere].
	Cwd string
	// Home expands "~"; empty means unknown ("~/x" is then [Anywhere]).
	Home string
	// Bound reports names bound in the session before this program. A
	// bound command head is a call of that binding, not a spawn.
	Bound func(name string) bool
	// Callable reports whether a bound name holds something callable (a
	// closure, an alias, a command). A program that calls or merely
	// references such a binding gets an opaque effect, since its body is
	// not visible here. Nil assumes every bound name used as a command
	// head, callee or bare call argument is callable.
	Callable func(name string) bool
	// LookPath resolves a bare command name through the session PATH. Nil
	// assumes every unbound bare name in expression position may name a
	// program; with it, such a name that does not resolve is an
	// undefined-variable error and has no effect.
	LookPath func(name string) (string, error)
	// HashFile returns the 64-hex BLAKE3 hash of a binary, for the
	// proc_spawn pin. Nil, or an error, leaves the hash empty.
	HashFile func(path string) (string, error)
}

// Derive returns the effects prog may have, merged and in a stable order
// (see docs/effects.md for the derivation table). It never fails: what it
// cannot see through becomes a wildcard payload or an opaque effect. A nil
// env is an empty one.
func Derive(prog *syntax.Program, env *Env) []leash.Effect {
	if env == nil {
		env = &Env{}
	}
	w := &walker{
		env:    env,
		out:    newCollector(),
		rules:  sharedRules(),
		hashes: map[string]string{},
		fnSeen: map[*syntax.FnDecl]bool{},
	}
	if prog == nil {
		return w.out.effects()
	}
	w.movesCwd = movesCwd(prog)
	st := w.startCwd(env.Cwd)
	top := &scope{vars: map[string]*binding{}}
	w.stmts(top, &st, prog.Stmts)
	return w.out.effects()
}

// walker is one derivation in progress.
type walker struct {
	env   *Env
	out   *collector
	rules map[string]rule
	// hashes memoizes HashFile by resolved path.
	hashes map[string]string
	// movesCwd is set when the program may change the session cwd
	// anywhere; function and lambda bodies, which run at times the walker
	// cannot follow, then resolve relative paths to [Anywhere].
	movesCwd bool
	// fnSeen guards recursion: each declaration's body is walked once.
	fnSeen map[*syntax.FnDecl]bool
}

func (w *walker) startCwd(cwd string) cwdState {
	return cwdState{cwd: cwd, known: cwd != "", prev: cwd, prevKnown: false}
}

// bodyCwd is the cwd state a function or lambda body starts with.
func (w *walker) bodyCwd() cwdState {
	if w.movesCwd {
		return cwdState{}
	}
	return w.startCwd(w.env.Cwd)
}

// movesCwd reports whether anything in prog may change the session cwd.
func movesCwd(prog *syntax.Program) bool {
	found := false
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Command:
			found = found || cwdHead(x.HeadName())
		case *syntax.Ident:
			// "j" is more often a loop variable than a jump.
			found = found || (cwdHead(x.Name) && x.Name != "j")
		case *syntax.WithEntry:
			found = found || x.Key == "cwd"
		}
		return !found
	})
	return found
}

func cwdHead(name string) bool {
	switch name {
	case "cd", "pushd", "popd", "j", "jump":
		return true
	}
	return false
}

// ---- scopes ----

type bindKind uint8

const (
	bindValue bindKind = iota
	bindFn
	bindAlias
)

// binding is what a name means inside the program being derived.
type binding struct {
	kind  bindKind
	fns   []fnDef   // bindFn: every declaration of the name in its block
	alias *aliasDef // bindAlias
	// path is set for a value known to be a path (path("…"), .join…),
	// so path methods on it read that path.
	path *pathVal
	// text is the value of a let bound to a string literal: it never
	// changes, so a path argument naming it is as good as the literal.
	text *string
	// glob is the root ("dir/**") of a value made by glob(…), whose read
	// was counted there; "" for other values.
	glob string
	// depth and pos place a hoisted fn: a reference at the same function
	// depth before pos runs before the fn is bound.
	depth, pos int
}

type fnDef struct {
	decl *syntax.FnDecl
	sc   *scope
}

type aliasDef struct {
	cmd *syntax.Command
	sc  *scope
}

// pathVal is a path value as written (resolved against the cwd where it
// is used, as the evaluator does), or an unknown one.
type pathVal struct {
	lit   string
	known bool
	// under is set instead for a path known only to lie below an effect
	// path such as "/p/src/**" (a glob match).
	under string
}

type scope struct {
	parent *scope
	depth  int // function nesting depth
	vars   map[string]*binding
}

func (s *scope) child(depth int) *scope {
	return &scope{parent: s, depth: depth, vars: map[string]*binding{}}
}

func (s *scope) lookup(name string) *binding {
	for c := s; c != nil; c = c.parent {
		if b, ok := c.vars[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) bindValue(name string, pv *pathVal) {
	if name != "" && name != "_" {
		s.vars[name] = &binding{kind: bindValue, path: pv, depth: s.depth}
	}
}

// hoist binds the block's fn declarations before its statements run, so
// calls from bodies declared earlier find them.
func (s *scope) hoist(stmts []syntax.Stmt) {
	for _, st := range stmts {
		if ex, ok := st.(*syntax.ExportStmt); ok {
			st = ex.Decl
		}
		fd, ok := st.(*syntax.FnDecl)
		if !ok || fd == nil {
			continue
		}
		b := s.vars[fd.Name]
		if b == nil || b.kind != bindFn {
			b = &binding{kind: bindFn, depth: s.depth, pos: fd.Span().Start}
			s.vars[fd.Name] = b
		}
		b.fns = append(b.fns, fnDef{decl: fd, sc: s})
	}
}

// sessionBound reports a name bound before this program and not shadowed
// by it.
func (w *walker) sessionBound(sc *scope, name string) bool {
	return sc.lookup(name) == nil && w.env.Bound != nil && w.env.Bound(name)
}

// callable reports whether a session binding may hold a callable.
func (w *walker) callable(name string) bool {
	return w.env.Callable == nil || w.env.Callable(name)
}

// ---- statements ----

func (w *walker) stmts(sc *scope, st *cwdState, list []syntax.Stmt) {
	sc.hoist(list)
	for _, s := range list {
		w.stmt(sc, st, s)
	}
}

func (w *walker) stmt(sc *scope, st *cwdState, s syntax.Stmt) {
	switch x := s.(type) {
	case *syntax.LetStmt:
		w.expr(sc, st, x.Value)
		sc.bindValue(x.Name, w.pathOf(sc, x.Value))
		if b := sc.vars[x.Name]; b != nil {
			if s, ok := literalString(x.Value); ok && !x.Mutable {
				b.text = &s
			}
			b.glob = w.globOf(sc, st, x.Value)
		}
	case *syntax.ExportStmt:
		if x.Decl != nil {
			w.stmt(sc, st, x.Decl)
		}
	case *syntax.FnDecl:
		// Declaring is effect-free; the body counts where the fn is used.
	case *syntax.AliasStmt:
		if x.Name != "" && x.Cmd != nil {
			sc.vars[x.Name] = &binding{kind: bindAlias, alias: &aliasDef{cmd: x.Cmd, sc: sc}, depth: sc.depth}
		}
	case *syntax.UseStmt:
		w.use(st, x.Target)
		stem := strings.TrimSuffix(path.Base(x.Target), ".shl")
		sc.bindValue(stem, nil)
	case *syntax.ReturnStmt:
		w.expr(sc, st, x.Value)
	case *syntax.ForStmt:
		w.expr(sc, st, x.Iter)
		// Iterating a glob binds each match, a path under its root.
		var each *pathVal
		if root := w.globOf(sc, st, x.Iter); root != "" {
			each = &pathVal{under: root}
		}
		w.loop(st, func(it *cwdState) {
			body := sc.child(sc.depth)
			body.bindValue(x.Var, each)
			w.block(body, it, x.Body)
		})
	case *syntax.WhileStmt:
		w.loop(st, func(it *cwdState) {
			w.expr(sc, it, x.Cond)
			w.block(sc.child(sc.depth), it, x.Body)
		})
	case *syntax.AssignStmt:
		w.expr(sc, st, x.Value)
		if x.Env {
			w.out.name(leash.KindEnvWrite, x.Name)
			return
		}
		if b := sc.lookup(x.Name); b != nil && b.kind == bindValue {
			if b.glob != "" && b.glob != w.globOf(sc, st, x.Value) {
				b.glob = Anywhere
			}
			if b.path != nil || w.pathOf(sc, x.Value) != nil {
				// Either value may be the one a later path method sees.
				b.path = &pathVal{}
			}
		}
	case *syntax.ExprStmt:
		w.expr(sc, st, x.X)
	case *syntax.BreakStmt, *syntax.ContinueStmt, nil:
	default:
		w.children(sc, st, s)
	}
}

// use: the module's file is read and its top-level code runs, unseen.
func (w *walker) use(st *cwdState, target string) {
	if target == "" {
		w.out.path(leash.KindFsRead, Anywhere)
	} else {
		if !strings.HasSuffix(target, ".shl") {
			w.out.path(leash.KindFsRead, w.resolve(target+".shl", st))
		}
		w.out.path(leash.KindFsRead, w.resolve(target, st))
	}
	w.out.flag(leash.KindOpaque)
}

// block walks a block's statements in sc (already a fresh child).
func (w *walker) block(sc *scope, st *cwdState, b *syntax.Block) {
	if b != nil {
		w.stmts(sc, st, b.Stmts)
	}
}

// loop walks a loop body that may run zero or more times. If one pass
// moves the cwd, later passes start elsewhere: the body is walked again
// with an unknown cwd, which stays unknown after the loop.
func (w *walker) loop(st *cwdState, body func(*cwdState)) {
	entry := *st
	pass := entry
	body(&pass)
	if pass != entry {
		var unknown cwdState
		body(&unknown)
		st.forget()
	}
}

// ---- expressions ----

func (w *walker) expr(sc *scope, st *cwdState, x syntax.Expr) {
	switch n := x.(type) {
	case nil:
	case *syntax.IntLit, *syntax.FloatLit, *syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit,
		*syntax.BoolLit, *syntax.NullLit, *syntax.StrLit, *syntax.RegexLit, *syntax.DatetimeLit:
	case *syntax.InterpStr:
		for _, p := range n.Parts {
			w.expr(sc, st, p.Expr)
		}
	case *syntax.Ident:
		w.ident(sc, st, n)
	case *syntax.Binary:
		w.expr(sc, st, n.L)
		switch n.Op {
		case "&&", "||", "??":
			// The right operand may not run.
			alt := *st
			w.expr(sc, &alt, n.R)
			st.join(alt)
		default:
			w.expr(sc, st, n.R)
		}
	case *syntax.Unary:
		w.expr(sc, st, n.X)
	case *syntax.Field:
		w.field(sc, st, n)
	case *syntax.Index:
		w.expr(sc, st, n.X)
		w.expr(sc, st, n.Index)
	case *syntax.MethodCall:
		w.method(sc, st, n)
	case *syntax.Call:
		w.call(sc, st, n)
	case *syntax.Lambda:
		w.lambda(sc, n.Params, n.Body)
	case *syntax.ListLit:
		for _, it := range n.Items {
			w.expr(sc, st, it)
		}
	case *syntax.RecordLit:
		for _, f := range n.Fields {
			if f != nil {
				w.expr(sc, st, f.Value)
			}
		}
	case *syntax.Block:
		w.block(sc.child(sc.depth), st, n)
	case *syntax.If:
		w.ifExpr(sc, st, n)
	case *syntax.Match:
		w.match(sc, st, n)
	case *syntax.Try:
		entry := *st
		body := entry
		w.block(sc.child(sc.depth), &body, n.Body)
		handler := w.afterFailure(entry, body)
		hs := sc.child(sc.depth)
		hs.bindValue(n.Binder, nil)
		w.block(hs, &handler, n.Handler)
		st.join(body, handler)
	case *syntax.Catch:
		entry := *st
		body := entry
		w.expr(sc, &body, n.X)
		handler := w.afterFailure(entry, body)
		hs := sc.child(sc.depth)
		hs.bindValue(n.Binder, nil)
		w.expr(hs, &handler, n.Handler)
		st.join(body, handler)
	case *syntax.With:
		w.with(sc, st, n)
	case *syntax.Spawn:
		// The task runs on a copy of the session cwd.
		cp := *st
		w.block(sc.child(sc.depth), &cp, n.Body)
	case *syntax.LangBlock:
		w.external(st, n.Tool)
	case *syntax.Command:
		w.command(sc, st, n)
	default:
		w.children(sc, st, x)
	}
}

// children walks the direct children of a node kind this package does
// not know yet, so a new node never hides the effects inside it.
func (w *walker) children(sc *scope, st *cwdState, n syntax.Node) {
	syntax.Walk(n, func(c syntax.Node) bool {
		if c == n {
			return true
		}
		switch x := c.(type) {
		case syntax.Stmt:
			w.stmt(sc, st, x)
		case syntax.Expr:
			w.expr(sc, st, x)
		default:
			return true
		}
		return false
	})
}

// afterFailure is the cwd a handler starts with: the body may have failed
// anywhere, so if it moves the cwd the handler's is unknown.
func (w *walker) afterFailure(entry, body cwdState) cwdState {
	if body != entry {
		return cwdState{}
	}
	return entry
}

func (w *walker) ifExpr(sc *scope, st *cwdState, n *syntax.If) {
	w.expr(sc, st, n.Cond)
	then := *st
	w.block(sc.child(sc.depth), &then, n.Then)
	els := *st
	w.expr(sc, &els, n.Else)
	st.join(then, els)
}

func (w *walker) match(sc *scope, st *cwdState, n *syntax.Match) {
	w.expr(sc, st, n.Subject)
	var arms []cwdState
	for _, a := range n.Arms {
		if a == nil {
			continue
		}
		as := sc.child(sc.depth)
		for _, p := range a.Patterns {
			bindPattern(as, p)
		}
		arm := *st
		w.expr(as, &arm, a.Guard)
		w.expr(as, &arm, a.Body)
		arms = append(arms, arm)
	}
	st.join(arms...)
}

// bindPattern binds every name a match pattern binds.
func bindPattern(sc *scope, p syntax.Pattern) {
	switch x := p.(type) {
	case *syntax.BindPat:
		sc.bindValue(x.Name, nil)
	case *syntax.TypePat:
		sc.bindValue(x.Name, nil)
	case *syntax.RecordPat:
		for _, f := range x.Fields {
			if f == nil {
				continue
			}
			if f.Pat == nil {
				sc.bindValue(f.Name, nil)
			} else {
				bindPattern(sc, f.Pat)
			}
		}
	case *syntax.ListPat:
		for _, e := range x.Elems {
			bindPattern(sc, e)
		}
		if x.HasRest {
			sc.bindValue(x.Rest, nil)
		}
	}
}

// with: env entries write the environment for the body; a cwd entry moves
// the cwd for the body only (it is restored on exit).
func (w *walker) with(sc *scope, st *cwdState, n *syntax.With) {
	body := *st
	for _, e := range n.Entries {
		if e == nil {
			continue
		}
		w.expr(sc, st, e.Value)
		switch e.Key {
		case "env":
			rec, ok := e.Value.(*syntax.RecordLit)
			if !ok {
				w.out.name(leash.KindEnvWrite, AnyName)
				continue
			}
			for _, f := range rec.Fields {
				if f != nil {
					w.out.name(leash.KindEnvWrite, f.Key)
				}
			}
		case "cwd":
			if pv := w.staticPath(sc, e.Value); pv.known {
				dir := w.resolve(pv.lit, st)
				body.set(dir, dir != Anywhere)
			} else {
				body.forget()
			}
		}
	}
	w.block(sc.child(sc.depth), &body, n.Body)
}

// lambda walks a function body where it is written: it may be called any
// number of times, at times the walker cannot follow.
func (w *walker) lambda(sc *scope, params []*syntax.Param, body syntax.Expr) {
	inner := sc.child(sc.depth + 1)
	st := w.bodyCwd()
	for _, p := range params {
		if p == nil {
			continue
		}
		w.expr(inner, &st, p.Default)
		inner.bindValue(p.Name, nil)
	}
	w.expr(inner, &st, body)
}

// callFn walks the bodies of the fn declarations a binding names, once
// each.
func (w *walker) callFn(b *binding) {
	for _, d := range b.fns {
		if w.fnSeen[d.decl] {
			continue
		}
		w.fnSeen[d.decl] = true
		params := d.decl.Params
		if d.decl.Rest != nil {
			params = append(params[:len(params):len(params)], d.decl.Rest)
		}
		var body syntax.Expr
		if d.decl.Body != nil {
			body = d.decl.Body
		}
		w.lambda(d.sc, params, body)
	}
}

// notYetBound reports whether a reference to a hoisted fn at pos runs
// before the declaration binds it (same function depth, earlier offset):
// the name then still resolves as a command.
func notYetBound(b *binding, sc *scope, pos int) bool {
	return b.kind == bindFn && sc.depth == b.depth && pos < b.pos
}
