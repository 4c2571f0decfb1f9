package effects

import (
	"path"
	"strings"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// arg is one command argument as far as it is known before running.
type arg struct {
	flag  string // long flag name ('-' rewritten to '_'), or the short cluster's letters
	short bool
	raw   string // the flag as written
	lit   string // a literal word, string or path, as written
	known bool   // lit is meaningful
	glob  bool   // lit is a glob pattern
}

func (a arg) isFlag() bool { return a.flag != "" }

// argList is a command's arguments, with ends marking each "--".
type argList struct {
	args []arg
	ends []bool
}

// positional returns the non-flag arguments; after "--" flags are words.
func (l argList) positional() []arg {
	var out []arg
	after := false
	for i, a := range l.args {
		if l.ends[i] {
			after = true
			continue
		}
		if a.isFlag() && !after {
			continue
		}
		if a.isFlag() {
			a = arg{lit: a.raw, known: true}
		}
		out = append(out, a)
	}
	return out
}

// hasFlag reports a long flag by name or a short cluster holding one of
// the letters.
func (l argList) hasFlag(long, letters string) bool {
	after := false
	for i, a := range l.args {
		if l.ends[i] {
			after = true
		}
		if after || !a.isFlag() {
			continue
		}
		if (!a.short && a.flag == long) || (a.short && letters != "" && strings.ContainsAny(a.flag, letters)) {
			return true
		}
	}
	return false
}

func (l *argList) add(a arg, end bool) {
	l.args = append(l.args, a)
	l.ends = append(l.ends, end)
}

// cmdArgs converts command parts to arguments.
func (w *walker) cmdArgs(sc *scope, parts []syntax.CmdPart) argList {
	var l argList
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Word:
			l.add(arg{lit: x.Text, known: true}, false)
		case *syntax.PathWord:
			l.add(arg{lit: x.Text, known: true}, false)
		case *syntax.GlobWord:
			l.add(arg{lit: x.Pattern, known: true, glob: true}, false)
		case *syntax.Flag:
			name := x.Name
			if x.Short {
				name = strings.TrimPrefix(x.Raw, "-")
			}
			l.add(arg{flag: name, short: x.Short, raw: x.Raw}, false)
		case *syntax.EndOfFlags:
			l.add(arg{}, true)
		case *syntax.Dash:
			l.add(arg{lit: "-", known: true}, false)
		case *syntax.ExprPart:
			pv := w.staticPath(sc, x.X)
			l.add(arg{lit: pv.lit, known: pv.known}, false)
		default:
			l.add(arg{}, false)
		}
	}
	return l
}

// callArgs converts call arguments: positional ones as values, named ones
// as the --name=value flags a command call receives.
func (w *walker) callArgs(sc *scope, args []*syntax.Arg) argList {
	var l argList
	for _, a := range args {
		if a == nil {
			continue
		}
		if a.Name != "" {
			l.add(arg{flag: a.Name, raw: "--" + a.Name}, false)
			continue
		}
		pv := w.staticPath(sc, a.Value)
		l.add(arg{lit: pv.lit, known: pv.known}, false)
	}
	return l
}

// argPath is the effect path of a path argument.
func (w *walker) argPath(a arg, st *cwdState) string {
	switch {
	case !a.known:
		return Anywhere
	case a.glob:
		return w.globRoot(a.lit, st)
	}
	return w.resolve(a.lit, st)
}

// staticPath returns the literal text of a string or path expression, if
// it has one.
func (w *walker) staticPath(sc *scope, x syntax.Expr) pathVal {
	if s, ok := literalString(x); ok {
		return pathVal{lit: s, known: true}
	}
	if pv := w.pathOf(sc, x); pv != nil {
		return *pv
	}
	if id, ok := x.(*syntax.Ident); ok {
		if b := sc.lookup(id.Name); b != nil && b.text != nil {
			return pathVal{lit: *b.text, known: true}
		}
	}
	return pathVal{}
}

