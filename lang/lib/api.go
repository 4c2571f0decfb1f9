// Package lib is Shoal's standard library of pure value operations: the
// method catalogue of LANGUAGE.md §8.4 for every kind that needs no host
// (collections, strings, records, numbers, bytes, ranges, datetimes), the
// stream combinators and sinks of §12.1, the json/yaml/toml/csv/math
// namespaces of §10, and the unknown-method teaching hints of §11.3.
// It imports lang/value and lang/diag only; the evaluator (lang/eval)
// decides dispatch order and calls in here for the general table.
package lib

import (
	"context"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Env is what library functions need from the evaluator: calling closures
// (map, where, sort_by, reduce, …).
type Env interface {
	value.Caller
}

// Named is a named call argument (f(x: 1)).
type Named struct {
	Name  string
	Value value.Value
}

// Method applies the general method catalogue to recv. ok is false when
// the receiver's kind has no method of that name (the evaluator then raises
// field_missing "unknown method `.name` on <type>" with UnknownMethodHint).
func Method(ctx context.Context, env Env, recv value.Value, name string, args []value.Value, named []Named) (v value.Value, ok bool, err error) {
	return nil, false, nil
}

// HasMethod reports whether kind k has a method called name (used for the
// field → zero-argument method fallback of §8.1).
func HasMethod(k value.Kind, name string) bool { return false }

// UnknownMethodHint returns the §11.3 hint for an unknown method, or "".
func UnknownMethodHint(recv value.Value, name string) string { return "" }

// IsNamespace reports whether name is a library namespace (json yaml toml
// csv math).
func IsNamespace(name string) bool {
	switch name {
	case "json", "yaml", "toml", "csv", "math":
		return true
	}
	return false
}

// NamespaceCall calls ns.member(args…).
func NamespaceCall(ctx context.Context, env Env, ns, member string, args []value.Value, named []Named) (value.Value, error) {
	return nil, diag.New(diag.FieldMissing, "unknown member `%s.%s`", ns, member)
}

// NamespaceField reads ns.member as a field (math constants); functions
// used as fields raise field_missing "… is a function — call it".
func NamespaceField(ns, member string) (value.Value, error) {
	return nil, diag.New(diag.FieldMissing, "unknown member `%s.%s`", ns, member)
}
