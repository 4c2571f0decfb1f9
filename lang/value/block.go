package value

import (
	"strings"
	"unicode/utf8"
)

// RenderBlock renders v for top-level REPL and script output (LANGUAGE.md
// §5.2 "Block rendering"): strings raw, null as nothing, tables and lists
// of records as aligned columns under a header, other lists one item per
// line, records as aligned `key value` lines, outcomes as their structured
// .out or their stdout text, anything else inline. The result has no
// trailing newline. When width > 0, longer lines are cut to width runes
// ending in "…" so a wide table does not wrap into noise.
func RenderBlock(v Value, width int) string {
	var lines []string
	switch x := v.(type) {
	case nil, Null:
		return ""
	case Str:
		return string(x)
	case Path:
		return lossy(x.P)
	case *Outcome:
		if x.Out != nil {
			return RenderBlock(x.Out, width)
		}
		return strings.TrimSuffix(lossy(string(x.Stdout)), "\n")
	case *Table:
		lines = columns(x.Columns(), x.Rows)
	case *List:
		if rows, ok := recordItems(x.Items); ok {
			lines = columns((&Table{Rows: rows}).Columns(), rows)
			break
		}
		lines = make([]string, len(x.Items))
		for i, it := range x.Items {
			lines[i] = cell(it)
		}
	case *Record:
		w := 0
		for _, k := range x.Shape.Keys {
			w = max(w, utf8.RuneCountInString(k))
		}
		lines = make([]string, len(x.Vals))
		for i, k := range x.Shape.Keys {
			lines[i] = pad(k, w) + "  " + cell(x.Vals[i])
		}
	default:
		return RenderInline(v)
	}
	if width > 0 {
		for i, l := range lines {
			lines[i] = cut(l, width)
		}
	}
	return strings.Join(lines, "\n")
}

// recordItems reports whether a non-empty list holds only records.
func recordItems(items []Value) ([]*Record, bool) {
	if len(items) == 0 {
		return nil, false
	}
	rows := make([]*Record, len(items))
	for i, it := range items {
		r, ok := it.(*Record)
		if !ok {
			return nil, false
		}
		rows[i] = r
	}
	return rows, true
}

// columns lays rows out under a header of column names, each column as
// wide as its widest cell, two spaces apart, without trailing blanks.
func columns(cols []string, rows []*Record) []string {
	cells := make([][]string, len(rows)+1)
	cells[0] = cols
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c)
	}
	for r, row := range rows {
		line := make([]string, len(cols))
		for i, c := range cols {
			if v, ok := row.Get(c); ok {
				line[i] = cell(v)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(line[i]))
		}
		cells[r+1] = line
	}
	out := make([]string, len(cells))
	var b strings.Builder
	for r, line := range cells {
		b.Reset()
		for i, s := range line {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == len(line)-1 {
				b.WriteString(s)
			} else {
				b.WriteString(pad(s, widths[i]))
			}
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// cell is a value's text inside a table or record block: strings and
// paths raw when they fit on one line, null blank, others inline.
func cell(v Value) string {
	switch x := v.(type) {
	case Str:
		if !strings.ContainsAny(string(x), "\n\r\t") {
			return string(x)
		}
	case Path:
		return lossy(x.P)
	case nil, Null:
		return ""
	}
	return RenderInline(v)
}

func pad(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return s
	}
	return s + strings.Repeat(" ", w-n)
}

func cut(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	n := 0
	for i := range s {
		if n == w-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