// pathOf returns the path an expression evaluates to, when it is known to
// be a path: path(…), a binding holding one, and .parent, .join(…) and
// .abs() of those. nil means "not known to be a path".
func (w *walker) pathOf(sc *scope, x syntax.Expr) *pathVal {
	switch n := x.(type) {
	case *syntax.Call:
		id, ok := n.Fn.(*syntax.Ident)
		if !ok || id.Name != "path" || len(n.Args) != 1 || n.Args[0] == nil {
			return nil
		}
		if s, ok := literalString(n.Args[0].Value); ok {
			return &pathVal{lit: s, known: true}
		}
		if pv := w.pathOf(sc, n.Args[0].Value); pv != nil {
			return pv
		}
		return &pathVal{}
	case *syntax.Ident:
		if b := sc.lookup(n.Name); b != nil && b.kind == bindValue {
			return b.path
		}
	case *syntax.Field:
		if n.Name == "parent" {
			return parentOf(w.pathOf(sc, n.X))
		}
	case *syntax.MethodCall:
		recv := w.pathOf(sc, n.Recv)
		switch n.Name {
		case "parent":
			return parentOf(recv)
		case "abs":
			return recv
		case "join":
			if recv == nil {
				return nil
			}
			if len(n.Args) == 1 && n.Args[0] != nil && recv.known {
				if seg, ok := literalString(n.Args[0].Value); ok {
					return &pathVal{lit: path.Join(recv.lit, seg), known: true}
				}
			}
			return &pathVal{}
		}
	}
	return nil
}

func parentOf(pv *pathVal) *pathVal {
	if pv != nil && pv.under != "" {
		return &pathVal{}
	}
	if pv == nil || !pv.known {
		return pv
	}
	return &pathVal{lit: path.Dir(pv.lit), known: true}
}

// ---- names, calls, methods ----

// namespaces are the root names of LANGUAGE.md §10 plus env and secret;
// unshadowed, they are namespaces rather than commands.
func isNamespace(name string) bool {
	switch name {
	case "json", "yaml", "toml", "csv", "math", "http", "os", "config", "env", "secret":
		return true
	}
	return false
}

// namespace reports an unshadowed namespace root.
func (w *walker) namespace(sc *scope, x syntax.Expr) (string, bool) {
	id, ok := x.(*syntax.Ident)
	if !ok || !isNamespace(id.Name) || sc.lookup(id.Name) != nil || w.sessionBound(sc, id.Name) {
		return "", false
	}
	return id.Name, true
}

// ident is a name in expression position (LANGUAGE.md §7.6): a binding,
// now/today, or a command run with no arguments.
func (w *walker) ident(sc *scope, st *cwdState, id *syntax.Ident) {
	name := id.Name
	switch name {
	case ".", "it", "out", "path", "glob", "regex":
		return
	}
	if b := sc.lookup(name); b != nil {
		switch b.kind {
		case bindFn:
			// A referenced fn may be called from wherever it flows.
			w.callFn(b)
			if notYetBound(b, sc, id.Span().Start) {
				w.bareName(st, name)
			}
		case bindAlias:
			w.alias(st, b.alias, argList{})
		}
		return
	}
	if w.sessionBound(sc, name) {
		if w.env.Callable != nil && w.env.Callable(name) {
			w.out.flag(leash.KindOpaque)
		}
		return
	}
	w.bareName(st, name)
}

// bareName is an unbound identifier evaluated: now/today read the clock, a
// builtin runs with no arguments, a program on PATH is spawned.
func (w *walker) bareName(st *cwdState, name string) {
	switch name {
	case "now", "today":
		w.out.flag(leash.KindTime)
		return
	}
	if r, ok := w.rules[name]; ok {
		r.apply(w, st, argList{})
		return
	}
	if isNamespace(name) {
		return
	}
	if w.mayBeProgram(name) {
		w.external(st, name)
	}
}

