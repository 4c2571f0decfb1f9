package syntax

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseCases is the shared table of source → AST (as dump S-expressions,
// one line per statement). Names listed in bound are value-bound before
// the source, as session bindings would be.
var parseCases = []struct {
	name  string
	src   string
	bound []string
	want  string
}{
	{name: "precedence", src: "1 + 2 * 3",
		want: `(ExprStmt X:(Binary Op:"+" L:(IntLit V:1) R:(Binary Op:"*" L:(IntLit V:2) R:(IntLit V:3))))`},
	{name: "logical and coalesce precedence", src: "a ?? b || c && d == e", bound: []string{"a", "b", "c", "d", "e"},
		want: `(ExprStmt X:(Binary Op:"??" L:(Ident Name:"a") R:(Binary Op:"||" L:(Ident Name:"b") R:(Binary Op:"&&" L:(Ident Name:"c") R:(Binary Op:"==" L:(Ident Name:"d") R:(Ident Name:"e"))))))`},
	{name: "unary binds looser than postfix", src: "-v.abs()", bound: []string{"v"},
		want: `(ExprStmt X:(Unary Op:"-" X:(MethodCall Recv:(Ident Name:"v") Name:"abs" Args:[])))`},
	{name: "ranges", src: "1..5; 1..=5",
		want: `(ExprStmt X:(Binary Op:".." L:(IntLit V:1) R:(IntLit V:5)))` + "\n" + `(ExprStmt X:(Binary Op:"..=" L:(IntLit V:1) R:(IntLit V:5)))`},
	{name: "method call on an int literal", src: "5.len()",
		want: `(ExprStmt X:(MethodCall Recv:(IntLit V:5) Name:"len" Args:[]))`},
	{name: "let then expression", src: "let x = 1\nx",
		want: `(LetStmt Name:"x" Value:(IntLit V:1))` + "\n" + `(ExprStmt X:(Ident Name:"x"))`},
	{name: "let is bound only after its initializer", src: "let ls = ls\nls",
		want: `(LetStmt Name:"ls" Value:(Ident Name:"ls"))` + "\n" + `(ExprStmt X:(Ident Name:"ls"))`},
	{name: "unbound bare name is a command", src: "x",
		want: `(ExprStmt X:(Command Head:(Word Text:"x")))`},
	{name: "value-bound name is an expression", src: "let git = {name: \"g\"}\ngit.name",
		want: `(LetStmt Name:"git" Value:(RecordLit Fields:[(RecordField Key:"name" Value:(StrLit V:"g"))]))` + "\n" + `(ExprStmt X:(Field X:(Ident Name:"git") Name:"name"))`},
	{name: "Options.Bound makes a name value-bound", src: "git", bound: []string{"git"},
		want: `(ExprStmt X:(Ident Name:"git"))`},
	{name: "path glob regex are always bound", src: "path",
		want: `(ExprStmt X:(Ident Name:"path"))`},
	{name: "let binding is block scoped", src: "{ let a = 1 }\na",
		want: `(ExprStmt X:(Block Stmts:[(LetStmt Name:"a" Value:(IntLit V:1))]))` + "\n" + `(ExprStmt X:(Command Head:(Word Text:"a")))`},
	{name: "fn is command-bound and params value-bound", src: "fn f(a: int, b = 2, ...rest: list<str>) -> int { a }\nf 1 2",
		want: `(FnDecl Name:"f" Params:[(Param Name:"a" Type:(TypeExpr Name:"int")) (Param Name:"b" Default:(IntLit V:2))] Rest:(Param Name:"rest" Type:(TypeExpr Name:"list" Args:[(TypeExpr Name:"str")])) Ret:(TypeExpr Name:"int") Body:(Block Stmts:[(ExprStmt X:(Ident Name:"a"))]))` + "\n" +
			`(ExprStmt X:(Command Head:(Word Text:"f") Args:[(Word Text:"1") (Word Text:"2")]))`},
	{name: "command flags and word kinds", src: `git status --short -rf --x=y --dry-run --n= "v" *.rs ./a ~ -- - a=b ver#2 # c`,
		want: `(ExprStmt X:(Command Head:(Word Text:"git") Args:[(Word Text:"status") (Flag Name:"short" Raw:"--short") (Flag Name:"rf" Raw:"-rf" Short:true) (Flag Name:"x" Raw:"--x=y" Value:(Word Text:"y")) (Flag Name:"dry_run" Raw:"--dry-run") (Flag Name:"n" Raw:"--n=" Value:(ExprPart X:(StrLit V:"v")) EmptyEq:true) (GlobWord Pattern:"*.rs") (PathWord Text:"./a") (PathWord Text:"~") (EndOfFlags) (Dash) (Word Text:"a=b") (Word Text:"ver#2")]))`},
	{name: "env prefix redirects and background", src: `FOO=1 sh -c "x" > out.txt &`,
		want: `(ExprStmt X:(Command Env:[(EnvAssign Name:"FOO" Value:(Word Text:"1"))] Head:(Word Text:"sh") Args:[(Flag Name:"c" Raw:"-c" Short:true) (ExprPart X:(StrLit V:"x"))] Redirs:[(Redirect Op:">" Target:(Word Text:"out.txt"))] Background:true))`},
	{name: "all redirect forms", src: "cat < in.txt > out.txt >> log.txt",
		want: `(ExprStmt X:(Command Head:(Word Text:"cat") Redirs:[(Redirect Op:"<" Target:(Word Text:"in.txt")) (Redirect Op:">" Target:(Word Text:"out.txt")) (Redirect Op:">>" Target:(Word Text:"log.txt"))]))`},
	{name: "spaced digit argument is a plain redirect", src: "echo 2 > sink.txt",
		want: `(ExprStmt X:(Command Head:(Word Text:"echo") Args:[(Word Text:"2")] Redirs:[(Redirect Op:">" Target:(Word Text:"sink.txt"))]))`},
	{name: "caret forces a command", src: "let ls = 5\n^ls -l",
		want: `(LetStmt Name:"ls" Value:(IntLit V:5))` + "\n" + `(ExprStmt X:(Command Caret:true Head:(Word Text:"ls") Args:[(Flag Name:"l" Raw:"-l" Short:true)]))`},
	{name: "path head", src: "~/bin/tool x",
		want: `(ExprStmt X:(Command Head:(PathWord Text:"~/bin/tool") Args:[(Word Text:"x")]))`},
	{name: "command chain", src: "echo a && echo b || echo c",
		want: `(ExprStmt X:(Binary Op:"||" L:(Binary Op:"&&" L:(Command Head:(Word Text:"echo") Args:[(Word Text:"a")]) R:(Command Head:(Word Text:"echo") Args:[(Word Text:"b")])) R:(Command Head:(Word Text:"echo") Args:[(Word Text:"c")])))`},
	{name: "command in parens", src: "(FOO=bar sh -c 'x')",
		want: `(ExprStmt X:(Command Env:[(EnvAssign Name:"FOO" Value:(Word Text:"bar"))] Head:(Word Text:"sh") Args:[(Flag Name:"c" Raw:"-c" Short:true) (ExprPart X:(StrLit V:"x"))]))`},
	{name: "command argument embeds an expression", src: `echo "{name}!" (1 + 2)`,
		want: `(ExprStmt X:(Command Head:(Word Text:"echo") Args:[(ExprPart X:(InterpStr Parts:[(StrPart Expr:(Ident Name:"name")) (StrPart Lit:"!")])) (ExprPart X:(Binary Op:"+" L:(IntLit V:1) R:(IntLit V:2)))]))`},
	{name: "command trailing block", src: "retry-later 3 { 1 }",
		want: `(ExprStmt X:(Command Head:(Word Text:"retry-later") Args:[(Word Text:"3")] Block:(Block Stmts:[(ExprStmt X:(IntLit V:1))])))`},
	{name: "alias and use", src: "alias gs = git status\nuse ./lib/release",
		want: `(AliasStmt Name:"gs" Cmd:(Command Head:(Word Text:"git") Args:[(Word Text:"status")]))` + "\n" + `(UseStmt Target:"./lib/release")`},
	{name: "export", src: "export let v = 1",
		want: `(ExportStmt Decl:(LetStmt Name:"v" Value:(IntLit V:1)))`},
	{name: "for iterable is exempt from trailing blocks", src: "for x in xs.where(.a > 1) { x }", bound: []string{"xs"},
		want: `(ForStmt Var:"x" Iter:(MethodCall Recv:(Ident Name:"xs") Name:"where" Args:[(Arg Value:(Lambda Params:[(Param Name:".")] Body:(Binary Op:">" L:(Field X:(Ident Name:".") Name:"a") R:(IntLit V:1)) Implicit:true))]) Body:(Block Stmts:[(ExprStmt X:(Ident Name:"x"))]))`},
	{name: "if condition keeps its body", src: "if r.ok { 1 } else if x { 2 } else { 3 }", bound: []string{"r", "x"},
		want: `(ExprStmt X:(If Cond:(Field X:(Ident Name:"r") Name:"ok") Then:(Block Stmts:[(ExprStmt X:(IntLit V:1))]) Else:(If Cond:(Ident Name:"x") Then:(Block Stmts:[(ExprStmt X:(IntLit V:2))]) Else:(Block Stmts:[(ExprStmt X:(IntLit V:3))]))))`},
	{name: "else on the next line", src: "if true { 1 }\nelse { 2 }",
		want: `(ExprStmt X:(If Cond:(BoolLit V:true) Then:(Block Stmts:[(ExprStmt X:(IntLit V:1))]) Else:(Block Stmts:[(ExprStmt X:(IntLit V:2))])))`},
	{name: "while and compound assignment", src: "var n = 0\nwhile n < 3 { n += 1 }",
		want: `(LetStmt Mutable:true Name:"n" Value:(IntLit))` + "\n" + `(WhileStmt Cond:(Binary Op:"<" L:(Ident Name:"n") R:(IntLit V:3)) Body:(Block Stmts:[(AssignStmt Name:"n" Op:"+=" Value:(IntLit V:1))]))`},
	{name: "env assignment", src: `env.FOO = "x"`,
		want: `(AssignStmt Name:"FOO" Env:true Op:"=" Value:(StrLit V:"x"))`},
	{name: "dot lambda", src: "ls.where(.size > 1mb).map(.len())",
		want: `(ExprStmt X:(MethodCall Recv:(MethodCall Recv:(Ident Name:"ls") Name:"where" Args:[(Arg Value:(Lambda Params:[(Param Name:".")] Body:(Binary Op:">" L:(Field X:(Ident Name:".") Name:"size") R:(SizeLit Bytes:1000000)) Implicit:true))]) Name:"map" Args:[(Arg Value:(Lambda Params:[(Param Name:".")] Body:(MethodCall Recv:(Ident Name:".") Name:"len" Args:[]) Implicit:true))]))`},
	{name: "trailing block after a call and after a name", src: "retry(3) { 1 }\nxs.each { 2 }", bound: []string{"xs"},
		want: `(ExprStmt X:(Call Fn:(Ident Name:"retry") Args:[(Arg Value:(IntLit V:3)) (Arg Value:(Lambda Body:(Block Stmts:[(ExprStmt X:(IntLit V:1))])))]))` + "\n" +
			`(ExprStmt X:(MethodCall Recv:(Ident Name:"xs") Name:"each" Args:[(Arg Value:(Lambda Body:(Block Stmts:[(ExprStmt X:(IntLit V:2))])))]))`},
	{name: "named argument", src: `glob("*.rs", hidden: true)`,
		want: `(ExprStmt X:(Call Fn:(Ident Name:"glob") Args:[(Arg Value:(StrLit V:"*.rs")) (Arg Name:"hidden" Value:(BoolLit V:true))]))`},
	{name: "feed argument may be a command", src: `"b".feed(sort -r)`,
		want: `(ExprStmt X:(MethodCall Recv:(StrLit V:"b") Name:"feed" Args:[(Arg Value:(Command Head:(Word Text:"sort") Args:[(Flag Name:"r" Raw:"-r" Short:true)]))]))`},
	{name: "safe navigation", src: "x?.a?.b(1)", bound: []string{"x"},
		want: `(ExprStmt X:(MethodCall Recv:(Field X:(Ident Name:"x") Name:"a" Safe:true) Name:"b" Args:[(Arg Value:(IntLit V:1))] Safe:true))`},
	{name: "index", src: "xs[0]",
		want: `(ExprStmt X:(Index X:(Ident Name:"xs") Index:(IntLit)))`},
	{name: "iife", src: "f(1)(2)\n((a,b)=>a+b)(2,3)",
		want: `(ExprStmt X:(Call Fn:(Call Fn:(Ident Name:"f") Args:[(Arg Value:(IntLit V:1))]) Args:[(Arg Value:(IntLit V:2))]))` + "\n" +
			`(ExprStmt X:(Call Fn:(Lambda Params:[(Param Name:"a") (Param Name:"b")] Body:(Binary Op:"+" L:(Ident Name:"a") R:(Ident Name:"b"))) Args:[(Arg Value:(IntLit V:2)) (Arg Value:(IntLit V:3))]))`},
	{name: "lambda forms", src: "x => x * 2\n(a: int) => a\n() => 42",
		want: `(ExprStmt X:(Lambda Params:[(Param Name:"x")] Body:(Binary Op:"*" L:(Ident Name:"x") R:(IntLit V:2))))` + "\n" +
			`(ExprStmt X:(Lambda Params:[(Param Name:"a" Type:(TypeExpr Name:"int"))] Body:(Ident Name:"a")))` + "\n" +
			`(ExprStmt X:(Lambda Params:[] Body:(IntLit V:42)))`},
	{name: "lambda body record", src: "xs.map(x => {v: x.a})",
		want: `(ExprStmt X:(MethodCall Recv:(Ident Name:"xs") Name:"map" Args:[(Arg Value:(Lambda Params:[(Param Name:"x")] Body:(RecordLit Fields:[(RecordField Key:"v" Value:(Field X:(Ident Name:"x") Name:"a"))])))]))`},
	{name: "grouping adds no node", src: "(1 + 2) * 3",
		want: `(ExprStmt X:(Binary Op:"*" L:(Binary Op:"+" L:(IntLit V:1) R:(IntLit V:2)) R:(IntLit V:3)))`},
	{name: "records blocks and the empty record", src: "{}\n{a}\n{\n  a: 1, \"b c\": 2,}",
		want: `(ExprStmt X:(RecordLit Fields:[]))` + "\n" + `(ExprStmt X:(Block Stmts:[(ExprStmt X:(Command Head:(Word Text:"a")))]))` + "\n" +
			`(ExprStmt X:(RecordLit Fields:[(RecordField Key:"a" Value:(IntLit V:1)) (RecordField Key:"b c" Value:(IntLit V:2))]))`},
	{name: "list with newlines and trailing comma", src: "[1, 2,\n 3,]",
		want: `(ExprStmt X:(ListLit Items:[(IntLit V:1) (IntLit V:2) (IntLit V:3)]))`},
	{name: "leading dot continues the chain", src: "[1, 2]\n  .map(x => x * 2)\n  # note\n  .sum()",
		want: `(ExprStmt X:(MethodCall Recv:(MethodCall Recv:(ListLit Items:[(IntLit V:1) (IntLit V:2)]) Name:"map" Args:[(Arg Value:(Lambda Params:[(Param Name:"x")] Body:(Binary Op:"*" L:(Ident Name:"x") R:(IntLit V:2))))]) Name:"sum" Args:[]))`},
	{name: "postfix catch binds loosest and may start the next line", src: "1 / 0\n  catch \"fallback\"\n1 + 2 catch e { e }",
		want: `(ExprStmt X:(Catch X:(Binary Op:"/" L:(IntLit V:1) R:(IntLit)) Handler:(StrLit V:"fallback")))` + "\n" +
			`(ExprStmt X:(Catch X:(Binary Op:"+" L:(IntLit V:1) R:(IntLit V:2)) Binder:"e" Handler:(Block Stmts:[(ExprStmt X:(Ident Name:"e"))])))`},
	{name: "try catch", src: "try { 1 } catch e { e }\ntry { 1 } catch { 2 }",
		want: `(ExprStmt X:(Try Body:(Block Stmts:[(ExprStmt X:(IntLit V:1))]) Binder:"e" Handler:(Block Stmts:[(ExprStmt X:(Ident Name:"e"))])))` + "\n" +
			`(ExprStmt X:(Try Body:(Block Stmts:[(ExprStmt X:(IntLit V:1))]) Handler:(Block Stmts:[(ExprStmt X:(IntLit V:2))])))`},
	{name: "with and spawn", src: `with cwd: "sub", env: {A: "1"} { pwd }` + "\nspawn { 1 }",
		want: `(ExprStmt X:(With Entries:[(WithEntry Key:"cwd" Value:(StrLit V:"sub")) (WithEntry Key:"env" Value:(RecordLit Fields:[(RecordField Key:"A" Value:(StrLit V:"1"))]))] Body:(Block Stmts:[(ExprStmt X:(Command Head:(Word Text:"pwd")))])))` + "\n" +
			`(ExprStmt X:(Spawn Body:(Block Stmts:[(ExprStmt X:(IntLit V:1))])))`},
	{name: "match arms and patterns", src: `match x { 1 | 2 => "a"; [a, ...r] if a > 1 => r, {k, v: int n} => n; 0..3 => 0; 3..=9 => 1; null => 2; int => 3; _ => -1 }`, bound: []string{"x"},
		want: `(ExprStmt X:(Match Subject:(Ident Name:"x") Arms:[(MatchArm Patterns:[(LitPat Lit:(IntLit V:1)) (LitPat Lit:(IntLit V:2))] Body:(StrLit V:"a")) (MatchArm Patterns:[(ListPat Elems:[(BindPat Name:"a")] HasRest:true Rest:"r")] Guard:(Binary Op:">" L:(Ident Name:"a") R:(IntLit V:1)) Body:(Ident Name:"r")) (MatchArm Patterns:[(RecordPat Fields:[(FieldPat Name:"k") (FieldPat Name:"v" Pat:(TypePat Type:"int" Name:"n"))])] Body:(Ident Name:"n")) (MatchArm Patterns:[(RangePat Hi:3)] Body:(IntLit)) (MatchArm Patterns:[(RangePat Lo:3 Hi:9 Inclusive:true)] Body:(IntLit V:1)) (MatchArm Patterns:[(LitPat Lit:(NullLit))] Body:(IntLit V:2)) (MatchArm Patterns:[(BindPat Name:"int")] Body:(IntLit V:3)) (MatchArm Patterns:[(WildcardPat)] Body:(Unary Op:"-" X:(IntLit V:1)))]))`},
	{name: "guard ending in a bare name is not a lambda", src: "let flag = true\nmatch 5 { n if flag => 1; _ => 0 }",
		want: `(LetStmt Name:"flag" Value:(BoolLit V:true))` + "\n" + `(ExprStmt X:(Match Subject:(IntLit V:5) Arms:[(MatchArm Patterns:[(BindPat Name:"n")] Guard:(Ident Name:"flag") Body:(IntLit V:1)) (MatchArm Patterns:[(WildcardPat)] Body:(IntLit))]))`},
	{name: "match binders are value-bound in the body", src: "match 1 { n => n }",
		want: `(ExprStmt X:(Match Subject:(IntLit V:1) Arms:[(MatchArm Patterns:[(BindPat Name:"n")] Body:(Ident Name:"n"))]))`},
	{name: "interpreter blocks", src: "python3 { import json; print({\"a\": 1}) }.out\nsh'''printf hi'''\nsh {\n  echo '}'\n}",
		want: `(ExprStmt X:(Field X:(LangBlock Tool:"python3" Text:"import json; print({\"a\": 1})") Name:"out"))` + "\n" +
			`(ExprStmt X:(LangBlock Tool:"sh" Text:"printf hi"))` + "\n" + `(ExprStmt X:(LangBlock Tool:"sh" Text:"echo '}'"))`},
	{name: "string forms", src: `"a\tb\u{1F600}\{"; 'raw\n'; re"\d+"; t"2026-07-09"`,
		want: `(ExprStmt X:(StrLit V:"a\tb😀{"))` + "\n" + `(ExprStmt X:(StrLit V:"raw\\n"))` + "\n" + `(ExprStmt X:(RegexLit Src:"\\d+"))` + "\n" + `(ExprStmt X:(DatetimeLit Src:"2026-07-09"))`},
	{name: "interpolation with nested braces and strings", src: `"a {x.get("k") ?? {b: 1}} b"`, bound: []string{"x"},
		want: `(ExprStmt X:(InterpStr Parts:[(StrPart Lit:"a ") (StrPart Expr:(Binary Op:"??" L:(MethodCall Recv:(Ident Name:"x") Name:"get" Args:[(Arg Value:(StrLit V:"k"))]) R:(RecordLit Fields:[(RecordField Key:"b" Value:(IntLit V:1))]))) (StrPart Lit:" b")]))`},
	{name: "triple-quote dedent", src: "\"\"\"\n    a {x}\n      b\n    \"\"\"\n'''\n  p\n q\n'''", bound: []string{"x"},
		want: `(ExprStmt X:(InterpStr Parts:[(StrPart Lit:"a ") (StrPart Expr:(Ident Name:"x")) (StrPart Lit:"\n  b")]))` + "\n" + `(ExprStmt X:(StrLit V:" p\nq"))`},
	{name: "CRLF source", src: "let s = '''\r\n  a\r\n  b\r\n  '''\r\necho a\r\n",
		want: `(LetStmt Name:"s" Value:(StrLit V:"a\nb"))` + "\n" + `(ExprStmt X:(Command Head:(Word Text:"echo") Args:[(Word Text:"a")]))`},
	{name: "numeric literals", src: "1_000_000; 0xFF_FF; 0o755; 0b1010; 0b; 3.14; 1e9; 1.0e-9",
		want: "(ExprStmt X:(IntLit V:1000000))\n(ExprStmt X:(IntLit V:65535))\n(ExprStmt X:(IntLit V:493))\n(ExprStmt X:(IntLit V:10))\n(ExprStmt X:(SizeLit))\n(ExprStmt X:(FloatLit V:3.14))\n(ExprStmt X:(FloatLit V:1e+09))\n(ExprStmt X:(FloatLit V:1e-09))"},
	{name: "unit literals scale and saturate", src: "2.5mb; 1kib; 4000000000w; 1.5h; 3us; 99999999999tib",
		want: "(ExprStmt X:(SizeLit Bytes:2500000))\n(ExprStmt X:(SizeLit Bytes:1024))\n(ExprStmt X:(DurationLit Ns:9223372036854775807))\n(ExprStmt X:(DurationLit Ns:5400000000000))\n(ExprStmt X:(DurationLit Ns:3000))\n(ExprStmt X:(SizeLit Bytes:18446744073709551615))"},
	{name: "fractional units round half away from zero", src: "2.5b; 0.5ns; 1.25kib; 0.1s",
		want: "(ExprStmt X:(SizeLit Bytes:3))\n(ExprStmt X:(DurationLit Ns:1))\n(ExprStmt X:(SizeLit Bytes:1280))\n(ExprStmt X:(DurationLit Ns:100000000))"},
	{name: "time literals", src: "9:05am; 12am; 7:05pm; 23:15; 14:30:05; 10:30:15pm",
		want: "(ExprStmt X:(TimeLit H:9 M:5))\n(ExprStmt X:(TimeLit))\n(ExprStmt X:(TimeLit H:19 M:5))\n(ExprStmt X:(TimeLit H:23 M:15))\n(ExprStmt X:(TimeLit H:14 M:30 S:5))\n(ExprStmt X:(TimeLit H:22 M:30 S:15))"},
	{name: "min int is written as a subtraction", src: "-9223372036854775807 - 1",
		want: `(ExprStmt X:(Binary Op:"-" L:(Unary Op:"-" X:(IntLit V:9223372036854775807)) R:(IntLit V:1)))`},
	{name: "let with type and discard", src: "var n: list<int>? = []\nlet _ = 5",
		want: `(LetStmt Mutable:true Name:"n" Type:(TypeExpr Name:"list" Args:[(TypeExpr Name:"int")] Optional:true) Value:(ListLit Items:[]))` + "\n" + `(LetStmt Name:"_" Value:(IntLit V:5))`},
	{name: "return break continue", src: "fn f() { for x in xs { if x { break } else { continue } }; return 1 }",
		want: `(FnDecl Name:"f" Body:(Block Stmts:[(ForStmt Var:"x" Iter:(Ident Name:"xs") Body:(Block Stmts:[(ExprStmt X:(If Cond:(Ident Name:"x") Then:(Block Stmts:[(BreakStmt)]) Else:(Block Stmts:[(ContinueStmt)])))])) (ReturnStmt Value:(IntLit V:1))]))`},
	{name: "comments and blank statements", src: "# head\n\n;; 1 # one\n",
		want: `(ExprStmt X:(IntLit V:1))`},
	{name: "backslash newline continues a line", src: "echo a \\\n  b",
		want: `(ExprStmt X:(Command Head:(Word Text:"echo") Args:[(Word Text:"a") (Word Text:"b")]))`},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prog, err := Parse(tc.src, boundOpts(tc.bound))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			var got []string
			for _, s := range prog.Stmts {
				got = append(got, dump(s))
			}
			if diff := cmp.Diff(tc.want, strings.Join(got, "\n")); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.src, diff)
			}
		})
	}
}

// boundOpts returns Options under which exactly names are value-bound.
func boundOpts(names []string) *Options {
	return &Options{Bound: func(n string) bool {
		for _, b := range names {
			if b == n {
				return true
			}
		}
		return false
	}}
}
