package eval

import (
	"slices"
	"time"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// ident resolves a name in expression position (LANGUAGE.md §7.6).
func (t *thread) ident(sc *scope, n *syntax.Ident) (value.Value, error) {
	if b := sc.lookup(n.Name); b != nil {
		return b.val, nil
	}
	switch n.Name {
	case "now":
		return value.Datetime{T: t.e.now()}, nil
	case "today":
		return value.Datetime{T: t.e.today()}, nil
	case ".":
		return nil, diag.New(diag.Custom, "a leading `.` has no receiver here")
	}
	if t.e.isCommandName(n.Name) {
		return t.runHead(sc, n.Name, nil, &cmdOpts{span: n.Span()})
	}
	d := diag.New(diag.UndefinedVar, "undefined variable `%s`", n.Name)
	if h := nearbyName(sc, n.Name); h != "" {
		d.Hint = h
	}
	return nil, d
}

// nearbyName suggests a bound variable close to a misspelt name.
func nearbyName(sc *scope, name string) string {
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for s := sc; s != nil; s = s.parent {
		for _, b := range s.vars {
			if d := editDistance(name, b.name); d <= limit && d < bestD && d < len(name) {
				best, bestD = b.name, d
			}
		}
	}
	if best == "" {
		return ""
	}
	return "did you mean '" + best + "'?"
}

func (e *Evaluator) today() time.Time {
	n := e.now()
	y, m, d := n.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, n.Location())
}

// evalNamespaces are the namespace roots the evaluator implements itself
// (the rest are lang/lib's).
var evalNamespaces = []string{"config", "env", "http", "os", "secret"}

// Namespaces returns every namespace root (evaluator and library), sorted.
func Namespaces() []string {
	names := append(slices.Clone(evalNamespaces), lib.Namespaces()...)
	slices.Sort(names)
	return slices.Compact(names)
}

// namespaceName reports whether x is an unshadowed namespace root.
func namespaceName(sc *scope, x syntax.Expr) (string, bool) {
	id, ok := x.(*syntax.Ident)
	if !ok {
		return "", false
	}
	if !slices.Contains(evalNamespaces, id.Name) && !lib.IsNamespace(id.Name) {
		return "", false
	}
	if sc.lookup(id.Name) != nil {
		return "", false
	}
	return id.Name, true
}

func (t *thread) field(sc *scope, n *syntax.Field) (value.Value, error) {
	if ns, ok := namespaceName(sc, n.X); ok {
		return t.namespaceField(ns, n.Name)
	}
	recv, err := t.expr(sc, n.X)
	if err != nil {
		return nil, err
	}
	if n.Safe {
		if _, isNull := recv.(value.Null); isNull {
			return value.Null{}, nil
		}
	}
	return t.fieldOf(recv, n.Name)
}

// fieldOf reads v.name (LANGUAGE.md §8.1), falling back to a zero-argument
// method for every receiver but a record.
func (t *thread) fieldOf(v value.Value, name string) (value.Value, error) {
	switch x := v.(type) {
	case *value.Record:
		if f, ok := x.Get(name); ok {
			return f, nil
		}
		return nil, diag.New(diag.FieldMissing, "missing field `%s`", name)
	case *value.Outcome:
		return t.outcomeField(x, name)
	case *value.ErrorVal:
		switch name {
		case "code":
			return value.Str(x.Err.Code), nil
		case "msg":
			return value.Str(x.Err.Msg), nil
		case "hint":
			if x.Err.Hint == "" {
				return value.Null{}, nil
			}
			return value.Str(x.Err.Hint), nil
		case "stderr":
			if x.Err.Stderr == nil {
				return value.Null{}, nil
			}
			return value.Str(*x.Err.Stderr), nil
		case "status":
			if x.Err.Status == nil {
				return value.Null{}, nil
			}
			return value.Int(*x.Err.Status), nil
		}
	case value.Datetime:
		switch name {
		case "year":
			return value.Int(x.T.Year()), nil
		case "month":
			return value.Int(x.T.Month()), nil
		case "day":
			return value.Int(x.T.Day()), nil
		case "hour":
			return value.Int(x.T.Hour()), nil
		case "minute":
			return value.Int(x.T.Minute()), nil
		case "second":
			return value.Int(x.T.Second()), nil
		}
	case value.Duration:
		switch name {
		case "ago":
			return value.Datetime{T: t.e.now().Add(-time.Duration(x))}, nil
		case "from_now":
			return value.Datetime{T: t.e.now().Add(time.Duration(x))}, nil
		}
	case value.Glob:
		if name == "pattern" {
			return value.Str(x.Pattern), nil
		}
	case value.Path:
		if pathFieldName(name) {
			return t.pathMethod(x, name, nil)
		}
	}
	// Zero-argument method fallback.
	fv, ok, err := t.method(v, name, nil, nil)
	if ok {
		return fv, err
	}
	return nil, diag.New(diag.FieldMissing, "no field `%s` on %s", name, value.TypeName(v))
}