// mayBeProgram reports whether a bare name in expression position may name
// a program: without LookPath any name may.
func (w *walker) mayBeProgram(name string) bool {
	if w.env.LookPath == nil {
		return true
	}
	_, err := w.env.LookPath(name)
	return err == nil
}

// flowArgs walks call arguments. Without Env.Callable, a bare session
// name handed to a call may be a closure the callee runs.
func (w *walker) flowArgs(sc *scope, st *cwdState, args []*syntax.Arg) {
	for _, a := range args {
		if a == nil {
			continue
		}
		w.expr(sc, st, a.Value)
		if id, ok := a.Value.(*syntax.Ident); ok && w.env.Callable == nil && w.sessionBound(sc, id.Name) {
			w.out.flag(leash.KindOpaque)
		}
	}
}

func (w *walker) field(sc *scope, st *cwdState, n *syntax.Field) {
	if ns, ok := w.namespace(sc, n.X); ok {
		if ns == "env" {
			w.out.name(leash.KindEnvRead, n.Name)
		}
		return
	}
	recv := w.pathOf(sc, n.X)
	w.expr(sc, st, n.X)
	w.member(st, n.Name, recv)
}

// member applies the effects of a field or method by name: path
// filesystem members read, ago/from_now read the clock. recv is the
// receiver's path when known to be one.
func (w *walker) member(st *cwdState, name string, recv *pathVal) {
	switch name {
	case "read", "read_bytes", "exists", "is_dir", "is_file", "modified", "lines", "size":
		switch {
		case recv != nil && recv.known:
			w.out.path(leash.KindFsRead, w.resolve(recv.lit, st))
		case recv != nil && recv.under != "":
			w.out.path(leash.KindFsRead, recv.under)
		case recv != nil || pathOnly(name):
			w.out.path(leash.KindFsRead, Anywhere)
		}
	case "expand":
		if recv == nil {
			w.out.path(leash.KindFsRead, Anywhere)
		}
	case "ago", "from_now":
		w.out.flag(leash.KindTime)
	}
}

// pathOnly names the filesystem members no other receiver has; lines and
// size also exist on strings and records, so an unknown receiver of those
// is not assumed to be a path.
func pathOnly(name string) bool {
	switch name {
	case "read", "read_bytes", "exists", "is_dir", "is_file", "modified":
		return true
	}
	return false
}

func (w *walker) method(sc *scope, st *cwdState, n *syntax.MethodCall) {
	if n.Name == "feed" && len(n.Args) == 1 && n.Args[0] != nil && n.Args[0].Name == "" {
		w.feed(sc, st, n)
		return
	}
	if ns, ok := w.namespace(sc, n.Recv); ok {
		w.flowArgs(sc, st, n.Args)
		w.nsCall(sc, st, ns, n)
		return
	}
	recv := w.pathOf(sc, n.Recv)
	w.expr(sc, st, n.Recv)
	w.flowArgs(sc, st, n.Args)
	if n.Name == "expand" && w.globOf(sc, st, n.Recv) != "" {
		return
	}
	if n.Name == "save" || n.Name == "append" {
		if len(n.Args) > 0 && n.Args[0] != nil {
			w.out.path(leash.KindFsWrite, w.argPath(w.exprArg(sc, n.Args[0].Value), st))
		}
		return
	}
	w.member(st, n.Name, recv)
}

// exprArg converts one expression to an argument.
func (w *walker) exprArg(sc *scope, x syntax.Expr) arg {
	pv := w.staticPath(sc, x)
	return arg{lit: pv.lit, known: pv.known}
}

// nsCall is ns.member(args…) on an unshadowed namespace.
func (w *walker) nsCall(sc *scope, st *cwdState, ns string, n *syntax.MethodCall) {
	switch ns {
	case "http":
		host, port := AnyHost, 0
		if len(n.Args) > 0 && n.Args[0] != nil && n.Args[0].Name == "" {
			host, port = endpoint(n.Args[0].Value)
		}
		w.out.connect(host, port)
	case "os":
		if n.Name == "env" {
			w.out.name(leash.KindEnvRead, AnyName)
		}
	case "env":
		w.out.name(leash.KindEnvRead, AnyName)
	case "secret":
		if n.Name != "get" {
			return
		}
		name := AnyName
		if len(n.Args) == 1 && n.Args[0] != nil {
			if s, ok := literalString(n.Args[0].Value); ok {
				name = s
			}
		}
		w.out.name(leash.KindSecretUse, name)
	}
}

