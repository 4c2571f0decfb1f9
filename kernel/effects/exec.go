package effects

import (
	"path"
	"strings"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// command is a command expression (LANGUAGE.md §9.1). A background
// command runs as a task on a copy of the session cwd.
func (w *walker) command(sc *scope, st *cwdState, c *syntax.Command) {
	if c.Background {
		cp := *st
		w.runCommand(sc, &cp, c)
		return
	}
	w.runCommand(sc, st, c)
}

func (w *walker) runCommand(sc *scope, st *cwdState, c *syntax.Command) {
	w.prefixes(sc, st, c.Env)
	w.redirects(sc, st, c.Redirs)
	w.parts(sc, st, c.Args)
	if c.Block != nil {
		w.lambda(sc, nil, c.Block)
	}
	args := w.cmdArgs(sc, c.Args)
	name := c.HeadName()
	if _, isPath := c.Head.(*syntax.PathWord); isPath {
		w.pathHead(st, name)
		return
	}
	if name == "" {
		w.unknownSpawn()
		return
	}
	// A bound non-callable head with anything after it falls through to
	// the builtin or program of that name.
	more := c.Caret || len(c.Args) > 0 || len(c.Redirs) > 0 || len(c.Env) > 0 || c.Block != nil
	if b := sc.lookup(name); b != nil {
		switch b.kind {
		case bindFn:
			w.callFn(b)
			if notYetBound(b, sc, c.Span().Start) {
				w.unboundHead(st, name, args)
			}
		case bindAlias:
			w.alias(st, b.alias, args)
		default:
			if more {
				w.unboundHead(st, name, args)
			}
		}
		return
	}
	if w.sessionBound(sc, name) {
		callable := w.callable(name)
		if callable {
			w.out.flag(leash.KindOpaque)
		}
		if more && (w.env.Callable == nil || !callable) {
			w.unboundHead(st, name, args)
		}
		return
	}
	w.unboundHead(st, name, args)
}

// unboundHead resolves a head no binding claims (LANGUAGE.md §9.1 steps
// 4–8): a script, a builtin, else a program.
func (w *walker) unboundHead(st *cwdState, name string, args argList) {
	if strings.HasSuffix(name, ".shl") {
		w.script(st, name)
		return
	}
	if r, ok := w.rules[name]; ok {
		r.apply(w, st, args)
		return
	}
	w.external(st, name)
}

// pathHead is ./x, /bin/x or ~/x: a Shoal script, else a program by path.
func (w *walker) pathHead(st *cwdState, head string) {
	if strings.HasSuffix(head, ".shl") {
		w.script(st, head)
		return
	}
	w.external(st, head)
}

// prefixes: NAME=value before a head writes the child's environment.
// It is an env_write although the session keeps its own: a prefix such
// as LD_PRELOAD or PATH changes what a pinned program runs.
func (w *walker) prefixes(sc *scope, st *cwdState, env []*syntax.EnvAssign) {
	for _, ea := range env {
		if ea == nil {
			continue
		}
		w.part(sc, st, ea.Value)
		w.out.name(leash.KindEnvWrite, ea.Name)
	}
}

// redirects: > and >> write their target, < reads it.
func (w *walker) redirects(sc *scope, st *cwdState, rs []*syntax.Redirect) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		w.part(sc, st, r.Target)
		l := w.cmdArgs(sc, []syntax.CmdPart{r.Target})
		p := Anywhere
		if len(l.args) == 1 {
			p = w.argPath(l.args[0], st)
		}
		if r.Op == "<" {
			w.out.path(leash.KindFsRead, p)
		} else {
			w.out.path(leash.KindFsWrite, p)
		}
	}
}

// parts walks the expressions inside command parts.
func (w *walker) parts(sc *scope, st *cwdState, ps []syntax.CmdPart) {
	for _, p := range ps {
		w.part(sc, st, p)
	}
}

// part walks one command part. A glob word expands before any head runs,
// builtin, function or program alike: that lists its root.
func (w *walker) part(sc *scope, st *cwdState, p syntax.CmdPart) {
	switch x := p.(type) {
	case *syntax.GlobWord:
		w.out.path(leash.KindFsRead, w.globRoot(x.Pattern, st))
	case *syntax.ExprPart:
		w.expr(sc, st, x.X)
	case *syntax.Flag:
		if x.Value != nil {
			w.part(sc, st, x.Value)
		}
	}
}

// alias runs an alias's stored command with extra arguments appended;
// its head always resolves past bindings.
func (w *walker) alias(st *cwdState, a *aliasDef, extra argList) {
	c := a.cmd
	w.prefixes(a.sc, st, c.Env)
	w.redirects(a.sc, st, c.Redirs)
	w.parts(a.sc, st, c.Args)
	args := w.cmdArgs(a.sc, c.Args)
	args.args = append(args.args, extra.args...)
	args.ends = append(args.ends, extra.ends...)
	if _, isPath := c.Head.(*syntax.PathWord); isPath {
		w.pathHead(st, c.HeadName())
		return
	}
	w.unboundHead(st, c.HeadName(), args)
}

