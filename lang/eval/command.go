package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// cmdArg is one evaluated command argument.
type cmdArg struct {
	val   value.Value // the argument value (nil for flags without a value)
	flag  bool        // --name / --name=v / -abc
	short bool
	name  string // flag name with - rewritten to _
	raw   string // source spelling for externals
	// glob arguments keep the pattern and its sorted matches.
	glob    *value.Glob
	matches []string
	word    bool // a bare word (coerced to the parameter type)
	endOpts bool // --
}

// cmdOpts carries the parts of a command other than its words.
type cmdOpts struct {
	env      []string // NAME=value prefixes
	redirs   []redir
	stmtPos  bool
	caret    bool
	span     diag.Span
	terminal bool   // run on the host terminal (interact)
	stdin    []byte // .feed data
	scope    *scope // for did-you-mean hints
	hasIn    bool
}

type redir struct {
	op   string
	path string
}

// aliasImpl is the evaluator's side of a value.Command.
type aliasImpl struct {
	cmd *syntax.Command
	sc  *scope
}

func (t *thread) command(sc *scope, n *syntax.Command, stmtPos bool) (value.Value, error) {
	if n.Background {
		fg := *n
		fg.Background = false
		snap := t.e.snapshot(sc)
		return t.spawnFunc(func(ct *thread) (value.Value, error) { return ct.command(snap, &fg, false) }, n.HeadName())
	}
	opts := &cmdOpts{stmtPos: stmtPos, caret: n.Caret, span: n.Span(), scope: sc}
	for _, ea := range n.Env {
		vals, err := t.cmdPart(sc, ea.Value)
		if err != nil {
			return nil, err
		}
		s := ""
		if len(vals) > 0 {
			if vals[0].val != nil {
				if sec, ok := vals[0].val.(*value.Secret); ok {
					s = string(sec.Content)
				} else if s, err = argvString(vals[0].val); err != nil {
					return nil, err
				}
			} else {
				s = vals[0].raw
			}
		}
		opts.env = append(opts.env, ea.Name+"="+s)
	}
	for _, r := range n.Redirs {
		vals, err := t.cmdPart(sc, r.Target)
		if err != nil {
			return nil, err
		}
		if len(vals) != 1 || vals[0].val == nil {
			return nil, diag.New(diag.Custom, "redirection needs exactly one target")
		}
		p, err := argvString(vals[0].val)
		if err != nil {
			return nil, err
		}
		opts.redirs = append(opts.redirs, redir{op: r.Op, path: t.e.abs(expandHome(p, t.e))})
	}
	head := n.HeadName()
	var args []cmdArg
	for _, p := range n.Args {
		vals, err := t.cmdPart(sc, p)
		if err != nil {
			return nil, err
		}
		args = append(args, vals...)
	}
	args = endOfFlags(args)
	if n.Block != nil {
		args = append(args, cmdArg{val: t.makeLambda(sc, &syntax.Lambda{Pos: n.Block.Pos, Body: n.Block})})
	}
	if _, isPath := n.Head.(*syntax.PathWord); isPath {
		return t.runPathHead(sc, head, args, opts)
	}
	if b := sc.lookup(head); b != nil {
		switch f := b.val.(type) {
		case *value.Closure:
			if impl, ok := f.Impl.(*closureImpl); ok {
				return t.formCall(impl, f, args, opts)
			}
		case *value.Command:
			if a, ok := f.Impl.(*aliasImpl); ok {
				return t.runAlias(a, args, opts)
			}
		default:
			if !n.Caret && len(args) == 0 && len(n.Redirs) == 0 && len(n.Env) == 0 {
				return b.val, nil
			}
		}
	}
	return t.runHead(sc, head, args, opts)
}

