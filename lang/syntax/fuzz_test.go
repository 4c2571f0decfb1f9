package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

// FuzzParse checks that no input panics or hangs the parser and that every
// failure is a positioned parse_error; it is seeded with every corpus
// source, the examples and the tables.
func FuzzParse(f *testing.F) {
	addSourceSeeds(f)
	for _, tc := range errorCases {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkParse(t, src, nil)
			checkParse(t, src, &Options{REPL: true})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Parse(%q) did not finish", src)
		}
	})
}

func checkParse(t *testing.T, src string, opts *Options) {
	prog, err := Parse(src, opts)
	if err != nil {
		d := diag.As(err)
		if d == nil || d.Code != diag.ParseError || d.Msg == "" {
			t.Errorf("Parse(%q): error %v is not a parse_error", src, err)
			return
		}
		if d.Span.Start < 0 || d.Span.Start > len(src) || d.Span.End < d.Span.Start || d.Span.End > len(src)+1 {
			t.Errorf("Parse(%q): span %v out of range", src, d.Span)
		}
		_ = d.Show(src)
		return
	}
	if _, err := MarshalProgram(prog); err != nil {
		t.Errorf("Parse(%q): program does not marshal: %v", src, err)
	}
	Walk(prog, func(n Node) bool {
		if s := n.Span(); s.Start < 0 || s.End > len(src) || s.End < s.Start {
			t.Errorf("Parse(%q): %T span %v out of range", src, n, s)
		}
		return true
	})
}

// exampleSources reads spec/examples/*.shl next to the corpus.
func exampleSources(tb testing.TB) []string {
	paths, _ := filepath.Glob(filepath.Join(corpusDir(), "..", "examples", "*.shl"))
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}

// TestExamplesParse parses the spec examples.
func TestExamplesParse(t *testing.T) {
	t.Parallel()
	exs := exampleSources(t)
	if len(exs) == 0 {
		t.Skip("no examples found")
	}
	for _, src := range exs {
		if _, err := Parse(src, nil); err != nil {
			t.Errorf("example does not parse: %v\n%s", err, strings.SplitN(src, "\n", 2)[0])
		}
	}
}

func BenchmarkParse10KB(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir(), "..", "examples", "language_spec.shl"))
	if len(paths) == 0 {
		b.Skip("language_spec.shl not found")
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 10*1024 {
		sb.Write(data)
		sb.WriteByte('\n')
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(src, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// addSourceSeeds seeds a fuzz target with every corpus source, the spec's examples and the
// parser table.
func addSourceSeeds(f *testing.F) {
	for _, file := range loadCorpus(f) {
		for _, c := range file.Cases {
			f.Add(c.Src)
		}
	}
	for _, ex := range exampleSources(f) {
		f.Add(ex)
	}
	for _, tc := range parseCases {
		f.Add(tc.src)
	}
}
