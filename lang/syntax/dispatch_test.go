package syntax

import (
	"fmt"
	"testing"
)

// stmtKind names what a statement parsed to: the statement type, or for
// an expression statement the type of its expression.
func stmtKind(s Stmt) string {
	if es, ok := s.(*ExprStmt); ok {
		return fmt.Sprintf("%T", es.X)[len("*syntax."):]
	}
	return fmt.Sprintf("%T", s)[len("*syntax."):]
}

// TestDispatch walks the statement-dispatch rules of LANGUAGE.md §3 in
// order; bound names are value-bound through Options.Bound.
func TestDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule string
		src  string
		want string
	}{
		{"2 path head", "./build.sh -v", "Command"},
		{"2 path head", "../up", "Command"},
		{"2 path head", "/bin/ls", "Command"},
		{"2 path head", "~", "Command"},
		{"2 path head", "~/bin/x", "Command"},
		{"3 keyword", "let a = 1", "LetStmt"},
		{"3 keyword", "var a = 1", "LetStmt"},
		{"3 keyword", "fn f() {}", "FnDecl"},
		{"3 keyword", "alias a = ls", "AliasStmt"},
		{"3 keyword", "use lib", "UseStmt"},
		{"3 keyword", "return 1", "ReturnStmt"},
		{"3 keyword", "break", "BreakStmt"},
		{"3 keyword", "continue", "ContinueStmt"},
		{"3 keyword", "for x in xs {}", "ForStmt"},
		{"3 keyword", "while false {}", "WhileStmt"},
		{"4 expression keyword", "true", "BoolLit"},
		{"4 expression keyword", "null", "NullLit"},
		{"4 expression keyword", "if true {}", "If"},
		{"4 expression keyword", "match 1 {}", "Match"},
		{"4 expression keyword", "try {} catch {}", "Try"},
		{"4 expression keyword", "with cwd: \"a\" {}", "With"},
		{"4 expression keyword", "spawn {}", "Spawn"},
		{"5 interpreter block", "sh { echo }", "LangBlock"},
		{"5 interpreter block", "python3\t{ x }", "LangBlock"},
		{"5 interpreter block", "bash'echo'", "LangBlock"},
		{"5 interpreter head without a block is a command", "sh -c 'x'", "Command"},
		{"5 interpreter head with a space before a quote is a command", "sh 'x'", "Command"},
		{"6 env prefix", "FOO=1 env", "Command"},
		{"6 env word alone is an assignment", "FOO=1", "AssignStmt"},
		{"7 env assignment", "env.PATH = \"/bin\"", "AssignStmt"},
		{"8 assignment", "x = 1", "AssignStmt"},
		{"8 compound assignment", "x *= 2", "AssignStmt"},
		{"9 glued dot", "ls.len()", "MethodCall"},
		{"9 glued paren", "run(\"x\")", "Call"},
		{"9 glued bracket", "items[0]", "Index"},
		{"9 glued safe dot", "cfg?.name", "Field"},
		{"9 a spaced paren is a command argument", "run (1)", "Command"},
		{"10 value-bound", "bound", "Ident"},
		{"10 value-bound with operator", "bound + 1", "Binary"},
		{"10 path glob regex", "regex", "Ident"},
		{"12 unbound", "git status", "Command"},
		{"12 unbound single word", "now", "Command"},
		{"13 caret", "^bound", "Command"},
		{"14 literal", "42", "IntLit"},
		{"14 string", "\"s\".len()", "MethodCall"},
		{"14 list", "[1]", "ListLit"},
		{"14 record", "{a: 1}", "RecordLit"},
		{"14 unary", "-1", "Unary"},
		{"14 not", "!true", "Unary"},
		{"14 paren command", "(ls)", "Command"},
		{"14 regex literal", "re\"x\"", "RegexLit"},
		{"14 datetime literal", "t\"2026-01-01\"", "DatetimeLit"},
		{"lambda at statement start", "x => x", "Lambda"},
	}
	opts := boundOpts([]string{"bound"})
	for _, tc := range tests {
		prog, err := Parse(tc.src, opts)
		if err != nil {
			t.Errorf("rule %s: Parse(%q): %v", tc.rule, tc.src, err)
			continue
		}
		if got := stmtKind(prog.Stmts[0]); got != tc.want {
			t.Errorf("rule %s: Parse(%q) is %s, want %s", tc.rule, tc.src, got, tc.want)
		}
	}
}

// TestParenShorterTest covers the dispatch inside ( … ) and for && / ||
// operands.
func TestParenShorterTest(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"(ls -la)", "Command"},
		{"(^bound)", "Command"},
		{"(./x)", "Command"},
		{"(FOO=1 env)", "Command"},
		{"(bound)", "Ident"},
		{"(if true { 1 })", "If"},
		{"(sh { x })", "LangBlock"},
		{"(f(1))", "Call"},
		{"(x => x)", "Lambda"},
		{"(true)", "BoolLit"},
	}
	opts := boundOpts([]string{"bound"})
	for _, tc := range tests {
		prog, err := Parse(tc.src, opts)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := stmtKind(prog.Stmts[0]); got != tc.want {
			t.Errorf("Parse(%q) is %s, want %s", tc.src, got, tc.want)
		}
	}
	prog, err := Parse("bound > 1 && echo hi || bound", opts)
	if err != nil {
		t.Fatal(err)
	}
	or := prog.Stmts[0].(*ExprStmt).X.(*Binary)
	and := or.L.(*Binary)
	if _, ok := and.R.(*Command); !ok {
		t.Errorf("`echo hi` operand is %T, want *Command", and.R)
	}
	if _, ok := or.R.(*Ident); !ok {
		t.Errorf("bound operand is %T, want *Ident", or.R)
	}
}
