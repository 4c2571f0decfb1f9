package lib

import (
	"context"
	"slices"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Env is what library functions need from the evaluator: calling closures
// (map, where, sort_by, reduce, …). Call must not retain its args slice
// after returning: methods reuse one slice for every element.
type Env interface {
	value.Caller
}

// FieldFunc is an optional side of a closure's Impl: the closure, called
// with a record that has the field, reads that field and returns
// apply(value) (apply nil meaning the value itself), with no other effect.
// The evaluator offers it for dot-lambdas such as .name and .size > 500kb
// (LANGUAGE.md §6.7). Collection methods then find the field once per
// record shape instead of calling the closure per element; any other
// element goes through Env.Call, so results and errors stay the closure's.
type FieldFunc interface {
	FieldFunc() (field string, apply func(value.Value) (value.Value, error))
}

// Named is a named call argument (f(x: 1)).
type Named struct {
	Name  string
	Value value.Value
}

// Method applies the general method catalogue to recv. ok is false when
// the receiver's kind has no method of that name (the evaluator then raises
// field_missing "unknown method `.name` on <type>" with UnknownMethodHint).
//
// Methods the evaluator implements itself (path filesystem methods, tap,
// save, feed, task control, …) are known to the catalogue, so HasMethod
// and the hints see them, but Method answers ok=false for them. A method
// of another kind (`5.len()`, `{a: 1}.first()`, bytes.upper()) is a
// type_error rather than an unknown method. On a stream, any method that
// is not a combinator or sink collects the (bounded) stream and applies
// the list method.
func Method(ctx context.Context, env Env, recv value.Value, name string, args []value.Value, named []Named) (v value.Value, ok bool, err error) {
	if recv == nil {
		recv = value.Null{}
	}
	k := recv.Kind()
	fn, found := lookup(k, name)
	if !found {
		if generalName(name) {
			return nil, true, rejectMethod(recv, name)
		}
		return nil, false, nil
	}
	if fn == nil {
		return nil, false, nil
	}
	if !receiverFits(recv) {
		// A kind whose Go representation the catalogue does not expect
		// (a foreign Value implementation) is not ours to answer.
		return nil, false, nil
	}
	c := &call{ctx: ctx, env: env, recv: recv, name: name, args: args, named: named}
	if s, isStream := recv.(*value.Stream); isStream && !isStreamOwn(name) {
		items, err := collectStream(ctx, s)
		if err != nil {
			return nil, true, err
		}
		c.recv = list(items)
	}
	v, err = fn(c)
	return v, true, err
}

// HasMethod reports whether kind k has a method called name (used for the
// field → zero-argument method fallback of §8.1).
func HasMethod(k value.Kind, name string) bool {
	_, found := lookup(k, name)
	return found
}

// UnknownMethodHint returns the §11.3 hint for an unknown method, or "".
func UnknownMethodHint(recv value.Value, name string) string {
	if recv == nil {
		recv = value.Null{}
	}
	return hintFor(recv.Kind(), name)
}

// IsNamespace reports whether name is a library namespace (json yaml toml
// csv math).
func IsNamespace(name string) bool {
	_, ok := namespaces[name]
	return ok
}

// Namespaces returns the library's namespace names, sorted.
func Namespaces() []string {
	names := make([]string, 0, len(namespaces))
	for n := range namespaces {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NamespaceCall calls ns.member(args…). An unknown member, and a math
// constant called like a function, is field_missing.
func NamespaceCall(ctx context.Context, env Env, ns, member string, args []value.Value, named []Named) (value.Value, error) {
	members, ok := namespaces[ns]
	if !ok {
		return nil, diag.New(diag.FieldMissing, "unknown namespace `%s`", ns)
	}
	fn, ok := members[member]
	if !ok {
		if _, isConst := nsConstants[ns][member]; isConst {
			return nil, diag.New(diag.FieldMissing, "`%s.%s` is a constant, not a function", ns, member).
				WithHint("read it without parentheses: " + ns + "." + member)
		}
		return nil, unknownMember(ns, member)
	}
	c := &call{ctx: ctx, env: env, name: ns + "." + member, args: args, named: named}
	return fn(c)
}

// NamespaceField reads ns.member as a field (math constants); functions
// used as fields raise field_missing "… is a function — call it".
func NamespaceField(ns, member string) (value.Value, error) {
	if v, ok := nsConstants[ns][member]; ok {
		return v, nil
	}
	if _, ok := namespaces[ns][member]; ok {
		return nil, diag.New(diag.FieldMissing, "`%s.%s` is a function — call it", ns, member).
			WithHint(ns + "." + member + "(…)")
	}
	return nil, unknownMember(ns, member)
}

func unknownMember(ns, member string) error {
	return diag.New(diag.FieldMissing, "unknown member `%s.%s`", ns, member)
}
