package effects

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// corpusDir locates spec/cases: $SHOAL_SPEC_CASES, else the shared
// checkout next to the repository.
func corpusDir() string {
	if d := os.Getenv("SHOAL_SPEC_CASES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "spec", "cases")
}

type corpusCase struct {
	Name string `toml:"name"`
	Src  string `toml:"src"`
}

// TestCorpusDerive derives every corpus program that parses, under a
// full and an empty Env: it must not panic, must give the same plan twice,
// and every plan must be well formed.
func TestCorpusDerive(t *testing.T) {
	t.Parallel()
	dir := corpusDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil || len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance corpus not found in %s", dir)
		}
		t.Skipf("conformance corpus not found in %s (set SHOAL_SPEC_CASES)", dir)
	}
	sort.Strings(files)
	derived, withEffects := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Case []corpusCase `toml:"case"`
		}
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range doc.Case {
			prog, err := syntax.Parse(c.Src, nil)
			if err != nil {
				continue // parse_error cases
			}
			derived++
			for _, env := range []*Env{testEnv(), {}} {
				first := Derive(prog, env)
				second := Derive(prog, env)
				if diff := cmp.Diff(first, second); diff != "" {
					t.Errorf("%s/%s: not deterministic (-first +second):\n%s", filepath.Base(f), c.Name, diff)
				}
				if msg := malformed(first); msg != "" {
					t.Errorf("%s/%s: %s\nsrc: %s\neffects: %+v", filepath.Base(f), c.Name, msg, c.Src, first)
				}
			}
			if len(Derive(prog, testEnv())) > 0 {
				withEffects++
			}
		}
	}
	if derived < 1000 {
		t.Errorf("only %d corpus programs derived", derived)
	}
	// The corpus runs commands, shell blocks and path methods throughout;
	// a derivation that found nothing would be broken.
	if withEffects < derived/10 {
		t.Errorf("only %d of %d corpus programs have effects", withEffects, derived)
	}
}

// malformed checks the plan invariants Derive promises, returning a
// description of the first violation.
func malformed(effs []leash.Effect) string {
	kindIndex := func(k leash.Kind) int { return slices.Index(leash.Kinds[:], k) }
	for i, e := range effs {
		if kindIndex(e.Kind) < 0 {
			return "unknown kind " + string(e.Kind)
		}
		if i > 0 && kindIndex(effs[i-1].Kind) > kindIndex(e.Kind) {
			return "kinds out of order"
		}
		switch e.Kind {
		case leash.KindFsRead, leash.KindFsWrite, leash.KindFsDelete:
			if len(e.Paths) == 0 || !slices.IsSorted(e.Paths) || len(slices.Compact(slices.Clone(e.Paths))) != len(e.Paths) {
				return "fs paths empty, unsorted or duplicated"
			}
			for _, p := range e.Paths {
				if !path.IsAbs(p) || (p != Anywhere && path.Clean(p) != p && !isTree(p)) {
					return "fs path not absolute and clean: " + p
				}
			}
		case leash.KindEnvRead, leash.KindEnvWrite, leash.KindSecretUse:
			if len(e.Names) == 0 || !slices.IsSorted(e.Names) {
				return "names empty or unsorted"
			}
		case leash.KindProcSpawn:
			if e.BinHash != "" && len(e.BinHash) != 64 {
				return "bin_hash is not 64 hex"
			}
		case leash.KindNetConnect:
			if e.Host == "" {
				return "net_connect without host"
			}
		}
	}
	return ""
}

// isTree reports a clean path with "/**" appended.
func isTree(p string) bool {
	d, ok := strings.CutSuffix(p, "/**")
	return ok && (d == "" || path.Clean(d) == d)
}

// TestDocTable keeps docs/effects.md's builtin table generated from
// [rules]: the doc must contain exactly the rendered table.
func TestDocTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "effects.md"))
	if err != nil {
		t.Fatalf("read docs/effects.md: %v", err)
	}
	table := ruleTable(rules())
	if !slices.Contains(splitBlocks(string(doc)), table) {
		t.Errorf("docs/effects.md lacks the current builtin table; paste:\n%s", table)
	}
	if n := len(rules()); n != 37 {
		t.Errorf("rules cover %d heads, LANGUAGE.md §9.10 lists 37", n)
	}
}

// splitBlocks splits markdown into blank-line-separated blocks, each with
// its trailing newline.
func splitBlocks(s string) []string {
	var blocks []string
	for _, b := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if b = strings.Trim(b, "\n"); b != "" {
			blocks = append(blocks, b+"\n")
		}
	}
	return blocks
}

// FuzzDerive: any program that parses derives without panicking, the
// same way twice, and well formed.
func FuzzDerive(f *testing.F) {
	for _, s := range []string{
		"ls src > out", "sh { echo hi }", "fn f() { f(); rm (x) }; f()", `http.get("https://a.io/{x}")`,
		"cd /a; for d in ds { cd (d); rm *.o }", `with cwd: "w", env: {A: 1} { "x".feed(sort -r) }`,
		"alias g = git; g status &", "match x { {a, b: [c, ...r]} => { touch (a) } }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := syntax.Parse(src, nil)
		if err != nil {
			return
		}
		a, b := Derive(prog, testEnv()), Derive(prog, testEnv())
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
		if msg := malformed(a); msg != "" {
			t.Fatalf("%s: %+v", msg, a)
		}
	})
}
