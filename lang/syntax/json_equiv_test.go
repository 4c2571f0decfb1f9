package syntax

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

// checkMarshalMatches fails unless MarshalProgram and the reference
// encoder (json_ref_test.go) agree byte for byte, errors included.
func checkMarshalMatches(t testing.TB, name string, prog *Program) {
	t.Helper()
	want, wantErr := refMarshalProgram(prog)
	got, gotErr := MarshalProgram(prog)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%s: error %v, reference error %v", name, gotErr, wantErr)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: JSON differs from the reference at byte %d\n got: %s\nwant: %s", name, i, got, want)
	}
}

// checkSourceMatches parses src as a script and as REPL input and compares
// the encoders on whatever parses.
func checkSourceMatches(t testing.TB, name, src string) int {
	t.Helper()
	n := 0
	for _, opts := range []*Options{nil, {REPL: true}} {
		if prog, err := Parse(src, opts); err == nil {
			checkMarshalMatches(t, name, prog)
			n++
		}
	}
	return n
}

// fuzzSeedSources reads the string inputs of every committed fuzz seed
// under testdata/fuzz ("go test fuzz v1" files).
func fuzzSeedSources(tb testing.TB) map[string]string {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	out := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
				if err != nil {
					tb.Fatalf("%s: %v", p, err)
				}
				out[p] = s
			}
		}
	}
	return out
}

// marshalEdgeSources exercise the string escaper and number formatting.
var marshalEdgeSources = []string{
	`"<a href=\"x\">&amp;</a>"`,
	"\"tab\\there\\nnl \\r cr \\u{7f} del\"",
	"\"\\u{1} \\u{8} \\u{c} \\u{1f} \\u{2028} \\u{2029} \\u{fffd} é ü 日本\"",
	"echo \xff\xfe bad-utf8 \xe2\x80",
	"FOO=1 ^echo --dry-run=x -abc ~/a ./b *.go [x] - -- \"q\" (1 + 2) >> log < in &",
	"let x = [1e999, -1e999, 1e-7, 1e21, 123456789.125, 0.1, 5e-324]",
	"let s = [9223372036854775807, 18446744073709551615b, 1tib, 9999999999h]",
	`match x { int n => n, [a, ...r] => r, {a, b: 1..=3} => 0, _ => "x{1 + 2}y" }`,
	"10:30:05; t\"2024-01-02\"; re\"a+\"; py { print(1) }",
}

// TestMarshalMatchesReference compares the fast encoder with the original
// one on the whole conformance corpus, the parser tables, the spec
// examples, the committed fuzz seeds and a few escaping edge cases.
func TestMarshalMatchesReference(t *testing.T) {
	t.Parallel()
	n := 0
	for _, f := range loadCorpus(t) {
		for _, c := range f.Cases {
			n += checkSourceMatches(t, f.Name+"/"+c.Name, c.Src)
		}
	}
	if n < 1000 {
		t.Errorf("compared only %d corpus programs", n)
	}
	for _, tc := range parseCases {
		prog, err := Parse(tc.src, boundOpts(tc.bound))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkMarshalMatches(t, tc.name, prog)
	}
	for _, tc := range errorCases {
		checkSourceMatches(t, tc.src, tc.src)
	}
	for i, src := range exampleSources(t) {
		checkSourceMatches(t, "example "+strconv.Itoa(i), src)
	}
	for p, src := range fuzzSeedSources(t) {
		checkSourceMatches(t, p, src)
	}
	for _, src := range marshalEdgeSources {
		checkSourceMatches(t, src, src)
	}
	checkSourceMatches(t, "large", largeBenchProgram)
}

// oddStmt is a node type the parser never produces, with field kinds the
// encoder does not support: both encoders must fail the same way, and
// only when such a field is actually reached.
type oddStmt struct {
	Pos
	Note  string
	Small float32
}

func (*oddStmt) stmtNode() {}

