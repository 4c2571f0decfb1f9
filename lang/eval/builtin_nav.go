package eval

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/value"
)

// builtin runs a builtin or special head (§9.10). Structured builtins
// return an outcome; pwd, dirs, cd, pushd and popd return bare values.
func (t *thread) builtin(sc *scope, head string, args []cmdArg, opts *cmdOpts) (value.Value, error) {
	b := parseBargs(args)
	switch head {
	case "ls", "stat", "cat", "head", "mkdir", "touch", "cp", "mv", "rm", "ln":
		out, err := t.builtinFS(head, b)
		if err != nil {
			return nil, err
		}
		return okOutcome(head, out), nil
	case "echo":
		// echo has no options: flags are echoed as written.
		var words []string
		for _, a := range args {
			if a.glob != nil {
				for _, m := range a.matches {
					words = append(words, m)
				}
				continue
			}
			if a.flag {
				words = append(words, a.raw)
				continue
			}
			words = append(words, value.Display(a.val))
		}
		return okOutcome(head, value.Str(strings.Join(words, " "))), nil
	case "env":
		if len(b.pos) > 1 {
			return nil, diag.New(diag.ArgError, "env: expected at most one name")
		}
		if len(b.pos) == 1 {
			name := value.Display(b.pos[0])
			if v, ok := t.e.getenv(name); ok {
				return okOutcome(head, value.Str(v)), nil
			}
			return okOutcome(head, value.Null{}), nil
		}
		return okOutcome(head, t.e.envRecord()), nil
	case "sleep":
		if len(b.pos) != 1 {
			return nil, diag.New(diag.ArgError, "sleep: expected one duration")
		}
		var d time.Duration
		switch x := b.pos[0].(type) {
		case value.Duration:
			d = time.Duration(x)
		case value.Int:
			d = time.Duration(x) * time.Second
		case value.Str:
			pd, err := value.ParseDuration(string(x), true)
			if err != nil {
				return nil, diag.New(diag.TypeError, "sleep: expected a duration, found %s", value.RenderInline(x))
			}
			d = time.Duration(pd)
		default:
			return nil, diag.New(diag.TypeError, "sleep: expected a duration, found %s", value.TypeName(x))
		}
		if d < 0 {
			return nil, diag.New(diag.TypeError, "sleep: duration cannot be negative")
		}
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.ctx.Done():
			return nil, diag.New(diag.Cancelled, "cancelled")
		}
		return okOutcome(head, value.Null{}), nil
	case "pwd":
		return value.Path{P: t.e.Cwd()}, nil
	case "dirs":
		return t.e.dirStack(), nil
	case "cd", "pushd", "popd", "j", "jump":
		if t.inFn > 0 {
			return nil, diag.New(diag.Custom, "`%s` is only allowed at the top level, not inside a function", head).
				WithHint("use `with cwd: … { … }` to run code in another directory")
		}
		return t.navigate(head, b)
	case "exit", "quit":
		code := 0
		if len(b.pos) > 1 {
			return nil, diag.New(diag.ArgError, "%s: expected at most one status", head)
		}
		if len(b.pos) == 1 {
			switch x := b.pos[0].(type) {
			case value.Int:
				code = int(x)
			case value.Str:
				c, err := coerceWord(string(x), "int")
				if err != nil {
					return nil, diag.New(diag.ArgError, "%s: expected an int status, found %s", head, value.RenderInline(x))
				}
				code = int(c.(value.Int))
			default:
				return nil, diag.New(diag.ArgError, "%s: expected an int status, found %s", head, value.TypeName(x))
			}
		}
		return nil, &exitSignal{code: code}
	case "jobs":
		return okOutcome(head, t.e.sess.jobsTable()), nil
	case "assert", "save", "open", "run":
		var pos []value.Value
		var named []lib.Named
		for _, a := range args {
			switch {
			case a.flag && a.val != nil:
				named = append(named, lib.Named{Name: a.name, Value: a.val})
			case a.flag:
				pos = append(pos, value.Str(a.raw))
			case a.glob != nil:
				for _, m := range a.matches {
					pos = append(pos, value.Path{P: m})
				}
			default:
				pos = append(pos, a.val)
			}
		}
		if head == "run" {
			return t.run(sc, pos, args)
		}
		v, err := t.callBuiltin(sc, head, pos, named)
		if err != nil {
			return nil, err
		}
		return okOutcome(head, v), nil
	case "source":
		if len(b.pos) != 1 {
			return nil, diag.New(diag.ArgError, "source: expected one file")
		}
		p, err := t.pathOf(head, b.pos[0])
		if err != nil {
			return nil, err
		}
		return t.source(sc, p)
	case "which":
		return t.which(b)
	case "reef":
		return t.reef(b)
	case "undo", "journal", "history", "plan", "apply", "explain":
		if t.e.host.Journal != nil {
			argv, err := argvStrings(args)
			if err != nil {
				return nil, err
			}
			v, err := t.e.host.Journal(t.ctx, head, argv)
			if err != nil {
				return nil, err
			}
			return okOutcome(head, v), nil
		}
	}
	switch head {
	case "undo":
		return nil, diag.New(diag.NotFound, "undo: no journal in this session")
	case "journal", "history":
		return okOutcome(head, &value.Table{Rows: []*value.Record{}}), nil
	case "plan", "explain":
		return okOutcome(head, value.NewRecord([]string{"id", "effects", "reversible", "spawns"},
			[]value.Value{value.Null{}, &value.List{Items: []value.Value{}}, value.Bool(true), &value.List{Items: []value.Value{}}})), nil
	case "apply":
		return nil, diag.New(diag.NotFound, "apply: unknown plan id")
	case "interact":
		if len(args) == 0 {
			return nil, diag.New(diag.ArgError, "interact: expected a command")
		}
		h, err := argvString(args[0].val)
		if err != nil {
			return nil, err
		}
		o := *opts
		o.terminal = true
		return t.external(h, args[1:], &o)
	}
	return nil, diag.New(diag.NotFound, "%s: command not found", head)
}

