package format

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval/evaltest"
	"github.com/shoal-sh/shoal/lang/syntax"
)

// corpusSources returns every conformance-corpus source, located and read
// as the other corpus tests do: skipped with a message when the corpus is
// absent, a failure when it is absent under CI=true.
func corpusSources(tb testing.TB) []evaltest.Case {
	tb.Helper()
	dir := evaltest.CorpusDir(os.Getenv)
	if dir == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("conformance corpus not found (../shared/spec/cases or $SHOAL_SPEC_CASES); CI requires it")
		}
		tb.Skip("conformance corpus not found beside the repository; set SHOAL_SPEC_CASES to run it")
	}
	files, err := evaltest.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []evaltest.Case
	for _, f := range files {
		for _, c := range f.Cases {
			out = append(out, *c)
		}
	}
	return out
}

// exampleSources reads spec/examples/*.shl next to the corpus.
func exampleSources(tb testing.TB) map[string]string {
	tb.Helper()
	out := map[string]string{}
	dir := evaltest.CorpusDir(os.Getenv)
	if dir == "" {
		return out
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "..", "examples", "*.shl"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(p)] = string(data)
	}
	return out
}

// checkSafe is the safety oracle: src formats without error when it
// parses (and fails with the parse error when it does not); the output
// parses to the same tree without positions, keeps every comment and
// every non-blank byte, and formatting it again changes nothing.
func checkSafe(t *testing.T, src string) (out string, parsed bool) {
	t.Helper()
	out, parsed, err := safety(src)
	if err != nil {
		t.Fatal(err)
	}
	return out, parsed
}

// safety is checkSafe's body; it returns the first violation, so the
// fuzz target can run it on a watchdog goroutine.
func safety(src string) (out string, parsed bool, err error) {
	prog, perr := syntax.Parse(src, options)
	got, err := Source([]byte(src))
	if perr != nil {
		if err == nil {
			return "", false, fmt.Errorf("source that does not parse was formatted\nsrc: %q", src)
		}
		if d := diag.As(err); d == nil || d.Code != diag.ParseError {
			return "", false, fmt.Errorf("error %v for an unparsable source is not its parse_error", err)
		}
		return "", false, nil
	}
	if err != nil {
		var ue *UnsafeError
		if errors.As(err, &ue) {
			return "", true, fmt.Errorf("formatter refused a parsable source: %v\nsrc: %q", err, src)
		}
		return "", true, fmt.Errorf("Source: %v\nsrc: %q", err, src)
	}
	out = string(got)
	prog2, err := syntax.Parse(out, options)
	if err != nil {
		return out, true, fmt.Errorf("output does not parse: %v\nsrc: %q\nout: %q", err, src, out)
	}
	a, err := tree(prog)
	if err != nil {
		return out, true, err
	}
	b, err := tree(prog2)
	if err != nil {
		return out, true, err
	}
	if a != b {
		return out, true, fmt.Errorf("syntax tree changed\nsrc: %q\nout: %q\nbefore: %s\nafter:  %s", src, out, a, b)
	}
	if stripBlanks(src) != stripBlanks(out) {
		return out, true, fmt.Errorf("non-blank text changed\nsrc: %q\nout: %q", src, out)
	}
	comments, err := sourceComments([]byte(src))
	if err != nil {
		return out, true, err
	}
	for _, c := range comments {
		if !strings.Contains(out, c) {
			return out, true, fmt.Errorf("comment %q lost\nsrc: %q\nout: %q", c, src, out)
		}
	}
	again, err := Source(got)
	if err != nil {
		return out, true, fmt.Errorf("formatting the output: %v\nout: %q", err, out)
	}
	if !bytes.Equal(again, got) {
		return out, true, fmt.Errorf("not idempotent\nsrc:    %q\nonce:   %q\ntwice:  %q", src, out, again)
	}
	return out, true, nil
}

// TestCorpusSafe runs the safety oracle over every corpus source and the
// spec examples, and reports how many sources formatting changed.
func TestCorpusSafe(t *testing.T) {
	t.Parallel()
	cases := corpusSources(t)
	checked, changed, relaid, unparsed := 0, 0, 0, 0
	for _, c := range cases {
		t.Run(c.File+"/"+c.Name, func(t *testing.T) {
			out, ok := checkSafe(t, c.Src)
			if !ok {
				unparsed++
				return
			}
			checked++
			if out != c.Src {
				changed++
			}
			// Most corpus sources lack only the final newline.
			if out != c.Src && out != c.Src+"\n" {
				relaid++
				if os.Getenv("SHOAL_FMT_SHOW") != "" {
					t.Logf("changed:\n--- before\n%s\n--- after\n%s", c.Src, out)
				}
			}
		})
	}
	for name, src := range exampleSources(t) {
		t.Run("examples/"+name, func(t *testing.T) {
			out, ok := checkSafe(t, src)
			if !ok {
				t.Fatalf("example %s does not parse", name)
			}
			if out != src {
				t.Errorf("example %s is not in canonical layout:\n%s", name, out)
			}
		})
	}
	t.Logf("corpus: %d sources formatted and checked, %d changed by formatting (%d beyond adding the final newline), %d do not parse (refused)",
		checked, changed, relaid, unparsed)
	if checked < 1000 {
		t.Errorf("only %d corpus sources checked", checked)
	}
}

// TestCorpusPerturbed runs the safety oracle over messy variants of the
// corpus sources: every line gets random leading blanks (spaces and
// tabs) and trailing blanks, some get blank lines after them, and every
// third source turns CRLF. The variants that still parse must format
// safely, and when no string or interpreter block of the source spans
// lines (so the blanks only moved code), like the original up to the
// blank lines added.
func TestCorpusPerturbed(t *testing.T) {
	t.Parallel()
	cases := corpusSources(t)
	rng := rand.New(rand.NewPCG(1, 2))
	blanks := []string{"", " ", "  ", "\t", "    ", " \t ", "        "}
	checked, same := 0, 0 // same: formatted like the original, up to blank lines
	for i, c := range cases {
		var b strings.Builder
		for _, line := range strings.Split(c.Src, "\n") {
			b.WriteString(blanks[rng.IntN(len(blanks))])
			b.WriteString(line)
			b.WriteString(blanks[rng.IntN(len(blanks))])
			if i%3 == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
			if rng.IntN(4) == 0 {
				b.WriteString(blanks[rng.IntN(len(blanks))] + "\n")
			}
		}
		messy := b.String()
		if _, err := syntax.Parse(messy, options); err != nil {
			continue
		}
		t.Run(c.File+"/"+c.Name, func(t *testing.T) {
			out, _ := checkSafe(t, messy)
			checked++
			if multilineToken(t, c.Src) {
				return // its string or block content moved with the blanks
			}
			want, err := Source([]byte(c.Src))
			if err != nil {
				t.Fatal(err)
			}
			// Only the blank lines added may remain.
			if dropEmptyLines(out) != dropEmptyLines(string(want)) {
				t.Errorf("messy source formats differently\n--- original formatted\n%s--- messy formatted\n%s", want, out)
				return
			}
			same++
		})
	}
	t.Logf("%d perturbed corpus sources checked, %d formatted like their original (up to blank lines)", checked, same)
	if checked < 500 {
		t.Errorf("only %d perturbed sources parse", checked)
	}
}

// multilineToken reports whether a string or interpreter block of src
// spans lines.
func multilineToken(t *testing.T, src string) bool {
	_, _, m, err := parseMapped([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.ranges {
		if r.kind != kindComment && strings.Contains(src[r.start:r.end], "\n") {
			return true
		}
	}
	return false
}

func dropEmptyLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
