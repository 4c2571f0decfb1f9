package format

import (
	"testing"
	"time"
)

// FuzzFormat checks that no input panics or hangs the formatter, that a
// source that does not parse is refused with its parse error, and that a
// parsable one formats to the same syntax tree with every comment kept,
// and formats to itself a second time. It is seeded with every corpus
// source, the spec examples and the golden inputs.
func FuzzFormat(f *testing.F) {
	for _, c := range corpusSources(f) {
		f.Add(c.Src)
	}
	for _, src := range exampleSources(f) {
		f.Add(src)
	}
	for _, g := range goldens {
		f.Add(g.in)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan error, 1)
		go func() {
			_, _, err := safety(src)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Source(%q) did not finish", src)
		}
	})
}