// cmdPart evaluates one command part; a glob word may yield zero or many
// arguments.
func (t *thread) cmdPart(sc *scope, p syntax.CmdPart) ([]cmdArg, error) {
	switch x := p.(type) {
	case *syntax.Word:
		return []cmdArg{{val: value.Str(x.Text), raw: x.Text, word: true}}, nil
	case *syntax.PathWord:
		pth := expandHome(x.Text, t.e)
		return []cmdArg{{val: value.Path{P: pth}, raw: pth, word: true}}, nil
	case *syntax.GlobWord:
		g := value.Glob{Pattern: expandHome(x.Pattern, t.e), Cwd: t.e.Cwd()}
		m, err := t.e.expandGlob(g)
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			fmt.Fprintf(t.e.opts.Stderr, "shoal: no matches for %s\n", x.Pattern)
		}
		return []cmdArg{{glob: &g, matches: m, raw: x.Pattern, word: true}}, nil
	case *syntax.Flag:
		a := cmdArg{flag: true, name: x.Name, raw: x.Raw, short: x.Short}
		if x.Value != nil {
			vs, err := t.cmdPart(sc, x.Value)
			if err != nil {
				return nil, err
			}
			if len(vs) == 1 {
				a.val = vs[0].val
				if x.EmptyEq || !strings.Contains(x.Raw, "=") {
					s, err := argvString(a.val)
					if err != nil {
						return nil, err
					}
					a.raw = strings.TrimSuffix(x.Raw, "=") + "=" + s
				}
			}
		}
		return []cmdArg{a}, nil
	case *syntax.EndOfFlags:
		return []cmdArg{{val: value.Str("--"), raw: "--", endOpts: true}}, nil
	case *syntax.Dash:
		return []cmdArg{{val: value.Str("-"), raw: "-", word: true}}, nil
	case *syntax.ExprPart:
		v, err := t.expr(sc, x.X)
		if err != nil {
			return nil, err
		}
		_, isStrLit := x.X.(*syntax.StrLit)
		_, isInterp := x.X.(*syntax.InterpStr)
		return []cmdArg{{val: v, word: isStrLit || isInterp}}, nil
	}
	return nil, diag.New(diag.Custom, "unsupported command part %T", p)
}

// endOfFlags turns flags after a `--` into plain words.
func endOfFlags(args []cmdArg) []cmdArg {
	for i, a := range args {
		if !a.endOpts {
			continue
		}
		for j := i + 1; j < len(args); j++ {
			if args[j].flag {
				args[j] = cmdArg{val: value.Str(args[j].raw), raw: args[j].raw, word: true}
			}
		}
		break
	}
	return args
}

// expandHome expands a leading ~ using the session HOME.
func expandHome(p string, e *Evaluator) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, ok := e.getenv("HOME")
	if !ok {
		home, _ = os.UserHomeDir()
	}
	return home + p[1:]
}

// argvStrings converts arguments to external argv (LANGUAGE.md §9.3).
func argvStrings(args []cmdArg) ([]string, error) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a.flag:
			out = append(out, a.raw)
		case a.glob != nil:
			out = append(out, a.matches...)
		default:
			s, err := argvString(a.val)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// formCall calls a function with command-form arguments (LANGUAGE.md §7.3).
