package eval

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// TestEvalSemantics covers evaluator behaviour the corpus leaves implicit.
func TestEvalSemantics(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want, code string }{
		{name: "loop closures capture each iteration", src: "var fs = []\nfor i in 0..3 { fs = fs + [() => i] }\nfs.map(f => f())", want: "[0, 1, 2]"},
		{name: "loop without closures still scopes lets", src: "var s = 0\nfor i in 0..3 { let d = i * 2\ns += d }\ns", want: "6"},
		{name: "while closures capture each iteration", src: "var i = 0\nvar fs = []\nwhile i < 2 { let j = i\nfs = fs + [() => j]\ni += 1 }\nfs.map(f => f())", want: "[0, 1]"},
		{name: "closures share mutable state", src: "var n = 0\nlet inc = () => { n += 1; n }\ninc()\ninc()\nn", want: "2"},
		{name: "defaults evaluated per call", src: "var k = 0\nfn f(x = k) { x }\nk = 5\nf()", want: "5"},
		{name: "return passes through catch", src: "fn f() { try { return 1 } catch { 2 }\n3 }\nf()", want: "1"},
		{name: "break passes through catch", src: "var s = 0\nfor i in 0..10 { try { if i == 3 { break } } catch { 0 }\ns += i }\ns", want: "3"},
		{name: "break outside loop", src: "break", code: diag.Custom},
		{name: "cd rejected in fn", src: "fn f() { cd / }\nf()", code: diag.Custom},
		{name: "assign to let", src: "let x = 1\nx = 2", code: diag.TypeError},
		{name: "compound assign undeclared", src: "zz += 1", code: diag.UndefinedVar},
		{name: "fast dot lambda falls back on missing field", src: "[{a: 1}, {b: 2}].where(.a == 1) catch e { e.code }", want: `"field_missing"`},
		{name: "fast dot lambda on non-records", src: "[-5, 1, 9].where(.abs() > 4)", want: "[-5, 9]"},
		{name: "fast sort_by on a str field is stable", src: `[{n: "b", i: 0}, {n: "a", i: 1}, {n: "b", i: 2}, {n: "a", i: 3}].sort_by(.n).map(.i)`, want: "[1, 3, 0, 2]"},
		{name: "fast sort_by field of mixed kinds", src: `[{n: "b"}, {n: 1}].sort_by(.n) catch e { e.msg }`, want: `"cannot compare int with str"`},
		{name: "fast sort_by falls back on missing field", src: `[{n: "b"}, {m: "a"}].sort_by(.n) catch e { e.code }`, want: `"field_missing"`},
		{name: "fast sort_by across record shapes", src: `[{n: "b", x: 1}, {x: 2, n: "a"}].sort_by(.n).map(.x)`, want: "[2, 1]"},
		{name: "fast sort_by float zeros tie", src: "[{f: 0.0, i: 0}, {f: -0.0, i: 1}, {f: -1.5, i: 2}].sort_by(.f).map(.i)", want: "[2, 0, 1]"},
		{name: "fast sort_by NaN key", src: "[{f: 1.0}, {f: math.nan}].sort_by(.f) catch e { e.msg }", want: `"cannot compare float with float: NaN has no order"`},
		{name: "fast where size against int", src: "[{s: 1kb}, {s: 1}].where(.s > 500b) catch e { e.msg }", want: `"cannot compare int with size"`},
		{name: "fast where int equality meets float", src: "[{a: 1}, {a: 1.0}, {a: 2}].where(.a == 1).len()", want: "2"},
		{name: "fast where duration", src: "[{d: 2s}, {d: 1s}, {d: 3s}].where(.d >= 2s).map(.d)", want: "[2s, 3s]"},
		{name: "spawn and await", src: "let t = spawn { 40 + 2 }\nt.await()", want: "42"},
		{name: "channel emit latest", src: "let c = channel(\"x\")\nc.emit(1)\nc.emit(2)\nc.latest()", want: "2"},
		{name: "parallel settle", src: "parallel(() => 1, () => 1 / 0, settle: true).map(r => match r { error e => e.code, _ => r })", want: `[1, "div_zero"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev := New(&Options{Cwd: t.TempDir()})
			got, err := evalString(t, ev, tc.src)
			if tc.code != "" {
				if diag.CodeOf(err) != tc.code {
					t.Fatalf("want %s, got %v (%s)", tc.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestErrorsCarrySpanAndSource(t *testing.T) {
	t.Parallel()
	ev := New(&Options{Cwd: t.TempDir()})
	src := "let x = 1\nlet y = x / 0"
	_, err := ev.Eval(t.Context(), src)
	d := diag.As(err)
	if d == nil || d.Code != diag.DivZero {
		t.Fatalf("got %v", err)
	}
	if d.Src != src || !strings.Contains(src[d.Span.Start:d.Span.End], "x / 0") {
		t.Fatalf("span %v over %q", d.Span, src)
	}
}

func TestLiveSources(t *testing.T) {
	t.Parallel()
	ev := New(&Options{Cwd: t.TempDir()})
	cases := []struct{ name, src, want string }{
		{name: "tail follows appends", src: "\"old\\n\".save(\"log\")\nlet s = tail(\"log\")\nspawn { sleep 150ms\n\"a\\nb\\n\".append(\"log\") }\ns.take(2).collect()", want: `["a", "b"]`},
		{name: "tail from start", src: "\"x\\ny\\n\".save(\"log2\")\ntail(\"log2\", from_start: true).take(2).collect()", want: `["x", "y"]`},
		{name: "watch sees a new file", src: "mkdir w\nlet s = watch(\"w\")\nspawn { sleep 150ms\n\"1\".save(\"w/f\") }\ns.take(1).collect().map(.kind)", want: `["created"]`},
		{name: "every ticks", src: "every(10ms).take(2).collect().len()", want: "2"},
	}
	for _, tc := range cases {
		got, err := evalString(t, ev, tc.src)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestCommandFormCalls(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want, code string }{
		{name: "end of flags", src: "fn f(...xs) { xs }\nf a -- --b", want: `["a", "--b"]`},
		{name: "typed flag takes next word", src: "fn f(n: int = 1) { n * 2 }\nf --n 21", want: "42"},
		{name: "bool flag", src: "fn f(v: bool = false) { v }\nf --v", want: "true"},
		{name: "missing flag value", src: "fn f(n: int = 1) { n }\nf --n", code: diag.ArgError},
		{name: "help", src: "fn f(a: int, b = 2) { a }\nf --help", want: "null"},
		{name: "word coercion failure", src: "fn f(n: int) { n }\nf abc", code: diag.ArgError},
		{name: "alias appends args", src: "alias e = echo a\n(e b).out", want: `"a b"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev := New(&Options{Cwd: t.TempDir()})
			got, err := evalString(t, ev, tc.src)
			if tc.code != "" {
				if diag.CodeOf(err) != tc.code {
					t.Fatalf("want %s, got %v (%s)", tc.code, err, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestWhich(t *testing.T) {
	t.Parallel()
	ev, _ := newTestEval(t)
	got, err := evalString(t, ev, `[(which sh).scope, (which cd).scope, (which "no-such-tool-xyz").out, (which --all sh).len() >= 1]`)
	if err != nil || got != `["ambient", "builtin", null, true]` {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestJournalPort(t *testing.T) {
	t.Parallel()
	var got []string
	ev := New(&Options{Cwd: t.TempDir(), Host: &Host{
		Journal: func(ctx context.Context, head string, args []string) (value.Value, error) {
			got = append(got, head+" "+strings.Join(args, ","))
			return value.Int(len(args)), nil
		},
	}})
	v, err := evalString(t, ev, "(undo 3).out + (history --limit=2 x).out")
	if err != nil || v != "3" || strings.Join(got, "|") != "undo 3|history --limit=2,x" {
		t.Fatalf("got %s, %v, calls %q", v, err, got)
	}
	plain := New(&Options{Cwd: t.TempDir()})
	if v, err := evalString(t, plain, "(journal).out.len()"); err != nil || v != "0" {
		t.Fatalf("journal without a port: %s, %v", v, err)
	}
}

func TestSecretPort(t *testing.T) {
	t.Parallel()
	ev, _ := newTestEval(t)
	ev.host.Secret = func(ctx context.Context, name string) ([]byte, error) {
		if name == "tok" {
			return []byte("s3cret"), nil
		}
		return nil, fmt.Errorf("lookup %s: %w", name, fs.ErrNotExist)
	}
	got, err := evalString(t, ev, "let s = secret.get(\"tok\")\n[\"{s.json()}\", (TOKEN=(s) sh -c 'printf %s \"$TOKEN\"').out]")
	if err != nil || got != `["\"secret(tok)\"", "s3cret"]` {
		t.Fatalf("got %s, %v", got, err)
	}
	if _, err := ev.Eval(t.Context(), "secret.get(\"nope\")"); diag.CodeOf(err) != diag.NotFound {
		t.Fatalf("unknown secret: %v", err)
	}
	if _, err := ev.Eval(t.Context(), "let s = secret.get(\"tok\")\nprintf %s (s)"); diag.CodeOf(err) != diag.TypeError {
		t.Fatalf("secret in argv: %v", err)
	}
}

// TestREPLFlow runs a session the way the REPL does: each line parsed with
// the session's bindings, it/out defined between lines.
func TestREPLFlow(t *testing.T) {
	t.Parallel()
	ev := New(&Options{Cwd: t.TempDir(), Interactive: true})
	var outs []value.Value
	for _, line := range []string{"let xs = [3, 1, 2]", "xs.sort()", ".first()", "it + out.len()", "fn double(n: int) { n * 2 }", "double 21"} {
		prog, err := ev.Parse(line, true)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		v, err := ev.Run(t.Context(), prog, Stmt)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		outs = append(outs, v)
		ev.Define("it", v)
		ev.Define("out", &value.List{Items: append([]value.Value(nil), outs...)})
	}
	got := value.RenderInline(&value.List{Items: outs})
	if got != "[null, [1, 2, 3], 1, 4, null, 42]" {
		t.Fatalf("session values %s", got)
	}
	if !ev.Bound("xs") || ev.Bound("double") || !ev.commandBound("double") {
		t.Fatal("binding kinds wrong")
	}
}

func TestGlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", ".hidden.txt", "sub/c.txt", "sub/deep/d.txt", "sub/.e.txt"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.Symlink(dir, filepath.Join(dir, "sub", "loop")) // a cycle ** must not follow
	ev := New(&Options{Cwd: dir})
	cases := []struct{ src, want string }{
		{`glob("*.txt").expand()`, `[a.txt, b.txt]`},
		{`glob(".*.txt").expand()`, `[.hidden.txt]`},
		{`glob("**/*.txt").expand()`, `[a.txt, b.txt, sub/c.txt, sub/deep/d.txt]`},
		{`glob("*.txt", hidden: true).len()`, `3`},
		{`glob("sub/*/d.txt").expand()`, `[sub/deep/d.txt]`},
		{`glob("nope*").expand()`, `[]`},
	}
	for _, tc := range cases {
		got, err := evalString(t, ev, tc.src)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.src, got, err, tc.want)
		}
	}
}

func TestNameHints(t *testing.T) {
	t.Parallel()
	ev := New(&Options{Cwd: t.TempDir()})
	_, err := ev.Eval(t.Context(), "let counter = 1\nlet x = countr + 1")
	if d := diag.As(err); d == nil || d.Code != diag.UndefinedVar || d.Hint != "did you mean 'counter'?" {
		t.Fatalf("got %#v", err)
	}
	_, err = ev.Eval(t.Context(), "fn deploy() { 1 }\ndeplo()")
	if d := diag.As(err); d == nil || d.Code != diag.UndefinedVar || d.Hint != "did you mean 'deploy'?" {
		t.Fatalf("got %#v", err)
	}
}
