package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// corpusCase is one [[case]] of spec/cases/*.toml.
type corpusCase struct {
	Name               string   `toml:"name"`
	Src                string   `toml:"src"`
	Value              *string  `toml:"value"`
	Error              string   `toml:"error"`
	ErrorContains      string   `toml:"error_contains"`
	ParseError         bool     `toml:"parse_error"`
	ParseErrorContains string   `toml:"parse_error_contains"`
	Fixture            []string `toml:"fixture"`
	Skip               string   `toml:"skip"`
}

// runCorpusCase runs one case the way CASES.md §3 describes and returns
// "" on success or a failure description.
func runCorpusCase(t *testing.T, c corpusCase) string {
	dir := t.TempDir()
	for _, f := range c.Fixture {
		p := filepath.Join(dir, f)
		if strings.HasSuffix(f, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	prog, perr := syntax.Parse(c.Src, &syntax.Options{})
	if c.ParseError {
		if perr == nil {
			return "expected parse error"
		}
		if d := diag.As(perr); c.ParseErrorContains != "" && (d == nil || !strings.Contains(d.Msg, c.ParseErrorContains)) {
			return fmt.Sprintf("parse error %v lacks %q", perr, c.ParseErrorContains)
		}
		return ""
	}
	if perr != nil {
		return fmt.Sprintf("unexpected parse error: %v", perr)
	}
	ev := New(&Options{Cwd: dir, Env: os.Environ()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v, err := ev.Run(ctx, prog, Stmt)
	if c.Error != "" {
		if err == nil {
			return fmt.Sprintf("expected error %s, got value %s", c.Error, value.RenderInline(v))
		}
		d := diag.As(err)
		if d == nil || d.Code != c.Error {
			return fmt.Sprintf("expected error %s, got %v", c.Error, err)
		}
		if c.ErrorContains != "" && !strings.Contains(d.Msg, c.ErrorContains) && !strings.Contains(d.Hint, c.ErrorContains) {
			return fmt.Sprintf("error %v lacks %q", err, c.ErrorContains)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("unexpected error: %v", err)
	}
	if c.Value == nil {
		return "case has no expectation"
	}
	if got := value.RenderInline(v); got != *c.Value {
		return fmt.Sprintf("got %s, want %s", got, *c.Value)
	}
	return ""
}

// TestCorpusDev runs the conformance corpus and prints per-file counts.
// It is a development aid, enabled with SHOAL_CORPUS_DEV=1 (the official
// harness lives elsewhere); SHOAL_CORPUS_FILE narrows it to one file.
func TestCorpusDev(t *testing.T) {
	if os.Getenv("SHOAL_CORPUS_DEV") != "1" {
		t.Skip("set SHOAL_CORPUS_DEV=1 to run the development corpus")
	}
	files, _ := filepath.Glob("/work/shared/spec/cases/*.toml")
	sort.Strings(files)
	only := os.Getenv("SHOAL_CORPUS_FILE")
	verbose := os.Getenv("SHOAL_CORPUS_VERBOSE") == "1"
	total, passed, skipped := 0, 0, 0
	var report []string
	for _, f := range files {
		base := filepath.Base(f)
		if only != "" && !strings.Contains(base, only) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Case []corpusCase `toml:"case"`
		}
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		p, n := 0, 0
		for _, c := range doc.Case {
			if c.Skip != "" {
				skipped++
				continue
			}
			n++
			var msg string
			func() {
				defer func() {
					if r := recover(); r != nil {
						msg = fmt.Sprintf("PANIC: %v", r)
					}
				}()
				msg = runCorpusCase(t, c)
			}()
			if msg == "" {
				p++
			} else if verbose {
				t.Logf("FAIL %s/%s: %s\n    src: %q", base, c.Name, msg, c.Src)
			}
		}
		total += n
		passed += p
		report = append(report, fmt.Sprintf("%-40s %3d/%3d", base, p, n))
	}
	for _, r := range report {
		t.Log(r)
	}
	t.Logf("conformance: %d passed, %d failed, %d skipped (of %d total cases)", passed, total-passed, skipped, total+skipped)
}