// call is f(args…) (LANGUAGE.md §7.6): the call-style builtins first,
// then a binding, then a command name.
func (w *walker) call(sc *scope, st *cwdState, n *syntax.Call) {
	id, isIdent := n.Fn.(*syntax.Ident)
	if !isIdent {
		w.expr(sc, st, n.Fn)
		w.flowArgs(sc, st, n.Args)
		switch n.Fn.(type) {
		case *syntax.Lambda, *syntax.Call:
			// A lambda is walked where written; a returned closure was
			// walked inside the function that wrote it.
		default:
			w.out.flag(leash.KindOpaque)
		}
		return
	}
	w.flowArgs(sc, st, n.Args)
	args := w.callArgs(sc, n.Args)
	if w.callBuiltin(st, id.Name, args) {
		return
	}
	if b := sc.lookup(id.Name); b != nil {
		switch b.kind {
		case bindFn:
			w.callFn(b)
			if notYetBound(b, sc, id.Span().Start) {
				w.callCommand(st, id.Name, args)
			}
		case bindAlias:
			w.alias(st, b.alias, args)
		}
		return
	}
	if w.sessionBound(sc, id.Name) {
		if w.callable(id.Name) {
			w.out.flag(leash.KindOpaque)
		}
		return
	}
	w.callCommand(st, id.Name, args)
}

// callCommand is a call of an unbound name: a builtin command, or a
// program when one may exist (else it is an undefined-function error).
func (w *walker) callCommand(st *cwdState, name string, args argList) {
	if r, ok := w.rules[name]; ok {
		r.apply(w, st, args)
		return
	}
	if w.mayBeProgram(name) {
		w.external(st, name)
	}
}

// callBuiltin applies the call-style builtins resolved before any binding
// (LANGUAGE.md §7.6–7.7) and reports whether name was one.
func (w *walker) callBuiltin(st *cwdState, name string, args argList) bool {
	pos := args.positional()
	first := func() (arg, bool) {
		if len(pos) == 0 {
			return arg{}, false
		}
		return pos[0], true
	}
	switch name {
	case "now", "today", "every":
		w.out.flag(leash.KindTime)
	case "run":
		w.run(st, args)
	case "save":
		if a, ok := first(); ok {
			w.out.path(leash.KindFsWrite, w.argPath(a, st))
		}
	case "open":
		w.open(st)
	case "glob", "watch", "tail":
		if a, ok := first(); ok {
			if a.known {
				a.glob = leash.HasMeta(a.lit) || strings.Contains(a.lit, "]")
			}
			w.out.path(leash.KindFsRead, w.argPath(a, st))
		}
	case "parallel", "retry", "on", "assert", "path", "regex", "channel":
	default:
		return false
	}
	return true
}

// globOf returns the root effect path of a glob value made in this
// program (glob(…) or a binding of one), or "" when x is not known to be
// one.
func (w *walker) globOf(sc *scope, st *cwdState, x syntax.Expr) string {
	switch n := x.(type) {
	case *syntax.Call:
		id, ok := n.Fn.(*syntax.Ident)
		if !ok || id.Name != "glob" {
			return ""
		}
		if len(n.Args) == 0 || n.Args[0] == nil {
			return Anywhere
		}
		pv := w.staticPath(sc, n.Args[0].Value)
		if !pv.known {
			return Anywhere
		}
		return w.globRoot(pv.lit, st)
	case *syntax.Ident:
		if b := sc.lookup(n.Name); b != nil {
			return b.glob
		}
	}
	return ""
}
