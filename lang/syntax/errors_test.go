package syntax

import (
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

// errorCases pins the curated diagnostics of LANGUAGE.md §4.1 and the
// generic ones: message substring, hint substring, whether the input
// merely ended early, and where the span starts.
var errorCases = []struct {
	src     string
	msg     string
	hint    string
	partial bool
	at      int // span start; -1 to skip the check
}{
	{src: "ls | wc", msg: "shoal has no pipe operator", hint: ".feed(cmd)", at: 3},
	{src: "1 | 2", msg: "shoal has no pipe operator", at: 2},
	{src: "(1 | 2)", msg: "shoal has no pipe operator", at: 3},
	{src: "let a = 1 | 2", msg: "shoal has no pipe operator", at: 10},
	{src: "$HOME", msg: "shoal variables have no sigil", hint: "env.NAME", at: 0},
	{src: "echo $HOME", msg: "shoal variables have no sigil", at: 5},
	{src: "`pwd`", msg: "backtick is not shoal syntax", hint: "sh {", at: 0},
	{src: "echo a`b", msg: "backtick is not shoal syntax", at: 6},
	{src: "cat << EOF", msg: "shoal has no heredocs", hint: ".feed(cmd)", at: 4},
	{src: `grep x <<< "t"`, msg: "shoal has no here-strings", at: 7},
	{src: "ls 2> f", msg: "shoal has no fd-numbered redirects", hint: ".stderr", at: 3},
	{src: "ls 2>> f", msg: "shoal has no fd-numbered redirects", at: 3},
	{src: "ls &> f", msg: "shoal has no stream-merging redirect", at: 3},
	{src: "true & false", msg: "`&` is not an operator here", hint: "&&", at: 5},
	{src: "1 < 2 < 3", msg: "comparison operators do not chain", at: 6},
	{src: "1 <= 2 < 3", msg: "comparison operators do not chain", at: 7},
	{src: "it", msg: "`it` is REPL-only", hint: "bind a variable", at: 0},
	{src: "out.foo", msg: "`out` is REPL-only", at: 0},
	{src: "(it)", msg: "REPL-only", at: 1},
	{src: "it + 1", msg: "REPL-only", at: 0},
	{src: "[{a: 1}].map({x: .a})", msg: "a leading `.` has no receiver here", at: 17},
	{src: ".name", msg: "a leading `.` has no receiver here", at: 0},
	{src: `git log.where(.author == "nobody")`, msg: "a leading `.` has no receiver here", at: 14},
	{src: `"bad \q escape"`, msg: "unknown escape `\\q`", hint: `\u{`, at: 5},
	{src: `"a{b"`, msg: "unterminated `{expr}` in string", at: 2},
	{src: "\"\"\"a {b + ", msg: "unterminated `{expr}` in string", partial: true, at: 5},
	{src: "\"a{b\"\nx", msg: "unterminated `{expr}` in string", at: 2},
	{src: "'a\nb'", msg: "unterminated string (newline)", hint: "triple quotes", at: 0},
	{src: "\"a\nb\"", msg: "unterminated string (newline)", at: 0},
	{src: `"abc`, msg: "unterminated string", at: 0},
	{src: `'abc`, msg: "unterminated string", at: 0},
	{src: `re"abc`, msg: "unterminated string", at: 2},
	{src: `"""abc`, msg: "unterminated string", partial: true, at: 0},
	{src: "zzz [a, b]", msg: "`[` cannot start a command argument", at: 4},
	{src: "echo ]", msg: "unexpected `]`", at: 5},
	{src: "@", msg: "unexpected character `@`", at: 0},
	{src: "π", msg: "unexpected character `π`", at: 0},
	{src: "1 ~ 2", msg: "unexpected character `~`", at: 2},
	{src: "sh { echo hi", msg: "unbalanced braces in interpreter block `{ … }`", hint: "'''", partial: true, at: 3},
	{src: "git log.len()", msg: "expected expression, found RParen", hint: "(git log).len()", at: 12},
	{src: "ls somedir.len()", msg: "expected expression, found RParen", at: 15},
	{src: "f(1, }", msg: "expected expression, found RBrace", at: 5},
	{src: "[,]", msg: "expected expression, found Comma", at: 1},
	{src: `match 5 { | 1 => "a"; _ => "b" }`, msg: "unexpected `|` at the start of a match arm", at: 10},
	{src: "match [1, 2, 3] { [...init, last] => last; _ => 0 }", msg: "`...rest` must be the last", at: 28},
	{src: "-9223372036854775808", msg: "integer literal out of range", at: 1},
	{src: "0x8000000000000000", msg: "integer literal out of range", at: 0},
	{src: "1KB", msg: "unit `KB` must be lowercase", at: 0},
	{src: "3xyz", msg: "unknown unit `xyz`", at: 0},
	{src: "25:00", msg: "invalid time literal", at: 0},
	{src: "13:00pm", msg: "invalid time literal", at: 0},
	{src: "echo }", msg: "unexpected `}`", at: 5},
	{src: "\"a\\\nb\"", msg: "before a line break", at: 2},
	{src: `"\u{110000}"`, msg: "invalid unicode escape", at: 1},
	{src: "x.", msg: "expected a field or method name after `.`, found EOF", partial: true, at: 2},
	{src: "echo > &", msg: "expected a redirect target after `>`", at: 7},
	{src: "echo >", msg: "expected a redirect target", partial: true, at: 6},
	{src: "{a: 1 b: 2}", msg: "expected `,` or `}` in record, found Ident", at: 6},
	{src: "match x { 1 => 2 3 => 4 }", msg: "between match arms", at: 17},
	{src: "fn f(a, ...r, b) { }", msg: "`...rest` must be the last parameter", at: 8},
	{src: "fn f() { export let x = 1 }", msg: "`export` is only allowed at the top level", at: 9},
	{src: "let r = {a: 1}\nr.a = 2", msg: "only a variable or `env.NAME` can be assigned", hint: ".set(", at: 19},
	{src: "xs[0] += 1", msg: "only a variable or `env.NAME` can be assigned", at: 6},
	{src: "^false\ncatch e { 1 }", msg: "unexpected keyword `catch`", hint: "(cmd) catch", at: 7},
	{src: "else { 1 }", msg: "unexpected keyword `else`", hint: "if", at: 0},
	{src: "1 2", msg: "expected newline or `;` between statements", hint: "^name", at: 2},
	{src: "let x = 5 ls", msg: "expected newline or `;` between statements", at: 10},
	{src: `"{}"`, msg: "interpolation must contain one expression", at: 1},
	{src: `"{1 2}"`, msg: "interpolation must contain one expression", at: 4},
	{src: "let [a, b] = xs", msg: "destructuring", at: 4},
	{src: "with foo: 1 {}", msg: "`with` accepts only cwd, env and reef", at: 5},
	{src: strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), msg: "nesting too deep", at: -1},
	{src: strings.Repeat("[", 1000), msg: "nesting too deep", at: -1},
	{src: strings.Repeat("-", 5000) + "1", msg: "nesting too deep", at: -1},
	{src: strings.Repeat(`"{`, 1000) + "1" + strings.Repeat(`}"`, 1000), msg: "nesting too deep", at: -1},
	{src: "let x: " + strings.Repeat("list<", 1000) + "int" + strings.Repeat(">", 1000) + " = 1", msg: "nesting too deep", at: -1},
	{src: "if x {}" + strings.Repeat(" else if x {}", 1000), msg: "nesting too deep", at: -1},
	// Input that merely ended early is Partial so a REPL reads on.
	{src: "let x = 1 +", msg: "expected expression, found EOF", partial: true, at: 11},
	{src: "f(1,", msg: "found EOF", partial: true, at: 4},
	{src: "[1, 2", msg: "found EOF", partial: true, at: 5},
	{src: "{a: 1,", msg: "found EOF", partial: true, at: 6},
	{src: "if x {", msg: "expected `}`, found EOF", partial: true, at: 6},
	{src: "match x {\n 1 => 2\n", msg: "found EOF", partial: true, at: -1},
	{src: "1 +\\", msg: "unexpected end of input", partial: true, at: 3},
	{src: "echo a \\", msg: "unexpected end of input", partial: true, at: 7},
	{src: "x = 1 &&", msg: "found EOF", partial: true, at: -1},
	{src: "alias g =", msg: "expected a command", partial: true, at: -1},
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range errorCases {
		name := tc.src
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prog, err := Parse(tc.src, nil)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded: %s", tc.src, dump(prog.Stmts))
			}
			d := diag.As(err)
			if d == nil || d.Code != diag.ParseError {
				t.Fatalf("Parse(%q) error %v is not a parse_error", tc.src, err)
			}
			if !strings.Contains(d.Msg, tc.msg) {
				t.Errorf("Parse(%q) message %q lacks %q", tc.src, d.Msg, tc.msg)
			}
			if !strings.Contains(d.Hint, tc.hint) {
				t.Errorf("Parse(%q) hint %q lacks %q", tc.src, d.Hint, tc.hint)
			}
			if d.Partial != tc.partial {
				t.Errorf("Parse(%q) Partial = %v, want %v (%s)", tc.src, d.Partial, tc.partial, d.Msg)
			}
			if tc.at >= 0 && d.Span.Start != tc.at {
				t.Errorf("Parse(%q) span starts at %d, want %d (%s)", tc.src, d.Span.Start, tc.at, d.Msg)
			}
			if d.Src != tc.src {
				t.Errorf("Parse(%q) error Src = %q", tc.src, d.Src)
			}
			if !strings.HasPrefix(d.Show(""), "error[parse_error]: "+d.Msg) {
				t.Errorf("Show does not start with the message: %q", d.Show(""))
			}
		})
	}
}

