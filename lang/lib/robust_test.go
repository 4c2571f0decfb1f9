package lib

import (
	"regexp"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

var sampleRe = regexp.MustCompile("a+")

// samples returns one value of every kind, built fresh (streams are
// single-use).
func samples() []value.Value {
	return []value.Value{
		null, B(true), I(-3), F(2.5), S("a\nb"), value.Path{P: "x/y.txt"}, value.Glob{Pattern: "*"},
		value.Regex{Src: "a+", Re: sampleRe}, value.Size(1500), value.Duration(time.Second),
		value.Datetime{T: time.Unix(0, 0).UTC()}, value.Time{H: 1, M: 2}, &value.Bytes{Data: []byte("hi\xff")},
		L(I(2), S("x"), null), Rec("a", I(1)), lsTable(), value.Range{Start: 3, End: 0}, value.Range{Start: 0, End: 4},
		NewListStream("list", []value.Value{I(1), I(2)}), &value.ErrorVal{Err: diag.New(diag.Custom, "boom")},
		&value.Outcome{OK: true}, &value.Task{}, fn1(func(x value.Value) value.Value { return x }),
		&value.Command{Head: "ls"}, &value.Secret{Name: "k"}, L(), &value.Table{}, Rec(),
	}
}

// TestNoPanics calls every catalogue method on every kind with a spread
// of wrong, missing and odd arguments: errors are fine, panics are not.
func TestNoPanics(t *testing.T) {
	t.Parallel()
	argSets := [][]value.Value{
		nil, {I(-1)}, {I(0)}, {I(2)}, {S("x")}, {null}, {F(1.5)}, {I(1), I(2)}, {L()}, {Rec()},
		{fn1(func(x value.Value) value.Value { return x })},
		{I(0), fn(func(a ...value.Value) (value.Value, error) { return a[0], nil })},
		{fn(func(...value.Value) (value.Value, error) { return nil, diag.New(diag.Custom, "cb") })},
		{value.Duration(-1)}, {value.Duration(time.Millisecond)}, {NewListStream("list", nil)},
		{value.Regex{Src: "x"}}, {S("a"), S("b"), S("c")},
	}
	var all []string
	for _, tab := range []methodTable{collectionMethods, strMethods, recordMethods, numMethods, bytesMethods, streamMethods, everyValue} {
		for name := range tab {
			all = append(all, name)
		}
	}
	all = append(all, "nope", "length", "to_upper")
	for i := range samples() {
		for _, name := range all {
			for _, as := range argSets {
				recv := samples()[i]
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s.%s(%d args) panicked: %v", value.TypeName(recv), name, len(as), r)
						}
					}()
					Method(t.Context(), testEnv{}, recv, name, as, []Named{})
					UnknownMethodHint(recv, name)
				}()
			}
		}
	}
	for ns := range namespaces {
		for member := range namespaces[ns] {
			for _, as := range argSets {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s.%s panicked: %v", ns, member, r)
						}
					}()
					for _, s := range samples() {
						NamespaceCall(t.Context(), testEnv{}, ns, member, append([]value.Value{s}, as...), nil)
					}
					NamespaceCall(t.Context(), testEnv{}, ns, member, as, []Named{{"pretty", I(1)}})
				}()
			}
		}
	}
}