func (t *thread) formCall(c *closureImpl, cv *value.Closure, args []cmdArg, opts *cmdOpts) (value.Value, error) {
	var pos []value.Value
	var words []bool
	var named []lib.Named
	paramAt := func(i int) *syntax.Param {
		if i < len(c.params) {
			return c.params[i]
		}
		return nil
	}
	paramNamed := func(name string) *syntax.Param {
		for _, p := range c.params {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
	isList := func(p *syntax.Param) bool {
		return p != nil && p.Type != nil && p.Type.Name == "list"
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.endOpts:
			// `--` only ends flag parsing; it is not an argument.
		case a.flag && !a.short:
			if a.name == "help" && paramNamed("help") == nil {
				fmt.Fprintln(t.e.opts.Stdout, signature(cv, c))
				return value.Null{}, nil
			}
			p := paramNamed(a.name)
			v := a.val
			word := true
			if v == nil {
				if p != nil && p.Type != nil && p.Type.Name != "bool" {
					if i+1 >= len(args) || args[i+1].flag {
						return nil, diag.New(diag.ArgError, "--%s requires a value", a.name)
					}
					i++
					v = args[i].val
					if args[i].glob != nil {
						v = globArgValue(args[i])
					}
				} else {
					v, word = value.Bool(true), false
				}
			}
			if p != nil && p.Type != nil {
				cv, err := coerceParam(v, p.Type, word)
				if err != nil {
					return nil, err
				}
				v = cv
			}
			named = append(named, lib.Named{Name: a.name, Value: v})
		case a.flag:
			pos = append(pos, value.Str(a.raw))
			words = append(words, true)
		case a.glob != nil:
			p := paramAt(len(pos))
			switch {
			case p != nil && p.Type != nil && p.Type.Name == "glob":
				pos = append(pos, *a.glob)
				words = append(words, false)
			case isList(p):
				items := make([]value.Value, len(a.matches))
				for j, m := range a.matches {
					items[j] = value.Path{P: m}
				}
				lv, err := coerceParam(&value.List{Items: items}, p.Type, false)
				if err != nil {
					return nil, err
				}
				pos = append(pos, lv)
				words = append(words, false)
			default:
				for _, m := range a.matches {
					pos = append(pos, value.Path{P: m})
					words = append(words, false)
				}
			}
		default:
			p := paramAt(len(pos))
			v := a.val
			if isList(p) {
				if _, already := v.(*value.List); !already {
					v = &value.List{Items: []value.Value{v}}
				}
				lv, err := coerceParam(v, p.Type, false)
				if err != nil {
					return nil, err
				}
				pos = append(pos, lv)
				words = append(words, false)
				continue
			}
			_, isStr := v.(value.Str)
			pos = append(pos, v)
			words = append(words, isStr)
		}
	}
	return t.callClosure(c, pos, named, words)
}

func globArgValue(a cmdArg) value.Value {
	if len(a.matches) == 1 {
		return value.Path{P: a.matches[0]}
	}
	items := make([]value.Value, len(a.matches))
	for i, m := range a.matches {
		items[i] = value.Path{P: m}
	}
	return &value.List{Items: items}
}

// signature renders a function's synthesized usage for `f --help`.
func signature(cv *value.Closure, c *closureImpl) string {
	var b strings.Builder
	b.WriteString("usage: ")
	b.WriteString(cv.Name)
	for _, p := range c.params {
		ty := "any"
		if p.Type != nil {
			ty = p.Type.Name
		}
		if p.Default != nil {
			fmt.Fprintf(&b, " [--%s <%s>]", p.Name, ty)
		} else {
			fmt.Fprintf(&b, " <%s: %s>", p.Name, ty)
		}
	}
	if c.rest != nil {
		fmt.Fprintf(&b, " [%s...]", c.rest.Name)
	}
	return b.String()
}

// runAlias runs an alias's stored command with extra arguments appended,
// in value position.
func (t *thread) runAlias(a *aliasImpl, extra []cmdArg, opts *cmdOpts) (value.Value, error) {
	for _, x := range extra {
		if x.flag || x.glob != nil {
			continue
		}
		switch x.val.(type) {
		case value.Str, value.Path:
		default:
			return nil, diag.New(diag.TypeError, "%s cannot be appended to an alias", value.TypeName(x.val))
		}
	}
	var args []cmdArg
	for _, p := range a.cmd.Args {
		vals, err := t.cmdPart(a.sc, p)
		if err != nil {
			return nil, err
		}
		args = append(args, vals...)
	}
	args = append(args, extra...)
	o := *opts
	o.stmtPos = false
	for _, ea := range a.cmd.Env {
		vals, err := t.cmdPart(a.sc, ea.Value)
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 {
			s, _ := argvString(vals[0].val)
			o.env = append(o.env, ea.Name+"="+s)
		}
	}
	head := a.cmd.HeadName()
	if _, isPath := a.cmd.Head.(*syntax.PathWord); isPath {
		return t.runPathHead(a.sc, head, args, &o)
	}
	return t.runHead(a.sc, head, args, &o)
}

func (t *thread) callAlias(a *aliasImpl, pos []value.Value, named []lib.Named) (value.Value, error) {
	var extra []cmdArg
	for _, v := range pos {
		extra = append(extra, cmdArg{val: v})
	}
	for _, na := range named {
		s, err := argvString(na.Value)
		if err != nil {
			return nil, err
		}
		extra = append(extra, cmdArg{flag: true, name: na.Name, val: na.Value, raw: "--" + strings.ReplaceAll(na.Name, "_", "-") + "=" + s})
	}
	return t.runAlias(a, extra, &cmdOpts{})
}

// runPathHead runs ./x, /bin/x, ~/x: a Shoal script when it ends in .shl,
// else an external program by path.
func (t *thread) runPathHead(sc *scope, head string, args []cmdArg, opts *cmdOpts) (value.Value, error) {
	p := expandHome(head, t.e)
	if strings.HasSuffix(p, ".shl") {
		return t.runScript(t.e.abs(p), args)
	}
	return t.external(p, args, opts)
}

// isCommandName reports whether name runs something as a command head:
// a builtin or special head, or an executable on the session PATH.
func (e *Evaluator) isCommandName(name string) bool {
	if isBuiltinHead(name) {
		return true
	}
	if strings.ContainsAny(name, "/.") || name == "" {
		return false
	}
	_, ok := e.lookPath(name)
	return ok
}

// lookPath finds an executable on the session PATH.
func (e *Evaluator) lookPath(name string) (string, bool) {
	if strings.Contains(name, "/") {
		p := e.abs(name)
		if isExecutable(p) {
			return p, true
		}
		return "", false
	}
	pathEnv, ok := e.getenv("PATH")
	if !ok {
		// Like POSIX shells, an unset PATH still finds the system tools.
		pathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if !filepath.IsAbs(p) {
			p = e.abs(p)
		}
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// abs resolves p against the session cwd.
func (e *Evaluator) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Cwd(), p)
}

// builtinNames is the one list of builtin command heads (§9.10), sorted
// so did-you-mean ties resolve the same way every time.
var builtinNames = []string{
	"apply", "assert", "cat", "cd", "cp", "dirs", "echo", "env", "exit", "explain", "head",
	"history", "interact", "j", "jobs", "journal", "jump", "ln", "ls", "mkdir", "mv", "open",
	"plan", "popd", "pushd", "pwd", "quit", "reef", "rm", "run", "save", "sleep", "source",
	"stat", "touch", "undo", "which",
}

// BuiltinHeads returns the builtin command heads (§9.10), sorted; the
// caller owns the slice.
func BuiltinHeads() []string {
	return slices.Clone(builtinNames)
}

func isBuiltinHead(name string) bool {
	_, found := slices.BinarySearch(builtinNames, name)
	return found
}

// runHead resolves a head that is not bound in scope (§9.1 steps 4–8).
func (t *thread) runHead(sc *scope, head string, args []cmdArg, opts *cmdOpts) (value.Value, error) {
	if strings.HasSuffix(head, ".shl") {
		return t.runScript(t.e.abs(expandHome(head, t.e)), args)
	}
	if isBuiltinHead(head) {
		if head == "cat" || head == "head" {
			// `cat < f`: a builtin has no stdin, so the file becomes its
			// first path argument.
			for _, r := range opts.redirs {
				if r.op == "<" {
					args = append([]cmdArg{{val: value.Path{P: r.path}}}, args...)
				}
			}
		}
		v, err := t.builtin(sc, head, args, opts)
		if err != nil {
			return nil, err
		}
		return t.redirectBuiltin(v, opts)
	}
	return t.external(head, args, opts)
}

// didYouMean suggests a builtin or callable binding close to name.
func didYouMean(sc *scope, name string) string {
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	try := func(c string) {
		d := editDistance(name, c)
		if d <= limit && d < bestD && d < len(name) {
			best, bestD = c, d
		}
	}
	for _, h := range builtinNames {
		try(h)
	}
	for s := sc; s != nil; s = s.parent {
		for _, b := range s.vars {
			if isCommandLike(b.val) {
				try(b.name)
			}
		}
	}
	if best == "" {
		return ""
	}
	return "did you mean '" + best + "'?"
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
