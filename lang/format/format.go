// Package format is `shoal fmt`: a conservative layout normaliser for
// Shoal source (docs/fmt.md). It re-indents lines from their bracket
// nesting, removes trailing blanks and surplus blank lines, ends the text
// with exactly one newline and turns CRLF into LF — and changes nothing
// else: no byte inside a token (strings, interpreter blocks, regexes,
// command words), no spacing between tokens, no comment text.
//
// Safety is checked, not assumed: Source parses its own output and
// refuses (an *UnsafeError, the input left alone) unless the program is
// the same syntax tree, ignoring positions, with the same comments. It
// imports only lang/syntax.
package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shoal-sh/shoal/lang/syntax"
)

// options parse the way `shoal FILE` does: a script, with args and
// script bound before its first line.
var options = &syntax.Options{Bound: func(name string) bool { return name == "args" || name == "script" }}

// UnsafeError reports that formatting would have changed the program's
// meaning or lost a comment. It is a bug in the formatter, never in the
// input; the caller must keep the input as it is.
type UnsafeError struct{ Reason string }

func (e *UnsafeError) Error() string {
	return "format: refusing to format: " + e.Reason + " (a formatter bug; the source is left unchanged)"
}

// Source returns src in canonical layout. A source that does not parse
// is not formatted: the error is the parser's *diag.Error (code
// parse_error), as `shoal FILE` would report it.
func Source(src []byte) ([]byte, error) {
	text, prog, m, err := parseMapped(src)
	if err != nil {
		return nil, err
	}
	out := layout(text, m)
	if err := verify(text, prog, m, out); err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// verify checks out against the original: it parses, to the same tree
// without positions, its non-blank bytes are the original's, and it has
// the same comments in the same order.
func verify(src string, prog *syntax.Program, m *lexMap, out string) error {
	if stripBlanks(src) != stripBlanks(out) {
		return &UnsafeError{"the text other than blanks changed"}
	}
	prog2, err := syntax.Parse(out, options)
	if err != nil {
		return &UnsafeError{"the output does not parse: " + err.Error()}
	}
	a, err := tree(prog)
	if err != nil {
		return &UnsafeError{err.Error()}
	}
	b, err := tree(prog2)
	if err != nil {
		return &UnsafeError{err.Error()}
	}
	if a != b {
		return &UnsafeError{"the syntax tree changed"}
	}
	m2, err := buildMap(out, prog2)
	if err != nil {
		return &UnsafeError{"output: " + err.Error()}
	}
	c1, c2 := commentTexts(src, m), commentTexts(out, m2)
	if len(c1) != len(c2) {
		return &UnsafeError{fmt.Sprintf("%d comments became %d", len(c1), len(c2))}
	}
	for i := range c1 {
		if c1[i] != c2[i] {
			return &UnsafeError{fmt.Sprintf("comment %q became %q", c1[i], c2[i])}
		}
	}
	return nil
}

// sourceComments returns the text of every comment in src (from `#` to
// the end of the line, trailing blanks removed), in order. It fails like
// Source when src does not parse.
func sourceComments(src []byte) ([]string, error) {
	text, _, m, err := parseMapped(src)
	if err != nil {
		return nil, err
	}
	return commentTexts(text, m), nil
}

func commentTexts(src string, m *lexMap) []string {
	out := make([]string, 0, len(m.comments))
	for _, c := range m.comments {
		out = append(out, strings.TrimRight(src[c.start:c.end], " \t\r"))
	}
	return out
}

// stripBlanks drops every space, tab, CR and LF.
func stripBlanks(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}

// tree returns prog's syntax tree as canonical JSON without positions:
// the AST JSON of docs/ast.md with every "span" and the source text
// removed. Two programs with equal trees mean the same thing.
func tree(prog *syntax.Program) (string, error) {
	raw, err := syntax.MarshalProgram(prog)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if root, ok := v.(map[string]any); ok {
		delete(root, "src")
	}
	v = dropSpans(v)
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func dropSpans(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "span")
		for k, c := range x {
			x[k] = dropSpans(c)
		}
	case []any:
		for i, c := range x {
			x[i] = dropSpans(c)
		}
	}
	return v
}

// parseMapped parses src and maps which of its bytes must be kept verbatim; a parse failure
// is the parser's error, a map that cannot be built an *UnsafeError.
func parseMapped(src []byte) (string, *syntax.Program, *lexMap, error) {
	text := string(src)
	prog, err := syntax.Parse(text, options)
	if err != nil {
		return "", nil, nil, err
	}
	m, err := buildMap(text, prog)
	if err != nil {
		return "", nil, nil, &UnsafeError{err.Error()}
	}
	return text, prog, m, nil
}
