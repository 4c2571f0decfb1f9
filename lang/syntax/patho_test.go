package syntax

import (
	"strings"
	"testing"
	"time"
)

// TestPathologicalInputs: huge or deeply nested inputs finish quickly with
// a result or a parse error; none may crash the process with a stack
// overflow.
func TestPathologicalInputs(t *testing.T) {
	t.Parallel()
	const n = 200_000
	inputs := map[string]string{
		"parens":          strings.Repeat("(", n),
		"brackets":        strings.Repeat("[", n),
		"braces":          strings.Repeat("{", n),
		"nested strings":  strings.Repeat(`"{`, n),
		"nested strings2": strings.Repeat(`"{'`, n),
		"triple strings":  strings.Repeat(`"""{`, n),
		"else if chain":   "if x {}" + strings.Repeat(" else if x {}", n),
		"type args":       "let x: " + strings.Repeat("list<", n) + "int" + strings.Repeat(">", n) + " = 1",
		"lambdas":         strings.Repeat("x => ", n) + "1",
		"bangs":           strings.Repeat("!", n) + "x",
		"long sum":        strings.Repeat("1 + ", n) + "1",
		"long chain":      "x" + strings.Repeat(".a", n),
		"long command":    "echo" + strings.Repeat(" a", n),
		"command parens":  strings.Repeat("echo (", n),
		"match nesting":   strings.Repeat("match x { _ => ", n),
		"record patterns": "match x { " + strings.Repeat("{a: ", n) + "} }",
		"list patterns":   "match x { " + strings.Repeat("[", n) + "] }",
		"catch chain":     "1" + strings.Repeat(" catch 1", n),
		"interp depth":    strings.Repeat(`"{`, 300) + "1" + strings.Repeat(`}"`, 300),
		"closed nesting":  strings.Repeat(`"{`, n) + "1" + strings.Repeat(`}"`, n),
		"sh braces":       "sh " + strings.Repeat("{", n),
		"fn params":       "fn f(" + strings.Repeat("a, ", n) + ") {}",
	}
	for name, src := range inputs {
		start := time.Now()
		_, _ = Parse(src, nil)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Logf("%s: %v", name, d)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: Parse took %v", name, d)
		}
	}
}
