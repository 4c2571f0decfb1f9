package format

import (
	"sort"
	"strings"
)

// indentUnit is one level of indentation: two spaces, the style of the
// spec's examples and of every indented line in the conformance corpus.
const indentUnit = "  "

// line is one source line, [start, end) with end at its '\n' or EOF.
type line struct {
	start, end int
	// inside is the opaque range the line starts in (a triple-quoted
	// string or an interpreter block that began on an earlier line), or
	// -1. Such a line is copied as written.
	inside int
	// endsIn is the opaque range the line's '\n' lies in, or -1: its
	// trailing blanks are content.
	endsIn int
	first  int  // offset of the first non-blank byte; end when blank
	blank  bool // nothing but blanks, outside any range
}

// layout rewrites src according to the lexical map.
func layout(src string, m *lexMap) string {
	lines := splitLines(src, m)
	n := len(lines)

	// The line the innermost bracket open at each line's start was
	// opened on, -1 at the top level.
	topLine := make([]int, n)
	var stack []int
	b := 0
	for li, l := range lines {
		for ; b < len(m.brackets) && m.brackets[b].pos < l.start; b++ {
			if m.brackets[b].open {
				stack = append(stack, lineOf(lines, m.brackets[b].pos))
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		topLine[li] = -1
		if len(stack) > 0 {
			topLine[li] = stack[len(stack)-1]
		}
	}
	cont := continuations(lines, m, topLine)

	// Levels. Every open bracket remembers the level current where it
	// opened (or, for a construct's body brace, the level of the line
	// the construct starts on); the lines inside it sit one level deeper
	// and a line starting with its closer at that level. The current
	// level starts each written line at the line's own level and, when a
	// closer ends a bracket, drops back to that bracket's level, so that
	// after `foo(a,⏎  b).bar({` the record indents from the `foo` line. A
	// line copied as written leaves the current level as it was: nothing
	// inside a string or interpreter block moves it.
	var opens []int // the level of each open bracket
	current := 0
	lineLevel := make([]int, n) // the current level at each line's start
	b = 0
	var out strings.Builder
	out.Grow(len(src) + len(src)/8)
	pendingBlank := false
	wrote := false
	for li, l := range lines {
		if l.blank {
			if wrote {
				pendingBlank = true
			}
			continue
		}
		if l.inside < 0 {
			closer := b < len(m.brackets) && m.brackets[b].pos == l.first && !m.brackets[b].open
			switch {
			case closer && len(opens) > 0:
				current = opens[len(opens)-1]
			case len(opens) > 0:
				current = opens[len(opens)-1] + 1
			default:
				current = 0
			}
			if !closer && cont[li] && !startsWithKeyword(src, l.first, m, "else", "catch") {
				current++
			}
		}
		lineLevel[li] = current
		for ; b < len(m.brackets) && m.brackets[b].pos < l.end; b++ {
			if m.brackets[b].open {
				at := current
				if a, ok := m.anchors[m.brackets[b].pos]; ok {
					at = lineLevel[lineOf(lines, a)]
				}
				opens = append(opens, at)
			} else if len(opens) > 0 {
				current = opens[len(opens)-1]
				opens = opens[:len(opens)-1]
			}
		}
		if pendingBlank {
			out.WriteByte('\n')
			pendingBlank = false
		}
		if l.inside < 0 {
			out.WriteString(strings.Repeat(indentUnit, lineLevel[li]))
		}
		out.WriteString(body(src, l, m))
		out.WriteByte('\n')
		wrote = true
	}
	return out.String()
}

// body returns a line's text from its first byte to its end, with the
// trailing blanks removed when they are not content.
func body(src string, l line, m *lexMap) string {
	text := src[l.first:l.end]
	if l.endsIn >= 0 {
		// The newline is inside a string or an interpreter block: the
		// blanks before it are content. A triple-quoted string drops one
		// CR before each newline itself (CR is not content there), so a
		// lone CR of a CRLF line ending is dropped with it; an
		// interpreter block keeps every byte.
		if m.ranges[l.endsIn].kind == kindString && strings.HasSuffix(text, "\r") && !strings.HasSuffix(text, "\r\r") {
			text = text[:len(text)-1]
		}
		return text
	}
	trimmed := strings.TrimRight(text, " \t\r")
	tail := text[len(trimmed):]
	if tail != "" && strings.HasSuffix(trimmed, "\\") {
		// A backslash right before the newline continues the line, so the
		// blanks after a backslash decide whether it does. `\` CR LF is a
		// continuation and stays one; `\` then a space or tab is not and
		// keeps that blank; `\` CR CR LF is not and is kept as written.
		switch {
		case tail == "\r":
		case tail[0] == ' ' || tail[0] == '\t':
			trimmed += strings.TrimRight(tail, "\r")
		default:
			trimmed = text
		}
	}
	return trimmed
}

// splitLines cuts src into lines and classifies them against the map.
func splitLines(src string, m *lexMap) []line {
	var lines []line
	r := 0 // first range that may contain or follow the current offset
	find := func(off int) int {
		// ranges end at or before off are behind us for good, as offsets
		// only grow.
		for r < len(m.ranges) && m.ranges[r].end <= off {
			r++
		}
		if r < len(m.ranges) && m.ranges[r].start < off && off < m.ranges[r].end {
			return r
		}
		return -1
	}
	for start := 0; start <= len(src); {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		l := line{start: start, end: end, inside: find(start)}
		l.endsIn = -1
		if end < len(src) {
			l.endsIn = find(end)
			if l.endsIn >= 0 && m.ranges[l.endsIn].kind == kindComment {
				l.endsIn = -1 // cannot happen: comments stop before '\n'
			}
		}
		l.first = start
		if l.inside < 0 {
			for l.first < end && isBlank(src[l.first]) {
				l.first++
			}
			l.blank = l.first == end && l.endsIn < 0
		}
		lines = append(lines, l)
		if end == len(src) {
			break
		}
		start = end + 1
	}
	return lines
}

// lineOf returns the index of the line holding offset off.
func lineOf(lines []line, off int) int {
	return sort.Search(len(lines), func(i int) bool { return lines[i].end >= off }) // lines[i].end is its '\n'
}

// continuations marks the lines that continue a construct begun on an
// earlier line inside the same bracket level: a line is a continuation
// when some node of the program starts on an earlier line, after the
// innermost bracket open at the line's start was opened, and still runs
// at the line's first byte (`let x = a +⏎ b`, a leading `.method()` line,
// the argument after a backslash-newline). Such a line is indented one
// extra level.
func continuations(lines []line, m *lexMap, topLine []int) []bool {
	n := len(lines)
	// latest[i] is the greatest starting line of the nodes covering line
	// i's first byte; nodes are visited from the latest starting line
	// down, and each line is settled by the first node that covers it.
	latest := make([]int, n)
	for i := range latest {
		latest[i] = -1
	}
	type span struct{ sl, el, end int }
	var spans []span
	for _, nd := range m.nodes {
		sl := lineOf(lines, nd[0])
		el := lineOf(lines, nd[1]-1)
		if el > sl {
			spans = append(spans, span{sl, el, nd[1]})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].sl > spans[j].sl })
	// skip[i] points at the next line at or after i that is not settled.
	skip := make([]int, n+1)
	for i := range skip {
		skip[i] = i
		if i < n && (lines[i].blank || lines[i].inside >= 0) {
			skip[i] = i + 1 // never a continuation: blank or copied as written
		}
	}
	next := func(i int) int {
		for skip[i] != i {
			skip[i] = skip[skip[i]]
			i = skip[i]
		}
		return i
	}
	for _, s := range spans {
		for i := next(s.sl + 1); i <= s.el; i = next(i + 1) {
			if lines[i].first >= s.end {
				// The node ends before this, its last line's first byte;
				// a node starting earlier may still cover it.
				break
			}
			latest[i] = s.sl
			skip[i] = i + 1
		}
	}
	cont := make([]bool, n)
	for i := range lines {
		cont[i] = latest[i] >= 0 && latest[i] > topLine[i]
	}
	return cont
}

// startsWithKeyword reports whether one of the keywords starts at off,
// outside any opaque range.
func startsWithKeyword(src string, off int, m *lexMap, kws ...string) bool {
	if m.inRange(off) {
		return false
	}
	for _, kw := range kws {
		if strings.HasPrefix(src[off:], kw) && (off+len(kw) == len(src) || !isIdentChar(src[off+len(kw)])) {
			return true
		}
	}
	return false
}

// inRange reports whether off lies inside an opaque range.
func (m *lexMap) inRange(off int) bool {
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].end > off })
	return i < len(m.ranges) && m.ranges[i].start <= off
}