// extraStmt is a new node type with supported fields: it must encode like
// the reference without any registration.
type extraStmt struct {
	Pos
	Label    string
	Count    int
	Items    []Expr
	Parts    []StrPart
	Inner    *Block
	MaxBytes uint64
}

func (*extraStmt) stmtNode() {}

// TestMarshalMatchesReferenceBuiltASTs covers shapes the parser does not
// produce: nil interfaces, pointers and slices, NaN and infinities,
// extreme integers, unknown node types and unsupported field kinds.
func TestMarshalMatchesReferenceBuiltASTs(t *testing.T) {
	t.Parallel()
	sp := func(a, b int) Pos { return Pos{S: diag.Span{Start: a, End: b}} }
	cases := map[string]*Program{
		"empty": {},
		"nils": {Stmts: []Stmt{
			&LetStmt{Pos: sp(-1, 1<<40), Name: "\u2028<&>"},
			&FnDecl{Params: []*Param{nil, {}}},
			&ExprStmt{X: &InterpStr{Parts: []StrPart{{Lit: "a"}, {Expr: nil}, {Expr: &NullLit{}}}}},
			&ExprStmt{X: &ListLit{Items: []Expr{nil, (*IntLit)(nil)}}},
			&ExprStmt{X: &Command{Head: nil, Args: []CmdPart{&Flag{}, (*Word)(nil)}}},
		}},
		"numbers": {Stmts: []Stmt{&ExprStmt{X: &ListLit{Items: []Expr{
			&FloatLit{V: math.NaN()}, &FloatLit{V: math.Inf(1)}, &FloatLit{V: math.Inf(-1)},
			&FloatLit{V: math.Copysign(0, -1)}, &FloatLit{V: math.MaxFloat64}, &FloatLit{V: math.SmallestNonzeroFloat64},
			&IntLit{V: math.MinInt64}, &SizeLit{Bytes: math.MaxUint64}, &DurationLit{Ns: math.MaxInt64},
			&TimeLit{H: -1, M: 60, S: 61},
		}}}}},
		"pattern type name": {Stmts: []Stmt{&ExprStmt{X: &Match{Arms: []*MatchArm{{
			Patterns: []Pattern{&TypePat{Type: "int", Name: "n"}, &RangePat{Lo: math.MinInt64, Hi: math.MaxInt64}, nil},
		}}}}}},
		"extra node": {Stmts: []Stmt{&extraStmt{Label: "x", Count: -3,
			Items: []Expr{&IntLit{V: 1}}, Parts: []StrPart{{Lit: "p"}}, MaxBytes: 7}}},
		"extra node zero": {Stmts: []Stmt{&extraStmt{}}},
		"unsupported":     {Stmts: []Stmt{&ExprStmt{X: &IntLit{V: 1}}, &oddStmt{Note: "n"}}},
	}
	for name, prog := range cases {
		checkMarshalMatches(t, name, prog)
	}
	if _, err := MarshalProgram(cases["unsupported"]); err == nil {
		t.Error("unsupported field kind marshalled without an error")
	}
	// The reference panics on a nil top-level statement (reflect.ValueOf
	// of a nil interface); the parser never produces one, and the fast
	// encoder writes null as it does for every other nil interface.
	got, err := MarshalProgram(&Program{Stmts: []Stmt{nil, &BreakStmt{}}})
	want := `{"type":"Program","ast_version":2,"span":{"start":0,"end":0},"src":"","stmts":[null,{"type":"Break","span":{"start":0,"end":0}}]}`
	if err != nil || string(got) != want {
		t.Errorf("nil statement: got %s, %v; want %s", got, err, want)
	}
	if _, err := MarshalProgram(nil); err == nil {
		t.Error("nil program marshalled without an error")
	}
}

// chainStmt refers to its own type through a pointer and a slice, so its
// plan is built through a cycle.
type chainStmt struct {
	Pos
	Name string
	Next *chainStmt
	Alts []*chainStmt
}

