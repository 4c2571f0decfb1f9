package lib

import (
	"github.com/shoal-sh/shoal/lang/value"
)

// Record methods (LANGUAGE.md §8.4). Records are not collections: the
// collection names are rejected with a type_error in Method.

func recvRec(c *call) *value.Record { return c.recv.(*value.Record) }

func recNoArg(f func(r *value.Record) value.Value) method {
	return func(c *call) (value.Value, error) {
		if err := c.noArgs(); err != nil {
			return nil, err
		}
		return f(recvRec(c)), nil
	}
}

var (
	recLen     = recNoArg(func(r *value.Record) value.Value { return value.Int(r.Len()) })
	recIsEmpty = recNoArg(func(r *value.Record) value.Value { return value.Bool(r.Len() == 0) })
	recKeys    = recNoArg(func(r *value.Record) value.Value { return strList(r.Keys()) })
	recValues  = recNoArg(func(r *value.Record) value.Value {
		return list(append([]value.Value{}, r.Vals...))
	})
	recItems = recNoArg(func(r *value.Record) value.Value {
		out := make([]value.Value, r.Len())
		for i, k := range r.Keys() {
			out[i] = list([]value.Value{value.Str(k), r.Vals[i]})
		}
		return list(out)
	})
)

// keyArg reads a record key: only a str names a field.
func keyArg(c *call, v value.Value) (string, error) {
	k, ok := v.(value.Str)
	if !ok {
		return "", typeErr("record keys are str, %s got %s", c.name, value.TypeName(v))
	}
	return string(k), nil
}

func recGet(c *call) (value.Value, error) {
	a, err := c.params([]string{"key", "default"}, 1, "a key")
	if err != nil {
		return nil, err
	}
	k, err := keyArg(c, a[0])
	if err != nil {
		return nil, err
	}
	if v, ok := recvRec(c).Get(k); ok {
		return v, nil
	}
	if a[1] == nil {
		return value.Null{}, nil
	}
	return a[1], nil
}

func recSet(c *call) (value.Value, error) {
	a, err := c.params([]string{"key", "value"}, 1, "a key")
	if err != nil {
		return nil, err
	}
	if a[1] == nil {
		return nil, argErr("set requires a key and a value")
	}
	k, err := keyArg(c, a[0])
	if err != nil {
		return nil, err
	}
	return recvRec(c).Set(k, a[1]), nil
}

// recMerge returns a new record: the right side wins, new keys append.
func recMerge(c *call) (value.Value, error) {
	v, err := c.one("other", "a record")
	if err != nil {
		return nil, err
	}
	o, ok := v.(*value.Record)
	if !ok {
		return nil, typeErr("merge expects a record, found %s", value.TypeName(v))
	}
	r := recvRec(c)
	keys := append([]string{}, r.Keys()...)
	vals := append([]value.Value{}, r.Vals...)
	for i, k := range o.Keys() {
		if j := r.Shape.Index(k); j >= 0 {
			vals[j] = o.Vals[i]
			continue
		}
		keys = append(keys, k)
		vals = append(vals, o.Vals[i])
	}
	return value.NewRecord(keys, vals), nil
}

func recContains(c *call) (value.Value, error) {
	v, err := c.one("key", "a key")
	if err != nil {
		return nil, err
	}
	k, err := keyArg(c, v)
	if err != nil {
		return nil, err
	}
	_, ok := recvRec(c).Get(k)
	return value.Bool(ok), nil
}