func TestREPLOptions(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{".len()", `(ExprStmt X:(MethodCall Recv:(Ident Name:"it") Name:"len" Args:[]))`},
		{"it + 1", `(ExprStmt X:(Binary Op:"+" L:(Ident Name:"it") R:(IntLit V:1)))`},
		{"out[0]", `(ExprStmt X:(Index X:(Ident Name:"out") Index:(IntLit)))`},
		{"(it)", `(ExprStmt X:(Ident Name:"it"))`},
		{"./run.sh", `(ExprStmt X:(Command Head:(PathWord Text:"./run.sh")))`},
		{"../up", `(ExprStmt X:(Command Head:(PathWord Text:"../up")))`},
	}
	for _, tc := range tests {
		prog, err := Parse(tc.src, &Options{REPL: true})
		if err != nil {
			t.Errorf("REPL Parse(%q): %v", tc.src, err)
			continue
		}
		if got := dump(prog.Stmts[0]); got != tc.want {
			t.Errorf("REPL Parse(%q) = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestCommandBoundShadowsOptionsBound checks that a name bound as a
// command in the source wins over a session value binding.
func TestCommandBoundShadowsOptionsBound(t *testing.T) {
	t.Parallel()
	opts := &Options{
		Bound:        func(n string) bool { return n == "deploy" },
		CommandBound: func(n string) bool { return n == "build" },
	}
	opts.Bound = func(n string) bool { return n == "deploy" || n == "build" }
	prog, err := Parse("deploy\nbuild\nfn deploy() { 1 }\ndeploy\n{ let deploy = 1 }\ndeploy", opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"*syntax.Ident", "*syntax.Command", "", "*syntax.Command", "", "*syntax.Command"}
	for i, w := range want {
		if w == "" {
			continue
		}
		x := prog.Stmts[i].(*ExprStmt).X
		if got := typeName(x); got != w {
			t.Errorf("statement %d is %s, want %s", i, got, w)
		}
	}
}

func typeName(x any) string {
	switch x.(type) {
	case *Ident:
		return "*syntax.Ident"
	case *Command:
		return "*syntax.Command"
	}
	return "other"
}
