package diag

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Show renders e as a caret diagnostic over src (e.Src when src is
// empty):
//
//	error[parse_error]: expected expression, found EOF
//	  --> 1:12
//	   |
//	 1 | let x = 1 +
//	   |            ^
//	   = hint: …
//
// The first line is always "error[CODE]: message". Columns count
// characters, not bytes; a span covering several lines is underlined to
// the end of its first line. Without source text only the first line and
// the hint are shown.
func (e *Error) Show(src string) string {
	if src == "" {
		src = e.Src
	}
	var b strings.Builder
	b.WriteString("error[" + e.Code + "]: " + e.Msg)
	if src == "" {
		if e.Hint != "" {
			b.WriteString("\n  = hint: " + e.Hint)
		}
		return b.String()
	}
	start := min(max(e.Span.Start, 0), len(src))
	end := min(max(e.Span.End, start), len(src))
	// An error at the very end of input after a final newline belongs to
	// the last line of text, not to an empty line after it.
	if start == len(src) && start > 0 && src[start-1] == '\n' {
		start--
		end = start
	}
	for start > 0 && start < len(src) && !utf8.RuneStart(src[start]) {
		start--
	}
	lineStart := strings.LastIndexByte(src[:start], '\n') + 1
	lineEnd := strings.IndexByte(src[start:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += start
	}
	line := strings.TrimRight(src[lineStart:lineEnd], "\r")
	lineNo := strings.Count(src[:lineStart], "\n") + 1
	col := utf8.RuneCountInString(src[lineStart:start]) + 1

	num := strconv.Itoa(lineNo)
	gutter := strings.Repeat(" ", len(num)+1)
	b.WriteString("\n" + gutter + "--> " + strconv.Itoa(lineNo) + ":" + strconv.Itoa(col))
	b.WriteString("\n" + gutter + " |")
	b.WriteString("\n " + num + " | " + line)
	// Pad with the line's own tabs so the caret lines up in a terminal.
	var pad strings.Builder
	for _, r := range src[lineStart:start] {
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	width := 1
	if end > start {
		// The shown line drops trailing CRs, which the span may start in.
		stop := max(min(end, lineStart+len(line)), start)
		width = max(utf8.RuneCountInString(src[start:stop]), 1)
	}
	b.WriteString("\n" + gutter + " | " + pad.String() + strings.Repeat("^", width))
	if e.Hint != "" {
		b.WriteString("\n" + gutter + " = hint: " + e.Hint)
	}
	return b.String()
}