// feed is value.feed(cmd) or cmd.feed(value) (LANGUAGE.md §9.8): the
// command side always runs a program, even when it names a builtin.
func (w *walker) feed(sc *scope, st *cwdState, n *syntax.MethodCall) {
	cmd, data := n.Args[0].Value, n.Recv
	if !w.isFeedCommand(sc, cmd) {
		if !w.isFeedCommand(sc, n.Recv) {
			// A type error at run time; the operands still evaluate.
			w.expr(sc, st, n.Recv)
			w.flowArgs(sc, st, n.Args)
			return
		}
		cmd, data = n.Recv, cmd
	}
	w.expr(sc, st, data)
	switch c := cmd.(type) {
	case *syntax.LangBlock:
		w.external(st, c.Tool)
	case *syntax.Ident:
		w.external(st, c.Name)
	case *syntax.Command:
		w.prefixes(sc, st, c.Env)
		w.redirects(sc, st, c.Redirs)
		w.parts(sc, st, c.Args)
		if c.Block != nil {
			w.lambda(sc, nil, c.Block)
		}
		if c.HeadName() == "" {
			w.unknownSpawn()
			return
		}
		w.external(st, c.HeadName())
	}
}

// isFeedCommand: a command, an interpreter block or an unbound bare name.
func (w *walker) isFeedCommand(sc *scope, x syntax.Expr) bool {
	switch n := x.(type) {
	case *syntax.Command, *syntax.LangBlock:
		return true
	case *syntax.Ident:
		return n.Name != "." && sc.lookup(n.Name) == nil && !w.sessionBound(sc, n.Name)
	}
	return false
}

// external spawns a program: proc_spawn pinned by argv0 as written and
// the resolved binary's hash, plus opaque, since nothing tells what the
// program does (see docs/effects.md, "Why every spawn is opaque").
func (w *walker) external(st *cwdState, argv0 string) {
	w.out.spawn(argv0, w.hash(w.binary(st, argv0)))
	w.out.flag(leash.KindOpaque)
}

// unknownSpawn is a spawn whose program is computed at run time: an empty
// argv0 and hash, which no pin grant matches.
func (w *walker) unknownSpawn() {
	w.out.spawn("", "")
	w.out.flag(leash.KindOpaque)
}

// binary resolves argv0 to the file that would run, or "".
func (w *walker) binary(st *cwdState, argv0 string) string {
	if strings.Contains(argv0, "/") || argv0 == "~" {
		if p := w.resolve(argv0, st); p != Anywhere {
			return p
		}
		return ""
	}
	if w.env.LookPath == nil {
		return ""
	}
	p, err := w.env.LookPath(argv0)
	if err != nil {
		return ""
	}
	return p
}

// hash returns the binary's BLAKE3 hash, memoized, or "" when there is no
// binary or no way to hash it.
func (w *walker) hash(bin string) string {
	if bin == "" || w.env.HashFile == nil {
		return ""
	}
	if h, ok := w.hashes[bin]; ok {
		return h
	}
	h, err := w.env.HashFile(bin)
	if err != nil {
		// The spawn would fail too; the effect stays, pinned by name only.
		h = ""
	}
	w.hashes[bin] = h
	return h
}

// script: a Shoal script is read and then runs in a child evaluator whose
// statements are not visible here.
func (w *walker) script(st *cwdState, target string) {
	w.out.path(leash.KindFsRead, w.resolve(target, st))
	w.out.flag(leash.KindOpaque)
}

// run is `run target args…` / run(target, …) (LANGUAGE.md §9.9).
func (w *walker) run(st *cwdState, args argList) {
	pos := args.positional()
	if len(pos) == 0 {
		return
	}
	t := pos[0]
	if !t.known || t.glob {
		w.out.path(leash.KindFsRead, Anywhere)
		w.unknownSpawn()
		return
	}
	if !isScriptTarget(t.lit) {
		w.external(st, t.lit)
		return
	}
	w.script(st, t.lit)
	ext := path.Ext(t.lit)
	if ext == "" || ext == ".shl" {
		return
	}
	if r := defaultRunner(ext); r != "" {
		w.external(st, r)
		return
	}
	w.unknownSpawn()
}

// isScriptTarget: run treats a target with a '/', a leading '.' or '~',
// or an extension as a script file.
func isScriptTarget(s string) bool {
	return strings.Contains(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") || path.Ext(s) != ""
}

// defaultRunner is the interpreter run uses for a script extension when
// no Reef manifest maps it; other extensions (and Reef's mappings, and
// #! lines) name a runner only known at run time.
func defaultRunner(ext string) string {
	switch ext {
	case ".sh":
		return "sh"
	case ".py":
		return "python3"
	case ".js":
		return "node"
	case ".rs":
		return "rust-script"
	}
	return ""
}

// open hands a path to the desktop opener, which does anything at all.
func (w *walker) open(st *cwdState) {
	w.external(st, "xdg-open")
}

// interact runs its command on the real terminal.
func (w *walker) interact(st *cwdState, args argList) {
	pos := args.positional()
	if len(pos) == 0 {
		return
	}
	if h := pos[0]; h.known && !h.glob {
		w.external(st, h.lit)
		return
	}
	w.unknownSpawn()
}