func (t *thread) outcomeField(o *value.Outcome, name string) (value.Value, error) {
	switch name {
	case "status":
		if o.Status == nil {
			return value.Null{}, nil
		}
		return value.Int(*o.Status), nil
	case "ok":
		return value.Bool(o.OK), nil
	case "signal":
		if o.Signal == "" {
			return value.Null{}, nil
		}
		return value.Str(o.Signal), nil
	case "dur":
		return value.Duration(o.Dur), nil
	case "pid":
		return value.Int(o.Pid), nil
	case "cmd":
		return value.Str(o.Cmd), nil
	case "stdout":
		return &value.Bytes{Data: o.Stdout}, nil
	case "stderr":
		return &value.Bytes{Data: o.Stderr}, nil
	case "out":
		return outcomeOut(o)
	case "err":
		if !o.OK {
			return nil, cmdFailed(o)
		}
		return value.OutcomeErr(o), nil
	}
	out, err := outcomeOut(o)
	if err != nil {
		return nil, err
	}
	return t.fieldOf(out, name)
}

func (t *thread) index(sc *scope, n *syntax.Index) (value.Value, error) {
	recv, err := t.expr(sc, n.X)
	if err != nil {
		return nil, err
	}
	idx, err := t.expr(sc, n.Index)
	if err != nil {
		return nil, err
	}
	return indexValue(recv, idx)
}

// indexValue implements v[i] (LANGUAGE.md §8.2).
func indexValue(recv, idx value.Value) (value.Value, error) {
	switch x := recv.(type) {
	case *value.List:
		if i, ok := idx.(value.Int); ok {
			j := int64(i)
			if j < 0 {
				j += int64(len(x.Items))
			}
			if j < 0 || j >= int64(len(x.Items)) {
				return nil, diag.New(diag.IndexRange, "index %d out of range for list of length %d", int64(i), len(x.Items))
			}
			return x.Items[j], nil
		}
	case value.Str:
		if i, ok := idx.(value.Int); ok {
			n := int64(utf8.RuneCountInString(string(x)))
			j := int64(i)
			if j < 0 {
				j += n
			}
			if j < 0 || j >= n {
				return nil, diag.New(diag.IndexRange, "index %d out of range for string of length %d", int64(i), n)
			}
			k := int64(0)
			for _, r := range string(x) {
				if k == j {
					return value.Str(string(r)), nil
				}
				k++
			}
		}
	case *value.Record:
		if k, ok := idx.(value.Str); ok {
			if f, ok := x.Get(string(k)); ok {
				return f, nil
			}
			return nil, diag.New(diag.FieldMissing, "missing field `%s`", string(k))
		}
	}
	return nil, diag.New(diag.TypeError, "cannot index %s with %s", value.TypeName(recv), value.TypeName(idx))
}
