package lib

import (
	"context"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// FuzzYAML checks that yaml.parse never panics, fails only with
// arg_error, and that whatever it accepts survives a stringify/parse
// round trip unchanged.
func FuzzYAML(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb: 2", "- 1\n- 2", "a:\n  b: [1, {c: d}]\n", "s: |\n  x\n  y\n", "s: >-\n  a\n\n  b",
		"- - 1\n  - 2\n- a: 1\n  b: 'it''s'\n", "k:\n- 1\n- 2\n", "\"q\\u00e9\": \"\\t\"", "--- \n...\n",
		"a: [1,\n 2]", "{a: , b}", "a: b: c", "- |\n  x\n- >\n  y", "? x", "&a b", "a:\t1", "- [", "a: 0x1F\nb: .nan",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ctx := context.Background()
		v, err := NamespaceCall(ctx, testEnv{}, "yaml", "parse", []value.Value{value.Str(src)}, nil)
		if err != nil {
			if code := diag.CodeOf(err); code != diag.ArgError {
				t.Fatalf("parse error code %q: %v", code, err)
			}
			return
		}
		out, err := NamespaceCall(ctx, testEnv{}, "yaml", "stringify", []value.Value{v}, nil)
		if err != nil {
			t.Fatalf("stringify of a parsed value failed: %v", err)
		}
		back, err := NamespaceCall(ctx, testEnv{}, "yaml", "parse", []value.Value{out}, nil)
		if err != nil {
			t.Fatalf("re-parse failed: %v\nyaml:\n%s", err, out)
		}
		if a, b := value.RenderInline(v), value.RenderInline(back); a != b {
			t.Fatalf("round trip changed the value:\n  %s\n  %s\nyaml:\n%s", a, b, out)
		}
	})
}
