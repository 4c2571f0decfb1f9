// Package lib is Shoal's standard library of pure value operations: the
// method catalogue of LANGUAGE.md §8.4 for every kind that needs no host
// (collections, strings, records, numbers, bytes, ranges, datetimes), the
// stream combinators and sinks of §12.1, the json/yaml/toml/csv/math
// namespaces of §10, and the unknown-method teaching hints of §11.3.
//
// The evaluator (lang/eval) decides dispatch order and handles what needs
// the host (paths, globs, tap, save, feed, tasks, channels); it calls
// [Method] for the general table, [HasMethod] for the field → method
// fallback and [NamespaceCall]/[NamespaceField] for the namespaces. lib
// imports lang/value, lang/diag and go-toml only.
//
// Layout: catalogue.go is the one table of method names per kind (read by
// dispatch, HasMethod and the hints); method_<kind>.go implement them;
// stream*.go are the stream sources, combinators and tee; ns_<name>.go the
// namespaces; hint.go the teaching hints.
package lib
