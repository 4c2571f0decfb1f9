package eval

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// child returns an evaluator for a script or module: a fresh root scope,
// its own cwd and a copy of the environment, sharing this session's tasks,
// channels and module cache.
func (e *Evaluator) child(cwd string) *Evaluator {
	c := &Evaluator{opts: e.opts, host: e.host, quiet: e.quiet, cwd: cwd, env: e.Environ(), root: newScope(nil), sess: e.sess}
	return c
}

// loadProgram reads and parses a Shoal file; bound names come from sc.
func loadProgram(path string, bound func(string) bool) (*syntax.Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.New(diag.NotFound, "%s: no such file", path)
		}
		return nil, diag.New(diag.IOError, "cannot read %s: %v", path, unwrapPathErr(err))
	}
	prog, err := parseSource(string(data), &syntax.Options{Bound: bound})
	if err != nil {
		if d := diag.As(err); d != nil {
			c := *d
			c.Code = diag.ParseError
			c.Src = string(data)
			if !strings.Contains(c.Msg, path) {
				c.Msg = filepath.Base(path) + ": " + c.Msg
			}
			return nil, &c
		}
		return nil, err
	}
	return prog, nil
}

// runScript runs a .shl file in a child evaluator with args and script
// bound (§7.8).
func (t *thread) runScript(path string, args []cmdArg) (value.Value, error) {
	var vals []value.Value
	for _, a := range args {
		switch {
		case a.glob != nil:
			for _, m := range a.matches {
				vals = append(vals, value.Path{P: m})
			}
		case a.flag:
			vals = append(vals, value.Str(a.raw))
		default:
			vals = append(vals, a.val)
		}
	}
	return t.runScriptValues(path, vals)
}

func (t *thread) runScriptValues(path string, vals []value.Value) (value.Value, error) {
	c := t.e.child(t.e.Cwd())
	if vals == nil {
		vals = []value.Value{}
	}
	c.root.declare("args", &value.List{Items: vals}, false)
	c.root.declare("script", value.Path{P: path}, false)
	prog, err := loadProgram(path, func(n string) bool { return n == "args" || n == "script" })
	if err != nil {
		return nil, err
	}
	v, err := c.runProgram(t.ctx, prog, Stmt)
	if err != nil {
		err = withSrc(err, prog.Src)
		if x, ok := err.(*ExitError); ok {
			if x.Code == 0 {
				return value.Null{}, nil
			}
			return nil, diag.New(diag.Custom, "script %s exited with status %d", filepath.Base(path), x.Code)
		}
		return nil, err
	}
	return v, nil
}

// run implements run(target, args…) (§9.9).
func (t *thread) run(sc *scope, pos []value.Value, raw []cmdArg) (value.Value, error) {
	if len(pos) == 0 {
		return nil, diag.New(diag.ArgError, "run: expected a target")
	}
	var target string
	switch x := pos[0].(type) {
	case value.Str:
		target = string(x)
	case value.Path:
		target = x.P
	default:
		return nil, diag.New(diag.TypeError, "run: target must be a str or path, found %s", value.TypeName(pos[0]))
	}
	rest := pos[1:]
	full := t.e.abs(expandHome(target, t.e))
	fi, statErr := os.Stat(full)
	ext := strings.TrimPrefix(filepath.Ext(target), ".")
	isScript := strings.Contains(target, "/") || strings.HasPrefix(target, ".") || strings.HasPrefix(target, "~") ||
		(statErr == nil && !fi.IsDir() && runnableExt(ext))
	if !isScript {
		var args []cmdArg
		for _, v := range rest {
			args = append(args, cmdArg{val: v})
		}
		return t.external(target, args, &cmdOpts{scope: sc})
	}
	if ext == "shl" || ext == "" && !hasShebang(full) {
		if statErr != nil {
			return nil, diag.New(diag.NotFound, "run: %s: no such file", target)
		}
		return t.runScriptValues(full, rest)
	}
	argv := t.e.reefRunner(ext)
	if argv != nil {
		argv = append(append([]string(nil), argv...), full)
	}
	switch {
	case argv != nil:
	case ext == "sh":
		argv = []string{"sh", full}
	case ext == "py":
		argv = []string{"python3", full}
	case ext == "js":
		argv = []string{"node", full}
	case ext == "rs":
		argv = []string{"rust-script", full}
	default:
		line := ""
		if statErr == nil {
			line = shebang(full)
		}
		if line == "" {
			return nil, diag.New(diag.RunnerNotFound, "run: no runner for .%s files and no #! line in %s", ext, target)
		}
		argv = append(strings.Fields(line), full)
	}
	var args []cmdArg
	for _, a := range argv[1:] {
		args = append(args, cmdArg{val: value.Str(a)})
	}
	for _, v := range rest {
		args = append(args, cmdArg{val: v})
	}
	return t.external(argv[0], args, &cmdOpts{scope: sc})
}