func (e *Evaluator) envRecord() *value.Record {
	env := e.Environ()
	var rb value.RecordBuilder
	for _, kv := range env {
		if i := strings.IndexByte(kv, '='); i > 0 {
			rb.Add(kv[:i], value.Str(kv[i+1:]))
		}
	}
	return rb.Record()
}

func (e *Evaluator) dirStack() value.Value {
	e.mu.Lock()
	defer e.mu.Unlock()
	items := []value.Value{value.Path{P: e.cwd}}
	for i := len(e.dirs) - 1; i >= 0; i-- {
		items = append(items, value.Path{P: e.dirs[i]})
	}
	return &value.List{Items: items}
}

// chdir changes the session cwd (never the process's).
func (e *Evaluator) chdir(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return diag.New(diag.Custom, "cd: %s: %v", p, unwrapPathErr(err))
	}
	if !fi.IsDir() {
		return diag.New(diag.Custom, "cd: %s: not a directory", p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	e.mu.Lock()
	old := e.cwd
	e.oldpwd, e.cwd = old, p
	e.mu.Unlock()
	e.setenv("OLDPWD", old)
	e.setenv("PWD", p)
	return nil
}

func (t *thread) navigate(head string, b *bargs) (value.Value, error) {
	e := t.e
	switch head {
	case "cd":
		if len(b.pos) > 1 {
			return nil, diag.New(diag.ArgError, "cd: expected at most one directory")
		}
		if len(b.pos) == 0 {
			home, ok := e.getenv("HOME")
			if !ok {
				return nil, diag.New(diag.Custom, "cd: HOME not set")
			}
			if err := e.chdir(home); err != nil {
				return nil, err
			}
			return value.Path{P: e.Cwd()}, nil
		}
		if s, ok := b.pos[0].(value.Str); ok && s == "-" {
			e.mu.Lock()
			old := e.oldpwd
			e.mu.Unlock()
			if old == "" {
				return nil, diag.New(diag.Custom, "cd: OLDPWD not set")
			}
			// cd - restores the exact previous path, without resolving it.
			e.mu.Lock()
			prev := e.cwd
			e.oldpwd, e.cwd = prev, old
			e.mu.Unlock()
			e.setenv("OLDPWD", prev)
			e.setenv("PWD", old)
			return value.Path{P: old}, nil
		}
		p, err := t.pathOf("cd", b.pos[0])
		if err != nil {
			return nil, err
		}
		if err := e.chdir(p); err != nil {
			return nil, err
		}
		return value.Path{P: e.Cwd()}, nil
	case "pushd":
		if len(b.pos) == 0 {
			e.mu.Lock()
			if len(e.dirs) == 0 {
				e.mu.Unlock()
				return nil, diag.New(diag.Custom, "pushd: no other directory to swap with (the stack is empty)")
			}
			top := e.dirs[len(e.dirs)-1]
			e.dirs[len(e.dirs)-1] = e.cwd
			e.oldpwd, e.cwd = e.cwd, top
			e.mu.Unlock()
			return e.dirStack(), nil
		}
		p, err := t.pathOf("pushd", b.pos[0])
		if err != nil {
			return nil, err
		}
		prev := e.Cwd()
		if err := e.chdir(p); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.dirs = append(e.dirs, prev)
		e.mu.Unlock()
		return e.dirStack(), nil
	case "popd":
		e.mu.Lock()
		if len(e.dirs) == 0 {
			e.mu.Unlock()
			return nil, diag.New(diag.Custom, "popd: directory stack empty")
		}
		top := e.dirs[len(e.dirs)-1]
		e.dirs = e.dirs[:len(e.dirs)-1]
		e.oldpwd, e.cwd = e.cwd, top
		e.mu.Unlock()
		return e.dirStack(), nil
	}
	// j / jump: frecency needs a journal; with none, a query naming an
	// existing directory still works.
	if len(b.pos) > 1 {
		return nil, diag.New(diag.ArgError, "%s: at most one query", head)
	}
	if len(b.pos) == 0 {
		return value.Path{P: e.Cwd()}, nil
	}
	p, err := t.pathOf(head, b.pos[0])
	if err != nil {
		return nil, err
	}
	if err := e.chdir(p); err != nil {
		return nil, diag.New(diag.NotFound, "%s: no match for %s", head, value.Display(b.pos[0]))
	}
	return value.Path{P: e.Cwd()}, nil
}
