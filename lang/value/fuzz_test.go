package value

import (
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

// FuzzParsePath checks that any path text either parses into steps that
// print back to an equivalent path, or fails with an arg_error.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"a.b[0]", "[1..2]", ".x[..3]", "a..b", "[", "[-1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := ParsePath(s)
		if err != nil {
			if diag.CodeOf(err) != diag.ArgError {
				t.Fatalf("error %v is not an arg_error", err)
			}
			return
		}
		var text string
		for _, st := range steps {
			text += st.String()
		}
		again, err := ParsePath(text)
		if err != nil || len(again) != len(steps) {
			t.Fatalf("%q printed as %q, which parses to %v, %v", s, text, again, err)
		}
		_, _ = ApplyPath(NewRecord([]string{"a"}, []Value{&List{Items: []Value{Int(1)}}}), steps)
	})
}

// FuzzCoerceWord checks that every declared type either accepts a word
// or rejects it with an arg_error; nothing panics.
func FuzzCoerceWord(f *testing.F) {
	for _, s := range []string{"5", "1.5mb", "1m30s", "10:00am", "2026-07-09T14:00Z[UTC]", "true", "-"} {
		f.Add(s)
	}
	types := []string{"int", "float", "size", "duration", "time", "datetime", "bool", "path", "glob", "str", "list<int>"}
	f.Fuzz(func(t *testing.T, word string) {
		for _, typ := range types {
			v, err := CoerceWord(word, typ, "")
			if err != nil {
				if diag.CodeOf(err) != diag.ArgError {
					t.Fatalf("CoerceWord(%q, %s) error %v is not an arg_error", word, typ, err)
				}
				continue
			}
			_ = RenderInline(v)
		}
	})
}