func (*chainStmt) stmtNode() {}

// TestMarshalConcurrent marshals from many goroutines while the plan of a
// new, self-referential type is first built (run with -race).
func TestMarshalConcurrent(t *testing.T) {
	t.Parallel()
	big, err := Parse(largeBenchProgram, nil)
	if err != nil {
		t.Fatal(err)
	}
	chain := &Program{Stmts: []Stmt{&chainStmt{Name: "a", Next: &chainStmt{Name: "b", Alts: []*chainStmt{{Name: "c"}, nil}}}}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { // t.Fatal is for the test goroutine only: Errorf here
			for _, p := range []*Program{chain, big} {
				got, err := MarshalProgram(p)
				want, _ := refMarshalProgram(p)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("concurrent marshal differs (%v)\n got: %.200s\nwant: %.200s", err, got, want)
				}
			}
		})
	}
	wg.Wait()
}

// TestMarshalResultNotShared checks that a returned slice is not reused by
// a later call (the encoder builds in a pooled buffer).
func TestMarshalResultNotShared(t *testing.T) {
	t.Parallel()
	p1, _ := Parse("1 + 2", nil)
	p2, _ := Parse("let zz = 99999", nil)
	a, _ := MarshalProgram(p1)
	keep := string(a)
	for range 10 {
		if _, err := MarshalProgram(p2); err != nil {
			t.Fatal(err)
		}
	}
	if string(a) != keep {
		t.Fatalf("earlier result was overwritten: %s", a)
	}
}

// FuzzMarshalProgram asserts that the fast encoder matches the reference
// encoder on every parseable input.
func FuzzMarshalProgram(f *testing.F) {
	addSourceSeeds(f)
	for _, src := range marshalEdgeSources {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkSourceMatches(t, "fuzz", src)
	})
}

// largeBenchProgram is a ~10 KB script touching most node types.
var largeBenchProgram = func() string {
	const chunk = `# a chunk
let x = {a: 1, b: [1, 2, 3], c: "str <&> {1 + 2}"}
var total = 0
for n in x.b { total += n * 2 }
fn add(a, b: int, c = 3) -> int { a + b + c }
let r = if total > 10 { "big" } else { "small" }
ls -la ./src > out.txt
let big = ls.where(.size > 1kb).sort_by(.name)
match r { "big" => 1, [a, ...rest] => 2, {k: int n} => n, _ => 0 }
let m = try { open data.json } catch e { null }
with cwd: "/tmp" { git status --short }
let f = x.b.map(v => v * 1.5).filter(.size > 2mb)
while total < 100 { total = total + 5s.ns }
echo hi > out.txt; cat *.go && echo done
`
	var sb strings.Builder
	for sb.Len() < 10*1024 {
		sb.WriteString(chunk)
	}
	return sb.String()
}()

// BenchmarkMarshalProgram measures the AST encoder alone (parsing is done
// before the timer) on a few small programs and one large one.
func BenchmarkMarshalProgram(b *testing.B) { benchMarshal(b, MarshalProgram) }

// BenchmarkMarshalProgramRef runs the same programs through the original
// reflective encoder, for a same-binary comparison on a noisy machine.
func BenchmarkMarshalProgramRef(b *testing.B) { benchMarshal(b, refMarshalProgram) }

func benchMarshal(b *testing.B, marshal func(*Program) ([]byte, error)) {
	for _, bc := range []struct{ name, src string }{
		{"add", "1 + 2"},
		// Shoal has no | operator: the brief's `ls -la | where size > 1kb`
		// is a parse error, so a command and its method-chain equivalent.
		{"command", "ls -la ./src > out.txt"},
		{"pipeline", "ls.where(.size > 1kb)"},
		{"record", "let x = {a: 1, b: [1,2,3]}"},
		{"large", largeBenchProgram},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prog, err := Parse(bc.src, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := marshal(prog); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
