package eval

import (
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/value"
)

// callBuiltin runs the call-style builtins resolved before user bindings
// (LANGUAGE.md §7.6–7.7).
func (t *thread) callBuiltin(sc *scope, name string, pos []value.Value, named []lib.Named) (value.Value, error) {
	namedArg := func(n string) (value.Value, bool) {
		for _, a := range named {
			if a.Name == n {
				return a.Value, true
			}
		}
		return nil, false
	}
	switch name {
	case "now", "today":
		if len(pos) > 0 || len(named) > 0 {
			return nil, diag.New(diag.ArgError, "%s() takes no arguments", name)
		}
		if name == "now" {
			return value.Datetime{T: t.e.now()}, nil
		}
		return value.Datetime{T: t.e.today()}, nil
	case "path":
		if len(pos) != 1 || len(named) > 0 {
			return nil, diag.New(diag.ArgError, "path() expects one argument, got %d", len(pos)+len(named))
		}
		switch x := pos[0].(type) {
		case value.Str:
			return value.Path{P: string(x)}, nil
		case value.Path:
			return x, nil
		}
		return nil, diag.New(diag.TypeError, "path() expects a str or path, found %s", value.TypeName(pos[0]))
	case "regex":
		if len(pos) != 1 {
			return nil, diag.New(diag.ArgError, "regex() expects one argument")
		}
		s, ok := pos[0].(value.Str)
		if !ok {
			return nil, diag.New(diag.TypeError, "regex() expects a str, found %s", value.TypeName(pos[0]))
		}
		re, err := regexp.Compile(string(s))
		if err != nil {
			return nil, diag.New(diag.ArgError, "invalid regex: %v", err)
		}
		return value.Regex{Src: string(s), Re: re}, nil
	case "glob":
		if len(pos) != 1 {
			return nil, diag.New(diag.ArgError, "glob() expects one pattern")
		}
		var pat string
		switch x := pos[0].(type) {
		case value.Str:
			pat = string(x)
		case value.Path:
			pat = x.P
		case value.Glob:
			pat = x.Pattern
		default:
			return nil, diag.New(diag.TypeError, "glob() expects a str, found %s", value.TypeName(pos[0]))
		}
		g := value.Glob{Pattern: expandHome(pat, t.e), Cwd: t.e.Cwd()}
		if h, ok := namedArg("hidden"); ok {
			b, isBool := h.(value.Bool)
			if !isBool {
				return nil, diag.New(diag.TypeError, "glob(hidden:) expects a bool")
			}
			g.Hidden = bool(b)
		}
		return g, nil
	case "assert":
		if len(named) > 0 || len(pos) == 0 || len(pos) > 2 {
			return nil, diag.New(diag.ArgError, "assert expects a condition and an optional message")
		}
		ok, err := cond(pos[0])
		if err != nil {
			return nil, err
		}
		msg := "assertion failed"
		if len(pos) == 2 {
			s, isStr := pos[1].(value.Str)
			if !isStr {
				return nil, diag.New(diag.TypeError, "assert message must be a str, found %s", value.TypeName(pos[1]))
			}
			msg = string(s)
		}
		if !ok {
			return nil, diag.New(diag.AssertFailed, "%s", msg)
		}
		return value.Null{}, nil
	case "save":
		if len(pos) != 2 {
			return nil, diag.New(diag.ArgError, "save expects a path and a value")
		}
		return t.saveValue(pos[1], false, pos[:1], nil)
	case "open":
		if len(pos) != 1 {
			return nil, diag.New(diag.ArgError, "open expects one path")
		}
		p, err := t.e.pathArg(pos[0])
		if err != nil {
			return nil, err
		}
		opener, ok := t.e.lookPath("xdg-open")
		if !ok {
			return nil, diag.New(diag.NotFound, "open: no desktop opener (xdg-open) on PATH")
		}
		cmd := exec.Command(opener, p) // detached: it outlives the statement
		cmd.Dir = t.e.Cwd()
		cmd.Env = t.e.Environ()
		if t.e.host.WrapCmd != nil {
			if err := t.e.host.WrapCmd(t.ctx, cmd); err != nil {
				return nil, err
			}
		}
		if err := t.e.startCmd(t.ctx, cmd); err != nil {
			return nil, diag.New(diag.IOError, "open: %v", err)
		}
		go cmd.Wait() // the opener detaches; reap it whenever it exits
		return value.Null{}, nil
	case "run":
		return t.run(sc, pos, nil)
	case "retry":
		return t.retry(pos, named)
	case "parallel":
		return t.parallel(pos, named)
	case "channel":
		if len(pos) != 1 {
			return nil, diag.New(diag.ArgError, "channel() expects a name")
		}
		s, ok := pos[0].(value.Str)
		if !ok {
			return nil, diag.New(diag.TypeError, "channel name must be a str, found %s", value.TypeName(pos[0]))
		}
		return value.NewRecord([]string{"channel"}, []value.Value{s}), nil
	case "on":
		if len(pos) != 2 {
			return nil, diag.New(diag.ArgError, "on() expects a channel and a handler")
		}
		r, ok := pos[0].(*value.Record)
		ch, isCh := "", false
		if ok {
			ch, isCh = channelName(r)
		}
		if !isCh {
			return nil, diag.New(diag.TypeError, "on() expects a channel, found %s", value.TypeName(pos[0]))
		}
		return t.on(ch, pos[1])
	case "every":
		if len(pos) != 1 {
			return nil, diag.New(diag.ArgError, "every() expects a duration")
		}
		d, ok := pos[0].(value.Duration)
		if !ok || d <= 0 {
			return nil, diag.New(diag.TypeError, "every() expects a positive duration")
		}
		return value.NewStream("datetime", &everySource{e: t.e, d: time.Duration(d)}), nil
	case "tail":
		return t.tailStream(pos, named)
	case "watch":
		return t.watchStream(pos, named)
	}
	return nil, diag.New(diag.UndefinedVar, "undefined function `%s`", name)
}

