package syntax

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/shoal-sh/shoal/lang/diag"
)

// corpusCase is the subset of a conformance case the parser needs.
type corpusCase struct {
	Name               string `toml:"name"`
	Src                string `toml:"src"`
	ParseError         bool   `toml:"parse_error"`
	ParseErrorContains string `toml:"parse_error_contains"`
	Skip               string `toml:"skip"`
}

type corpusFile struct {
	Name  string
	Cases []corpusCase
}

// corpusDir locates spec/cases: $SHOAL_SPEC_CASES, else the shared
// checkout next to the repository.
func corpusDir() string {
	if d := os.Getenv("SHOAL_SPEC_CASES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "spec", "cases")
}

// loadCorpus reads every case file, or skips the test when the corpus is
// absent outside CI.
func loadCorpus(tb testing.TB) []corpusFile {
	tb.Helper()
	dir := corpusDir()
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil || len(paths) == 0 {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("conformance corpus not found in %s", dir)
		}
		tb.Skipf("conformance corpus not found in %s (set SHOAL_SPEC_CASES)", dir)
	}
	sort.Strings(paths)
	var files []corpusFile
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		var doc struct {
			Case []corpusCase `toml:"case"`
		}
		if err := toml.Unmarshal(data, &doc); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		files = append(files, corpusFile{Name: filepath.Base(path), Cases: doc.Case})
	}
	return files
}

// TestCorpusParse asserts the parse-level half of every conformance case:
// parse_error cases fail with their needle in the message, all other cases
// parse.
func TestCorpusParse(t *testing.T) {
	t.Parallel()
	files := loadCorpus(t)
	total := 0
	for _, f := range files {
		total += len(f.Cases)
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			for _, c := range f.Cases {
				t.Run(c.Name, func(t *testing.T) {
					prog, err := Parse(c.Src, nil)
					if c.ParseError {
						if err == nil {
							t.Fatalf("parse succeeded, want a parse error\nsrc: %s", c.Src)
						}
						d := diag.As(err)
						if d == nil || d.Code != diag.ParseError {
							t.Fatalf("error %v is not a parse_error", err)
						}
						if !strings.Contains(d.Msg, c.ParseErrorContains) {
							t.Fatalf("message %q lacks %q\nsrc: %s", d.Msg, c.ParseErrorContains, c.Src)
						}
						return
					}
					if err != nil {
						t.Fatalf("unexpected parse error: %v\nsrc: %s", err, c.Src)
					}
					if prog == nil || len(prog.Stmts) == 0 {
						t.Fatalf("no statements parsed\nsrc: %s", c.Src)
					}
				})
			}
		})
	}
	if total < 1000 {
		t.Errorf("only %d corpus cases loaded", total)
	}
}
