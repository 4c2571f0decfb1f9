package value_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/lang/eval/evaltest"
	"github.com/shoal-sh/shoal/lang/value"
)

// FuzzRenderValues builds values from arbitrary text through every parser
// that makes values from text (JSON, sizes, durations, times, datetimes,
// command-word coercion) and renders each one inline, in block form and as
// JSON. It is seeded with every corpus case's source and expected
// rendering, so the fuzzer starts from the shapes the language really
// produces. Rendering must never panic, must be deterministic, and JSON
// output must parse back.
func FuzzRenderValues(f *testing.F) {
	if dir := evaltest.CorpusDir(os.Getenv); dir != "" {
		files, err := evaltest.Load(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			for _, c := range file.Cases {
				f.Add(c.Src)
				if c.Value != nil {
					f.Add(*c.Value)
				}
			}
		}
	}
	f.Add(`[{"a": 1, "b": [1.5, null, true]}, {"a": 2}]`)
	f.Add("1m30s 4kib 10:30pm 2026-07-09T14:00Z")
	f.Fuzz(func(t *testing.T, src string) {
		var vals []value.Value
		if v, err := value.FromJSON([]byte(src)); err == nil {
			vals = append(vals, v)
		}
		for _, w := range strings.Fields(src) {
			if v, err := value.ParseSize(w); err == nil {
				vals = append(vals, v)
			}
			if v, err := value.ParseDuration(w, true); err == nil {
				vals = append(vals, v)
			}
			if v, err := value.ParseTimeOfDay(w); err == nil {
				vals = append(vals, v)
			}
			if v, err := value.ParseDatetime(w); err == nil {
				vals = append(vals, v)
			}
			for _, typ := range []string{"int", "float", "bool", "list<int>", "path", "glob"} {
				if v, err := value.CoerceWord(w, typ, ""); err == nil {
					vals = append(vals, v)
				}
			}
		}
		vals = append(vals, value.Str(src), &value.List{Items: vals})
		for _, v := range vals {
			a, b := value.RenderInline(v), value.RenderInline(v)
			if a != b || a == "" {
				t.Fatalf("inline rendering of %T is not stable or empty: %q vs %q", v, a, b)
			}
			_ = value.RenderBlock(v, 80)
			_ = value.Display(v)
			if js, err := value.ToJSON(v, false); err == nil {
				if _, err := value.FromJSON(js); err != nil {
					t.Fatalf("JSON of %s does not parse back: %s: %v", a, js, err)
				}
			}
		}
	})
}
