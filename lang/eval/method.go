package eval

import (
	"os"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

func (t *thread) methodCall(sc *scope, n *syntax.MethodCall, stmtPos bool) (value.Value, error) {
	if n.Name == "feed" {
		return t.feed(sc, n, stmtPos)
	}
	if ns, ok := namespaceName(sc, n.Recv); ok {
		pos, named, err := t.args(sc, n.Args)
		if err != nil {
			return nil, err
		}
		return t.namespaceCall(ns, n.Name, pos, named)
	}
	recv, err := t.expr(sc, n.Recv)
	if err != nil {
		return nil, err
	}
	if n.Safe {
		if _, isNull := recv.(value.Null); isNull {
			return value.Null{}, nil
		}
	}
	pos, named, err := t.args(sc, n.Args)
	if err != nil {
		return nil, err
	}
	return t.methodValue(recv, n.Name, pos, named)
}

// methodValue applies a method to an evaluated receiver, raising
// field_missing for unknown methods.
func (t *thread) methodValue(recv value.Value, name string, pos []value.Value, named []lib.Named) (value.Value, error) {
	v, ok, err := t.method(recv, name, pos, named)
	if ok {
		return v, err
	}
	d := diag.New(diag.FieldMissing, "unknown method `.%s` on %s", name, value.TypeName(recv))
	if h := lib.UnknownMethodHint(recv, name); h != "" {
		d.Hint = h
	}
	return nil, d
}

// method is the dispatch order of LANGUAGE.md §8.3 after namespaces and
// ?. have been handled. ok is false when no method of that name exists.
func (t *thread) method(recv value.Value, name string, pos []value.Value, named []lib.Named) (value.Value, bool, error) {
	// Content references resolve before anything else.
	if s, isStr := recv.(value.Str); isStr && strings.HasPrefix(string(s), "val:blake3:") {
		b, err := t.e.loadContent(t, string(s))
		if err != nil {
			return nil, true, err
		}
		recv = b
	}
	switch x := recv.(type) {
	case *value.Record:
		if ch, isCh := channelName(x); isCh {
			if v, ok, err := t.channelMethod(ch, name, pos, named); ok {
				return v, true, err
			}
		}
		if f, has := x.Get(name); has {
			switch f.(type) {
			case *value.Closure, *value.Command:
				v, err := t.callValue(f, pos, named, false)
				return v, true, err
			}
		}
	case *value.Stream:
		switch name {
		case "into", "render", "save", "append":
			v, err := t.streamSink(x, name, pos)
			return v, true, err
		}
	case value.Path:
		if pathMethodName(name) {
			v, err := t.pathMethod(x, name, pos)
			return v, true, err
		}
	case value.Glob:
		switch name {
		case "pattern":
			if err := noArgs(name, pos, named); err != nil {
				return nil, true, err
			}
			return value.Str(x.Pattern), true, nil
		case "expand":
			if err := noArgs(name, pos, named); err != nil {
				return nil, true, err
			}
			v, err := t.e.globList(x)
			return v, true, err
		case "tap", "also", "save", "append", "json", "str", "display":
		default:
			l, err := t.e.globList(x)
			if err != nil {
				return nil, true, err
			}
			return t.method(l, name, pos, named)
		}
	case *value.Outcome:
		switch name {
		case "stdout":
			return &value.Bytes{Data: x.Stdout}, true, noArgs(name, pos, named)
		case "stderr":
			return &value.Bytes{Data: x.Stderr}, true, noArgs(name, pos, named)
		case "tap", "also":
		default:
			out, err := outcomeOut(x)
			if err != nil {
				return nil, true, err
			}
			return t.method(out, name, pos, named)
		}
	case *value.Task:
		if v, ok, err := t.taskMethod(x, name, pos, named); ok {
			return v, true, err
		}
	case *value.Bytes:
		if x.Data == nil && x.Load != nil {
			switch name {
			case "ref":
				return value.Str(x.Ref), true, noArgs(name, pos, named)
			case "load", "bytes":
				data, err := x.Load(t.ctx)
				if err != nil {
					return nil, true, diag.New(diag.IOError, "cannot load %s: %v", x.Ref, err)
				}
				return &value.Bytes{Data: data}, true, nil
			}
			data, err := x.Load(t.ctx)
			if err != nil {
				return nil, true, diag.New(diag.IOError, "cannot load %s: %v", x.Ref, err)
			}
			recv = &value.Bytes{Data: data}
		}
	}
	switch name {
	case "pick":
		return nil, true, diag.New(diag.ArgError, "pick needs an interactive terminal").
			WithHint("filter with .where(…) or .find(…) in scripts")
	case "tap", "also":
		if len(pos) != 1 {
			return nil, true, diag.New(diag.ArgError, "%s requires a function", name)
		}
		if _, err := t.callValue(pos[0], []value.Value{recv}, nil, false); err != nil {
			return nil, true, err
		}
		return recv, true, nil
	case "save", "append":
		v, err := t.saveValue(recv, name == "append", pos, named)
		return v, true, err
	}
	return lib.Method(t.ctx, t, recv, name, pos, named)
}

func noArgs(name string, pos []value.Value, named []lib.Named) error {
	if len(pos) > 0 || len(named) > 0 {
		return diag.New(diag.ArgError, ".%s() takes no arguments", name)
	}
	return nil
}

// saveValue writes v to a file (str/bytes verbatim, others compact JSON)
// and returns v.
func (t *thread) saveValue(v value.Value, appendMode bool, pos []value.Value, named []lib.Named) (value.Value, error) {
	verb := "save"
	if appendMode {
		verb = "append"
	}
	if len(pos) != 1 || len(named) > 0 {
		return nil, diag.New(diag.ArgError, ".%s() requires a path", verb)
	}
	p, err := t.e.pathArg(pos[0])
	if err != nil {
		return nil, err
	}
	data, err := t.serialize(v)
	if err != nil {
		return nil, err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	var pr *prior
	if appendMode {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	} else {
		pr = t.before(p)
	}
	f, err := os.OpenFile(p, flag, 0o644)
	if err != nil {
		return nil, diag.New(diag.Custom, "%s: %v", verb, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return nil, diag.New(diag.Custom, "%s %s: write failed", verb, p)
	}
	t.wrote(pr)
	return v, nil
}

// serialize is the file form of a value: str and bytes verbatim, anything
// else compact JSON.
func (t *thread) serialize(v value.Value) ([]byte, error) {
	switch x := v.(type) {
	case value.Str:
		return []byte(x), nil
	case *value.Bytes:
		if x.Data == nil && x.Load != nil {
			data, err := x.Load(t.ctx)
			if err != nil {
				return nil, diag.New(diag.IOError, "cannot load %s: %v", x.Ref, err)
			}
			return data, nil
		}
		return x.Data, nil
	}
	s, err := toJSON(v)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// pathArg converts a str or path argument to an absolute OS path against
// the session cwd.
func (e *Evaluator) pathArg(v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return e.abs(string(x)), nil
	case value.Path:
		return e.abs(x.P), nil
	}
	return "", diag.New(diag.TypeError, "expected a path, found %s", value.TypeName(v))
}

func (t *thread) collectStream(s *value.Stream) ([]value.Value, error) {
	return lib.Collect(t.ctx, s)
}
