package evaltest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Result is what a host reports for one case.
type Result struct {
	// Parse is set when parsing failed; ParseMsg is the diagnostic message.
	Parse    bool
	ParseMsg string
	// Code, Msg and Hint describe an uncaught runtime error (Code != "").
	Code, Msg, Hint string
	// Value is the render_inline text of the final value.
	Value string
}

// Host runs one case's source with dir as the session cwd.
type Host func(ctx context.Context, dir, src string) Result

// Check compares a result with the case's expectation and returns "" when
// the case passes, else why not.
func Check(c *Case, r Result) string {
	switch {
	case c.ParseError:
		if !r.Parse {
			return fmt.Sprintf("want a parse error, got %s", describe(r))
		}
		if c.ParseErrorContains != "" && !strings.Contains(r.ParseMsg, c.ParseErrorContains) {
			return fmt.Sprintf("parse error %q lacks %q", r.ParseMsg, c.ParseErrorContains)
		}
		return ""
	case r.Parse:
		return "unexpected parse error: " + r.ParseMsg
	case c.Error != "":
		if r.Code != c.Error {
			return fmt.Sprintf("want error %s, got %s", c.Error, describe(r))
		}
		if c.ErrorContains != "" && !strings.Contains(r.Msg, c.ErrorContains) && !strings.Contains(r.Hint, c.ErrorContains) {
			return fmt.Sprintf("error %s: msg %q / hint %q lack %q", r.Code, r.Msg, r.Hint, c.ErrorContains)
		}
		return ""
	case c.Value != nil:
		if r.Code != "" {
			return fmt.Sprintf("want %s, got %s", *c.Value, describe(r))
		}
		if r.Value != *c.Value {
			return fmt.Sprintf("want %s, got %s", *c.Value, r.Value)
		}
		return ""
	}
	return "case has no expectation"
}

func describe(r Result) string {
	switch {
	case r.Parse:
		return "parse error: " + r.ParseMsg
	case r.Code != "":
		return fmt.Sprintf("error(%s: %s) hint %q", r.Code, r.Msg, r.Hint)
	}
	return "value " + r.Value
}

// Stats counts outcomes for the report.
type Stats struct {
	mu      sync.Mutex
	perFile map[string]*[3]int // passed, failed, skipped
	failed  map[string]bool    // case name → failed now
	ran     []string           // every case name run or skipped
}

func (s *Stats) add(file, name string, kind int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perFile == nil {
		s.perFile = map[string]*[3]int{}
		s.failed = map[string]bool{}
	}
	c := s.perFile[file]
	if c == nil {
		c = new([3]int)
		s.perFile[file] = c
	}
	c[kind]++
	s.ran = append(s.ran, name)
	if kind == 1 {
		s.failed[name] = true
	}
}

// Options tune RunCorpus.
type Options struct {
	Getenv  func(string) string
	Timeout time.Duration // per case; default 60 s
}

// RunCorpus runs every corpus case as t.Run(file)/t.Run(case) against
// host, compares with the expectations file's column for hostName, and
// prints the per-file table and the total line when SHOAL_CORPUS_REPORT is
// set. A case that fails unexpectedly, or passes while listed, fails the
// test. With SHOAL_CORPUS_UPDATE=1 the host's column is rewritten instead.
func RunCorpus(t *testing.T, hostName string, host Host, opts *Options) {
	o := Options{Getenv: os.Getenv, Timeout: 60 * time.Second}
	if opts != nil && opts.Getenv != nil {
		o.Getenv = opts.Getenv
	}
	if opts != nil && opts.Timeout > 0 {
		o.Timeout = opts.Timeout
	}
	dir := CorpusDir(o.Getenv)
	if dir == "" {
		if o.Getenv("CI") == "true" {
			t.Fatal("conformance corpus not found (../shared/spec/cases or $SHOAL_SPEC_CASES); CI requires it")
		}
		t.Skip("conformance corpus not found beside the repository; set SHOAL_SPEC_CASES to run it")
	}
	files, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := LoadExpectations(ExpectationsPath())
	if err != nil {
		t.Fatal(err)
	}
	update := o.Getenv("SHOAL_CORPUS_UPDATE") == "1"
	stats := &Stats{}
	t.Cleanup(func() {
		if update && !t.Failed() {
			exp.SetHost(hostName, stats.failed, stats.ran)
			if err := exp.Save(ExpectationsPath()); err != nil {
				t.Errorf("saving expectations: %v", err)
			}
		}
		if o.Getenv("SHOAL_CORPUS_REPORT") != "" {
			fmt.Print(Report(hostName, files, stats))
		}
	})
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			for _, c := range f.Cases {
				t.Run(c.Name, func(t *testing.T) {
					if c.Skip != "" {
						stats.add(f.Name, c.Name, 2)
						t.Skip(c.Skip)
					}
					t.Parallel()
					caseDir := t.TempDir()
					if err := MakeFixtures(caseDir, c.Fixture); err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
					defer cancel()
					why := Check(c, host(ctx, caseDir, c.Src))
					listed := exp.Fails(c.Name, hostName)
					switch {
					case why != "":
						stats.add(f.Name, c.Name, 1)
						if !listed && !update {
							t.Errorf("regression: %s\nsrc:\n%s", why, c.Src)
						}
					default:
						stats.add(f.Name, c.Name, 0)
						if listed && !update {
							t.Errorf("now passes on %s: remove it from %s", hostName, ExpectationsPath())
						}
					}
				})
			}
		})
	}
}

// Report renders the per-file table, the per-tier totals and the total
// line "corpus: N passed, N failed, N skipped".
func Report(host string, files []*File, s *Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nconformance corpus through the %s\n", host)
	fmt.Fprintf(&b, "%-36s %4s %6s %6s %7s\n", "file", "tier", "passed", "failed", "skipped")
	var tiers [4][3]int
	var total [3]int
	names := make([]string, 0, len(files))
	tierOf := map[string]int{}
	for _, f := range files {
		names = append(names, f.Name)
		tierOf[f.Name] = f.Tier
	}
	sort.Strings(names)
	for _, n := range names {
		c := s.perFile[n]
		if c == nil {
			c = new([3]int)
		}
		fmt.Fprintf(&b, "%-36s %4d %6d %6d %7d\n", n, tierOf[n], c[0], c[1], c[2])
		for i := range 3 {
			tiers[tierOf[n]][i] += c[i]
			total[i] += c[i]
		}
	}
	for tier := 1; tier <= 3; tier++ {
		c := tiers[tier]
		run := c[0] + c[1]
		pct := 0.0
		if run > 0 {
			pct = 100 * float64(c[0]) / float64(run)
		}
		fmt.Fprintf(&b, "tier %d: %d passed, %d failed, %d skipped (%.1f%% of run cases)\n", tier, c[0], c[1], c[2], pct)
	}
	fmt.Fprintf(&b, "corpus: %d passed, %d failed, %d skipped\n", total[0], total[1], total[2])
	return b.String()
}
