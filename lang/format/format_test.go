package format

import (
	"errors"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
)

// goldens pin the layout rules of docs/fmt.md: each input formats to its
// want, and the safety oracle holds for it.
var goldens = []struct {
	name, in, want string
}{
	{
		name: "nested blocks are indented two spaces a level",
		in:   "fn f(x) {\nif x > 1 {\n        for i in 1..x {\n\techo \"{i}\"\n   }\n} else {\n  x\n      }\n}\n",
		want: "fn f(x) {\n  if x > 1 {\n    for i in 1..x {\n      echo \"{i}\"\n    }\n  } else {\n    x\n  }\n}\n",
	},
	{
		name: "records and lists indent by the line their bracket opens on",
		in:   "let r = {\n        name: \"shoal\",\n     tags: [\n   \"a\",\n            \"b\",\n  ],\n  nested: { deep: {\n  x: 1 } },\n}\nlet call = foo(a, {\n        x: 1\n    })\n",
		want: "let r = {\n  name: \"shoal\",\n  tags: [\n    \"a\",\n    \"b\",\n  ],\n  nested: { deep: {\n    x: 1 } },\n}\nlet call = foo(a, {\n  x: 1\n})\n",
	},
	{
		name: "match arms, a continued arm and a block arm",
		in:   "let size = match n {\n      0        => \"zero\",\n  1..10    =>\n\"small\",\n  [a, ...rest] => {\n        a\n  }\n         _        => \"big\"\n}\n",
		want: "let size = match n {\n  0        => \"zero\",\n  1..10    =>\n    \"small\",\n  [a, ...rest] => {\n    a\n  }\n  _        => \"big\"\n}\n",
	},
	{
		name: "blank lines collapse, trailing blanks go, one final newline",
		in:   "\n\n  \necho hi   \nlet x = 1\t \t\n\n\n  \n\t\nlet y = 2   # trailing comment   \n\n\n",
		want: "echo hi\nlet x = 1\n\nlet y = 2   # trailing comment\n",
	},
	{
		name: "a missing final newline is added",
		in:   "echo hi",
		want: "echo hi\n",
	},
	{
		name: "CRLF becomes LF",
		in:   "let a = 1\r\nif a == 1 {\r\n    echo \"crlf\"\r\n}\r\n",
		want: "let a = 1\nif a == 1 {\n  echo \"crlf\"\n}\n",
	},
	{
		name: "comments on their own lines are re-indented, at line ends kept",
		in:   "# a comment on its own line\n    # another, over-indented\nfn f() {\n# inside, under-indented\n  1 # at line end   (spacing before it kept)\n        # before the closer\n}\n",
		want: "# a comment on its own line\n# another, over-indented\nfn f() {\n  # inside, under-indented\n  1 # at line end   (spacing before it kept)\n  # before the closer\n}\n",
	},
	{
		name: "a multi-line string keeps its inner indentation and trailing blanks",
		in:   "fn usage() {\n    let text = \"\"\"\n        Usage: tool [--flag]\n            --flag   does a thing   \n        \"\"\"\n    text\n}\n",
		want: "fn usage() {\n  let text = \"\"\"\n        Usage: tool [--flag]\n            --flag   does a thing   \n        \"\"\"\n  text\n}\n",
	},
	{
		name: "an interpreter block body is byte-identical",
		in:   "fn run() {\n      sh {\n        for f in *.txt; do\n            echo \"$f\"   \n        done\n\n\n      }\n}\n",
		want: "fn run() {\n  sh {\n        for f in *.txt; do\n            echo \"$f\"   \n        done\n\n\n      }\n}\n",
	},
	{
		name: "a raw interpreter block is byte-identical",
		in:   "fn py() {\n        python3'''\n    print(\"hi\")\n\tprint(\"tab\")   \n'''\n}\n",
		want: "fn py() {\n  python3'''\n    print(\"hi\")\n\tprint(\"tab\")   \n'''\n}\n",
	},
	{
		name: "backslash continuation lines are indented one level and stay continued",
		in:   "fn build() {\n        make all \\\n    --jobs 4 \\\n            --keep-going\n}\n",
		want: "fn build() {\n  make all \\\n    --jobs 4 \\\n    --keep-going\n}\n",
	},
	{
		name: "a backslash followed by a blank is not a continuation and keeps the blank",
		in:   "echo a \\ \necho b\n",
		want: "echo a \\ \necho b\n",
	},
	{
		name: "a leading-dot chain is indented one level",
		in:   "let xs = [1, 2, 3]\n.map(x => {\nx * 2\n})\n        .sum()\n",
		want: "let xs = [1, 2, 3]\n  .map(x => {\n    x * 2\n  })\n  .sum()\n",
	},
	{
		name: "an expression continued after an operator is indented one level",
		in:   "let v = 1 +\n2 +\n      3\n",
		want: "let v = 1 +\n  2 +\n  3\n",
	},
	{
		name: "a body indents from its construct, not from a continued line",
		in:   "fn greet(name: str,\n        loud: bool = false) {\n      if loud {\n\"HELLO {name.upper()}\"\n   } else {\n            \"hello {name}\"\n }\n}\n",
		want: "fn greet(name: str,\n  loud: bool = false) {\n  if loud {\n    \"HELLO {name.upper()}\"\n  } else {\n    \"hello {name}\"\n  }\n}\n",
	},
	{
		name: "else and catch on their own line align with their construct",
		in:   "let v = if true {\n1\n}\n  else {\n2\n}\nlet f = (1 / 0)\n    catch e {\n\"fallback\"\n}\n",
		want: "let v = if true {\n  1\n}\nelse {\n  2\n}\nlet f = (1 / 0)\ncatch e {\n  \"fallback\"\n}\n",
	},
	{
		name: "spacing between tokens is never touched",
		in:   "  let  a  =  [1,2 ,  3]\nfoo (a)\necho -x - y a=b\tc\n",
		want: "let  a  =  [1,2 ,  3]\nfoo (a)\necho -x - y a=b\tc\n",
	},
	{
		name: "command words keep # and brackets",
		in:   "echo ver#2 [ab].txt \"(\" x]y # a real comment (\nif true {\n      echo done\n}\n",
		want: "echo ver#2 [ab].txt \"(\" x]y # a real comment (\nif true {\n  echo done\n}\n",
	},
	{
		name: "CRLF inside a multi-line string and an interpreter block",
		in:   "let s = \"\"\"\r\n    a\r\n      b\r\n    \"\"\"\r\nsh {\r\n  echo hi\r\n}\r\n",
		want: "let s = \"\"\"\n    a\n      b\n    \"\"\"\nsh {\r\n  echo hi\r\n}\n",
	},
	{
		name: "a line inside a string is not re-indented, the code after it is",
		in:   "let x = [\"\"\"\n  a\n\"\"\", {\n        y: 1\n  }]\nx\n",
		want: "let x = [\"\"\"\n  a\n\"\"\", {\n  y: 1\n}]\nx\n",
	},
}

