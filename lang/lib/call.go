package lib

import (
	"context"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// call is one method invocation: the receiver and the arguments, with the
// argument checks every method shares, so arity and count errors read the
// same everywhere.
type call struct {
	ctx   context.Context
	env   Env
	recv  value.Value
	name  string
	args  []value.Value
	named []Named
	// arg1 is the argument slice of one-argument callbacks, reused from
	// call to call (Env.Call must not retain it), so that .where(p) over
	// a million rows does not allocate a slice per row.
	arg1 [1]value.Value
	// field is the [FieldFunc] form of the last callback apply1 saw.
	field fieldCache
}

// fieldCache remembers a callback's [FieldFunc] form and where its field
// sits in the last record shape seen (rows of a table share one shape).
type fieldCache struct {
	fn    *value.Closure
	name  string // "" when fn has no field form
	apply func(value.Value) (value.Value, error)
	shape *value.Shape
	at    int
}

// fieldOf returns the [FieldFunc] form of the callback f, or nil (also
// without an evaluator, so the call reports that as it always has).
func (c *call) fieldOf(f value.Value) *fieldCache {
	cl, ok := f.(*value.Closure)
	if !ok || c.env == nil {
		return nil
	}
	fc := &c.field
	if fc.fn != cl {
		*fc = fieldCache{fn: cl}
		if ff, ok := cl.Impl.(FieldFunc); ok {
			fc.name, fc.apply = ff.FieldFunc()
		}
	}
	if fc.name == "" {
		return nil
	}
	return fc
}

// read returns the field's value when x is a record that has the field;
// fc may be nil (no field form: always false).
func (fc *fieldCache) read(x value.Value) (value.Value, bool) {
	if fc == nil {
		return nil, false
	}
	r, ok := x.(*value.Record)
	if !ok {
		return nil, false
	}
	return fc.lookup(r)
}

// result is the callback's result for the field's value v.
func (fc *fieldCache) result(v value.Value) (value.Value, error) {
	if fc.apply == nil {
		return v, nil
	}
	return fc.apply(v)
}

// lookup returns the field's value in r, or false when r lacks it.
func (fc *fieldCache) lookup(r *value.Record) (value.Value, bool) {
	if r.Shape != fc.shape {
		fc.shape, fc.at = r.Shape, r.Shape.Index(fc.name)
	}
	if fc.at < 0 || fc.at >= len(r.Vals) {
		return nil, false
	}
	return r.Vals[fc.at], true
}

// method implements one catalogue entry.
type method func(c *call) (value.Value, error)

// noArgs rejects any argument: no-argument methods are strict (§8.3).
func (c *call) noArgs() error {
	if len(c.args) > 0 || len(c.named) > 0 {
		return diag.New(diag.ArgError, "%s takes no arguments", c.name)
	}
	return nil
}

// params binds the call's positional and named arguments to the method's
// parameter names, the way function calls bind (§7.2): a named argument
// takes its parameter, otherwise the next positional one. min is the
// number of required parameters; a missing one is reported with need,
// the teaching phrase ("a prefix", "a separator").
func (c *call) params(names []string, min int, need string) ([]value.Value, error) {
	if len(c.args) > len(names) {
		return nil, diag.New(diag.ArgError, "%s expects at most %d argument(s), got %d", c.name, len(names), len(c.args))
	}
	out := make([]value.Value, len(names))
	copy(out, c.args)
	for _, n := range c.named {
		i := indexOf(names, n.Name)
		if i < 0 {
			return nil, diag.New(diag.ArgError, "unknown argument `%s` for %s", n.Name, c.name)
		}
		if i < len(c.args) {
			return nil, diag.New(diag.ArgError, "argument `%s` given twice", n.Name)
		}
		out[i] = n.Value
	}
	for i := 0; i < min; i++ {
		if out[i] == nil {
			if need != "" {
				return nil, diag.New(diag.ArgError, "%s requires %s", c.name, need)
			}
			return nil, diag.New(diag.ArgError, "missing argument `%s` for %s", names[i], c.name)
		}
	}
	return out, nil
}

// one binds a single required argument.
func (c *call) one(param, need string) (value.Value, error) {
	a, err := c.params([]string{param}, 1, need)
	if err != nil {
		return nil, err
	}
	return a[0], nil
}

// fn binds a single required callable argument.
func (c *call) fn() (value.Value, error) {
	return c.one("f", "a function")
}

// apply calls f through the evaluator.
func (c *call) apply(f value.Value, args ...value.Value) (value.Value, error) {
	if c.env == nil {
		return nil, noEnvErr()
	}
	return c.env.Call(c.ctx, f, args...)
}

// apply1 calls f with the single argument x.
func (c *call) apply1(f, x value.Value) (value.Value, error) {
	if c.env == nil {
		return nil, noEnvErr()
	}
	if v, ok := c.fieldOf(f).read(x); ok {
		return c.field.result(v)
	}
	c.arg1[0] = x
	r, err := c.env.Call(c.ctx, f, c.arg1[:]...)
	c.arg1[0] = nil
	return r, err
}

// test calls the predicate p and reads its result as a condition: only a
// bool or an outcome decides (§5.4).
func (c *call) test(p, x value.Value) (bool, error) {
	r, err := c.apply1(p, x)
	if err != nil {
		return false, err
	}
	return value.Cond(r)
}

// count reads a count argument: a non-negative int.
func count(v value.Value) (int, error) {
	if i, ok := v.(value.Int); ok && i >= 0 {
		if int64(i) > int64(maxInt) {
			return maxInt, nil
		}
		return int(i), nil
	}
	return 0, diag.New(diag.TypeError, "expected non-negative int, found %s", value.RenderInline(v))
}

const maxInt = int(^uint(0) >> 1)

// str reads a str argument.
func str(v value.Value, what string) (string, error) {
	if s, ok := v.(value.Str); ok {
		return string(s), nil
	}
	return "", diag.New(diag.TypeError, "%s must be a str, found %s", what, value.TypeName(v))
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func typeErr(format string, args ...any) error { return diag.New(diag.TypeError, format, args...) }
func argErr(format string, args ...any) error  { return diag.New(diag.ArgError, format, args...) }

// list wraps items as a list value.
func list(items []value.Value) value.Value { return &value.List{Items: items} }

// strList converts Go strings to a list of str.
func strList(ss []string) value.Value {
	items := make([]value.Value, len(ss))
	for i, s := range ss {
		items[i] = value.Str(s)
	}
	return list(items)
}

// noEnvErr reports a callback method called without an evaluator.
func noEnvErr() error {
	return diag.New(diag.TypeError, "cannot call a function here: no evaluator")
}