func runnableExt(ext string) bool {
	switch ext {
	case "shl", "sh", "py", "js", "ts", "rs", "rb", "lua":
		return true
	}
	return false
}

func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	return strings.TrimSpace(line[2:])
}

func hasShebang(path string) bool { return shebang(path) != "" }

// source evaluates a file in the current scope (§7.8).
func (t *thread) source(sc *scope, path string) (value.Value, error) {
	prog, err := loadProgram(path, func(n string) bool {
		b := sc.lookup(n)
		return b != nil && !isCommandLike(b.val)
	})
	if err != nil {
		if d := diag.As(err); d != nil && d.Code == diag.NotFound {
			d.Code = diag.IOError
		}
		return nil, err
	}
	return t.stmts(sc, prog.Stmts, false)
}

// use loads a module once per session and binds its exports (§7.8).
func (t *thread) use(sc *scope, n *syntax.UseStmt) (value.Value, error) {
	target := expandHome(n.Target, t.e)
	base := t.e.abs(target)
	path := base + ".shl"
	if _, err := os.Stat(path); err != nil {
		path = base
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			return nil, diag.New(diag.NotFound, "module %s not found", n.Target)
		}
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".shl")
	s := t.e.sess
	s.mu.Lock()
	if rec, ok := s.modules[path]; ok {
		s.mu.Unlock()
		t.bind(sc, stem, rec, false)
		return value.Null{}, nil
	}
	if s.loading[path] {
		s.mu.Unlock()
		return nil, diag.New(diag.Custom, "circular use of %s", n.Target)
	}
	s.loading[path] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.loading, path)
		s.mu.Unlock()
	}()
	prog, err := loadProgram(path, nil)
	if err != nil {
		return nil, err
	}
	c := t.e.child(filepath.Dir(path))
	if _, err := c.runProgram(t.ctx, prog, Stmt); err != nil {
		return nil, withSrc(err, prog.Src)
	}
	var rb value.RecordBuilder
	for _, name := range c.root.exports {
		if b := c.root.lookupLocal(name); b != nil {
			rb.Add(name, b.val)
		}
	}
	rec := rb.Record()
	s.mu.Lock()
	s.modules[path] = rec
	s.mu.Unlock()
	t.bind(sc, stem, rec, false)
	return value.Null{}, nil
}

// withExpr runs a block with a temporary cwd and environment (§6.8),
// restoring both on every exit path.
func (t *thread) withExpr(sc *scope, n *syntax.With, used bool) (value.Value, error) {
	e := t.e
	e.mu.Lock()
	savedCwd, savedEnv, savedReef := e.cwd, append([]string(nil), e.env...), e.reefOverride
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.cwd, e.env, e.reefOverride = savedCwd, savedEnv, savedReef
		e.mu.Unlock()
	}()
	for _, ent := range n.Entries {
		v, err := t.expr(sc, ent.Value)
		if err != nil {
			return nil, err
		}
		switch ent.Key {
		case "cwd":
			var p string
			switch x := v.(type) {
			case value.Path:
				p = x.P
			case value.Str:
				p = string(x)
			default:
				return nil, diag.New(diag.TypeError, "with cwd: expects a path, found %s", value.TypeName(v))
			}
			p = e.abs(expandHome(p, e))
			e.mu.Lock()
			e.cwd = p
			e.mu.Unlock()
		case "env":
			r, ok := v.(*value.Record)
			if !ok {
				return nil, diag.New(diag.TypeError, "with env: expects a record, found %s", value.TypeName(v))
			}
			for i, k := range r.Keys() {
				var s string
				if sec, isSec := r.Vals[i].(*value.Secret); isSec {
					s = string(sec.Content)
				} else if s, err = argvString(r.Vals[i]); err != nil {
					return nil, err
				}
				e.setenv(k, s)
			}
		case "reef":
			r, ok := v.(*value.Record)
			if !ok {
				return nil, diag.New(diag.TypeError, "with reef: expects a record, found %s", value.TypeName(v))
			}
			over := map[string]string{}
			e.mu.Lock()
			for k, c := range e.reefOverride {
				over[k] = c
			}
			e.mu.Unlock()
			for i, k := range r.Keys() {
				over[k] = value.Display(r.Vals[i])
			}
			e.mu.Lock()
			e.reefOverride = over
			e.mu.Unlock()
		}
	}
	return t.stmts(newScope(sc), n.Body.Stmts, used)
}