// retry calls a thunk up to n times until it succeeds.
func (t *thread) retry(pos []value.Value, named []lib.Named) (value.Value, error) {
	if len(pos) != 2 {
		return nil, diag.New(diag.ArgError, "retry expects a count and a thunk")
	}
	n, ok := pos[0].(value.Int)
	if !ok {
		return nil, diag.New(diag.TypeError, "retry count must be an int, found %s", value.TypeName(pos[0]))
	}
	if n <= 0 {
		return nil, diag.New(diag.ArgError, "retry count must be positive, got %d", int64(n))
	}
	var delay time.Duration
	for _, a := range named {
		if a.Name != "delay" {
			return nil, diag.New(diag.ArgError, "unknown argument `%s`", a.Name)
		}
		d, ok := a.Value.(value.Duration)
		if !ok {
			return nil, diag.New(diag.TypeError, "retry delay must be a duration")
		}
		delay = time.Duration(d)
	}
	var last error
	for i := int64(0); i < int64(n); i++ {
		if i > 0 && delay > 0 {
			select {
			case <-time.After(delay):
			case <-t.ctx.Done():
				return nil, diag.New(diag.Cancelled, "cancelled")
			}
		}
		v, err := t.callValue(pos[1], nil, nil, false)
		if err == nil {
			if o, isOut := v.(*value.Outcome); isOut && !o.OK {
				last = cmdFailed(o)
				continue
			}
			return v, nil
		}
		if _, ok := t.catchable(err); !ok {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// parallel runs thunks concurrently, each on its own thread.
func (t *thread) parallel(pos []value.Value, named []lib.Named) (value.Value, error) {
	settle := false
	for _, a := range named {
		if a.Name != "settle" {
			return nil, diag.New(diag.ArgError, "unknown argument `%s`", a.Name)
		}
		b, ok := a.Value.(value.Bool)
		if !ok {
			return nil, diag.New(diag.TypeError, "settle must be a bool")
		}
		settle = bool(b)
	}
	thunks := pos
	if len(pos) == 1 {
		if l, ok := pos[0].(*value.List); ok {
			thunks = l.Items
		}
	}
	res := make([]value.Value, len(thunks))
	errs := make([]error, len(thunks))
	var wg sync.WaitGroup
	for i, th := range thunks {
		// Thunks run at the same time: each gets its own copy of the
		// scope it captured, so they cannot race on shared bindings.
		th := t.e.isolate(th)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = diag.New(diag.Custom, "internal error: %v", r)
				}
			}()
			ct := &thread{e: t.e, ctx: t.ctx, depth: t.depth, inFn: t.inFn, task: t.task}
			res[i], errs[i] = ct.callValue(th, nil, nil, false)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		d, ok := t.catchable(err)
		if !settle || !ok {
			return nil, err
		}
		res[i] = &value.ErrorVal{Err: d}
	}
	return &value.List{Items: res}, nil
}