func TestGoldens(t *testing.T) {
	t.Parallel()
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			got, err := Source([]byte(g.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != g.want {
				t.Errorf("Source(%q)\n got: %q\nwant: %q\n--- got\n%s--- want\n%s", g.in, got, g.want, got, g.want)
			}
			checkSafe(t, g.in)
		})
	}
}

// TestParseErrorRefused: a source that does not parse is never
// formatted; the error is the parser's diagnostic.
func TestParseErrorRefused(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"let x = (1 +\n", "echo \"a\n", "sh { echo hi\n", "ls | wc\n", "   \n\tlet = \n"} {
		out, err := Source([]byte(src))
		if err == nil {
			t.Fatalf("Source(%q) = %q, want a parse error", src, out)
		}
		d := diag.As(err)
		if d == nil || d.Code != diag.ParseError {
			t.Fatalf("Source(%q): %v is not a parse_error", src, err)
		}
		var ue *UnsafeError
		if errors.As(err, &ue) {
			t.Fatalf("Source(%q): %v", src, err)
		}
		if out != nil {
			t.Fatalf("Source(%q) returned output with its error", src)
		}
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"", "\n", "\n\n  \n\t\n", "\r\n"} {
		got, err := Source([]byte(src))
		if err != nil || len(got) != 0 {
			t.Errorf("Source(%q) = %q, %v; want empty", src, got, err)
		}
	}
	if got, err := Source([]byte("# only a comment")); err != nil || string(got) != "# only a comment\n" {
		t.Errorf("comment only: %q, %v", got, err)
	}
}

// TestVerbatimBodies: the bytes of every interpreter block, from the
// tool name to the closing brace or quotes, come out unchanged.
func TestVerbatimBodies(t *testing.T) {
	t.Parallel()
	blocks := func(src string) []string {
		prog, err := syntax.Parse(src, options)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		syntax.Walk(prog, func(n syntax.Node) bool {
			if lb, ok := n.(*syntax.LangBlock); ok {
				out = append(out, src[lb.S.Start:lb.S.End])
			}
			return true
		})
		return out
	}
	seen := 0
	for _, g := range goldens {
		in, out := blocks(g.in), blocks(g.want)
		if len(in) != len(out) {
			t.Fatalf("%s: %d blocks in, %d out", g.name, len(in), len(out))
		}
		for i := range in {
			seen++
			if in[i] != out[i] {
				t.Errorf("%s: block %q became %q", g.name, in[i], out[i])
			}
		}
	}
	if seen < 3 {
		t.Errorf("only %d interpreter blocks among the goldens", seen)
	}
}

// TestVerifyRefuses: the self-check rejects an output that changes the
// program, its text or its comments, whatever the layout pass did.
func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	const head = "let s = \"\"\"\n  a\n    b\n  \"\"\"\n"
	src := head + "# note\necho s\n"
	_, prog, m, err := parseMapped([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(src, prog, m, src); err != nil {
		t.Fatalf("the source itself: %v", err)
	}
	for _, bad := range []string{
		"let s = \"\"\"\n  a\n  b\n  \"\"\"\n# note\necho s\n", // string content re-indented
		head + "#note\necho s\n",                               // comment changed
		head + "echo s\n",                                      // comment dropped
		head + "# note\necho s t\n",                            // text changed
		head + "# note\necho s \\\n",                           // a continuation made
		head + "# note\necho\ns\n",                             // a line split
	} {
		err := verify(src, prog, m, bad)
		var ue *UnsafeError
		if !errors.As(err, &ue) {
			t.Errorf("verify accepted %q (err %v)", bad, err)
		}
	}
}
