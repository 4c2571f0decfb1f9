package lib

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// goFn is a closure implemented in Go, standing in for Shoal lambdas.
type goFn func(args ...value.Value) (value.Value, error)

// testEnv calls goFn closures; it is the evaluator's stand-in.
type testEnv struct{}

func (testEnv) Call(ctx context.Context, fn value.Value, args ...value.Value) (value.Value, error) {
	c, ok := fn.(*value.Closure)
	if !ok {
		return nil, diag.New(diag.TypeError, "%s is not callable", value.TypeName(fn))
	}
	f, ok := c.Impl.(goFn)
	if !ok {
		return nil, errors.New("test closure without a goFn")
	}
	return f(args...)
}

func fn(f goFn) *value.Closure { return &value.Closure{Impl: f} }

// fn1 wraps a one-argument pure function.
func fn1(f func(x value.Value) value.Value) *value.Closure {
	return fn(func(a ...value.Value) (value.Value, error) { return f(a[0]), nil })
}

// bin wraps a binary operator as a two-argument closure.
func bin(op string) *value.Closure {
	return fn(func(a ...value.Value) (value.Value, error) { return value.Binary(op, a[0], a[1]) })
}

// pred wraps a Go predicate.
func pred(f func(x value.Value) bool) *value.Closure {
	return fn1(func(x value.Value) value.Value { return value.Bool(f(x)) })
}

// field is the `.name` shorthand on records.
func field(name string) *value.Closure {
	return fn(func(a ...value.Value) (value.Value, error) {
		r, ok := a[0].(*value.Record)
		if !ok {
			return nil, diag.New(diag.TypeError, "not a record")
		}
		v, ok := r.Get(name)
		if !ok {
			return nil, diag.New(diag.FieldMissing, "missing field `%s`", name)
		}
		return v, nil
	})
}

func I(n int64) value.Value   { return value.Int(n) }
func F(f float64) value.Value { return value.Float(f) }
func S(s string) value.Value  { return value.Str(s) }
func B(b bool) value.Value    { return value.Bool(b) }

var null = value.Null{}

func L(items ...value.Value) *value.List { return &value.List{Items: items} }

// Rec builds a record from alternating keys and values.
func Rec(kv ...any) *value.Record {
	var b value.RecordBuilder
	for i := 0; i < len(kv); i += 2 {
		b.Add(kv[i].(string), kv[i+1].(value.Value))
	}
	return b.Record()
}

func Tab(rows ...*value.Record) *value.Table { return &value.Table{Rows: rows} }

func Ints(ns ...int64) *value.List {
	l := &value.List{}
	for _, n := range ns {
		l.Items = append(l.Items, value.Int(n))
	}
	return l
}

func Strs(ss ...string) *value.List {
	l := &value.List{}
	for _, s := range ss {
		l.Items = append(l.Items, value.Str(s))
	}
	return l
}

// mcase is one method call and its expected inline rendering, or error
// code (and optional message/hint substring).
type mcase struct {
	name  string // the corpus case it mirrors, when there is one
	recv  value.Value
	meth  string
	args  []value.Value
	named []Named
	want  string
	err   string
	errIn string
}

func args(vs ...value.Value) []value.Value { return vs }

func runMethod(t *testing.T, c mcase) {
	t.Helper()
	v, ok, err := Method(t.Context(), testEnv{}, c.recv, c.meth, c.args, c.named)
	checkResult(t, v, ok || err != nil, err, c.want, c.err, c.errIn)
}

func checkResult(t *testing.T, v value.Value, ok bool, err error, want, code, errIn string) {
	t.Helper()
	if !ok {
		t.Fatalf("method not found")
	}
	if code != "" {
		if err == nil {
			t.Fatalf("got %s, want error %s", value.RenderInline(v), code)
		}
		if got := diag.CodeOf(err); got != code {
			t.Fatalf("got error %v, want code %s", err, code)
		}
		if errIn != "" {
			d := diag.As(err)
			if !strings.Contains(d.Msg, errIn) && !strings.Contains(d.Hint, errIn) {
				t.Fatalf("error %q (hint %q) lacks %q", d.Msg, d.Hint, errIn)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got := value.RenderInline(v); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func runCases(t *testing.T, cases []mcase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %s", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runMethod(t, c)
		})
	}
}

func nan() float64 { var z float64; return z / z }
