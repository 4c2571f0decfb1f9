package diag

import (
	"strings"
	"testing"
)

func TestShow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *Error
		src  string
		want string
	}{
		{
			name: "caret under the span on line three",
			err:  &Error{Code: ParseError, Msg: "expected expression, found EOF", Hint: "finish the expression", Span: Span{Start: 23, End: 24}},
			src:  "let a = 1\nlet b = 2\nlet x = 1 +",
			want: "error[parse_error]: expected expression, found EOF\n" +
				"  --> 3:4\n" +
				"   |\n" +
				" 3 | let x = 1 +\n" +
				"   |    ^\n" +
				"   = hint: finish the expression",
		},
		{
			name: "span width and no hint",
			err:  &Error{Code: TypeError, Msg: "bad", Span: Span{Start: 4, End: 7}},
			src:  "1 + abc",
			want: "error[type_error]: bad\n  --> 1:5\n   |\n 1 | 1 + abc\n   |     ^^^",
		},
		{
			name: "end of input after a final newline points at the last line",
			err:  &Error{Code: ParseError, Msg: "expected expression, found EOF", Span: Span{Start: 4, End: 4}},
			src:  "1 +\n",
			want: "error[parse_error]: expected expression, found EOF\n  --> 1:4\n   |\n 1 | 1 +\n   |    ^",
		},
		{
			name: "columns count characters",
			err:  &Error{Code: ParseError, Msg: "unexpected character `@`", Span: Span{Start: 5, End: 6}},
			src:  "\"π\" @",
			want: "error[parse_error]: unexpected character `@`\n  --> 1:5\n   |\n 1 | \"π\" @\n   |     ^",
		},
		{
			name: "wide line numbers widen the gutter",
			err:  &Error{Code: ParseError, Msg: "m", Span: Span{Start: 9, End: 10}},
			src:  strings.Repeat("\n", 9) + "x",
			want: "error[parse_error]: m\n   --> 10:1\n    |\n 10 | x\n    | ^",
		},
		{
			name: "no source shows the header and hint",
			err:  &Error{Code: NotFound, Msg: "command not found", Hint: "did you mean `ls`?"},
			want: "error[not_found]: command not found\n  = hint: did you mean `ls`?",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.err.Show(tc.src)
			if got != tc.want {
				t.Errorf("Show:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestShowUsesErrorSrc(t *testing.T) {
	t.Parallel()
	e := &Error{Code: ParseError, Msg: "m", Span: Span{Start: 0, End: 1}, Src: "x"}
	if got := e.Show(""); !strings.Contains(got, " 1 | x") {
		t.Errorf("Show(\"\") ignored e.Src:\n%s", got)
	}
}

// TestShowNeverPanics feeds out-of-range and inverted spans.
func TestShowNeverPanics(t *testing.T) {
	t.Parallel()
	for _, sp := range []Span{{-5, -1}, {100, 200}, {3, 1}, {1, 2}} {
		e := &Error{Code: ParseError, Msg: "m", Span: sp}
		got := e.Show("aé\nb")
		if !strings.HasPrefix(got, "error[parse_error]: m\n") {
			t.Errorf("span %v: bad header in %q", sp, got)
		}
	}
}
