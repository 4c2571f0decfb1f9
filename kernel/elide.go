package kernel

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
)

// budget is the elision budget of one call (AGENT-SURFACE §2.8).
type budget struct {
	maxBytes, maxRows, maxItems, rawBytes int
}

// budgetFor applies a call's overrides to the defaults: max_bytes is clamped to the hard cap
// and also becomes the raw-bytes threshold; row and item overrides are uncapped.
func budgetFor(e *proto.Elide) budget {
	d := proto.DefaultElide
	b := budget{maxBytes: d.MaxBytes, maxRows: d.MaxRows, maxItems: d.MaxItems, rawBytes: d.MaxBytesRaw}
	if e == nil {
		return b
	}
	if e.MaxBytes != nil {
		b.maxBytes = min(max(*e.MaxBytes, 0), d.HardCap)
		b.rawBytes = b.maxBytes
	}
	if e.MaxRows != nil {
		b.maxRows = max(*e.MaxRows, 0)
	}
	if e.MaxItems != nil {
		b.maxItems = max(*e.MaxItems, 0)
	}
	return b
}

// previewLen is how many rows, items or record keys a preview keeps; previewBytes how many
// bytes or characters.
const (
	previewLen   = 5
	previewBytes = 256
	renderLines  = 10
)

// elide encodes v for a reply: inline when it fits the budget, else a "$":"ref" summary that
// points at uri. A successful outcome is never elided whole; its out is elided on its own.
func elide(v value.Value, uri string, b budget) []byte {
	if o, ok := v.(*value.Outcome); ok && o.OK {
		return appendOutcomeWith(nil, o, elide(value.OutcomeOut(o), subURI(uri, "out"), b))
	}
	if tooBig(v, b) {
		return summary(v, uri)
	}
	enc := appendWire(nil, v)
	if len(enc) > b.maxBytes {
		return summary(v, uri)
	}
	return enc
}

// tooBig applies the cheap tests that need no encoding.
func tooBig(v value.Value, b budget) bool {
	switch x := v.(type) {
	case *value.Table:
		return len(x.Rows) > b.maxRows
	case *value.List:
		return len(x.Items) > b.maxItems
	case *value.Bytes:
		return x.Ref != "" || x.Length() > int64(b.rawBytes)
	case value.Str:
		return len(x) > b.maxBytes
	}
	return false
}

// subURI extends uri with a path: shoal://out/1 → shoal://out/1?path=out, and
// shoal://out/1?path=x → shoal://out/1?path=x.out.
func subURI(uri, field string) string {
	if strings.Contains(uri, "?path=") {
		return uri + "." + field
	}
	return uri + "?path=" + field
}

// summary builds the "$":"ref" object for v.
func summary(v value.Value, uri string) []byte {
	b := []byte(`{"$":"ref","uri":`)
	b = value.AppendJSONString(b, uri)
	b = append(b, `,"of":"`...)
	b = append(b, v.Kind().String()...)
	b = append(b, `","n":`...)
	var n int64 = 1
	var preview value.Value
	switch x := v.(type) {
	case *value.Table:
		n = int64(len(x.Rows))
		preview = &value.Table{Rows: x.Rows[:min(len(x.Rows), previewLen)]}
	case *value.List:
		n = int64(len(x.Items))
		preview = &value.List{Items: x.Items[:min(len(x.Items), previewLen)]}
	case *value.Bytes:
		n = x.Length()
		if x.Data != nil {
			preview = &value.Bytes{Data: x.Data[:min(len(x.Data), previewBytes)]}
		}
	case value.Str:
		n = int64(len(x))
		preview = value.Str(firstChars(string(x), previewBytes))
	case *value.Record:
		n = int64(x.Len())
		keys := x.Keys()[:min(x.Len(), previewLen)]
		nulls := make([]value.Value, len(keys))
		for i := range nulls {
			nulls[i] = value.Null{}
		}
		preview = value.NewRecord(append([]string(nil), keys...), nulls)
	}
	b = strconv.AppendInt(b, n, 10)
	if t, ok := v.(*value.Table); ok {
		b = append(b, `,"cols":{`...)
		for i, c := range t.Columns() {
			if i > 0 {
				b = append(b, ',')
			}
			b = value.AppendJSONString(b, c)
			b = append(b, ':')
			b = value.AppendJSONString(b, firstType(t, c))
		}
		b = append(b, '}')
	}
	b = append(b, `,"preview":`...)
	if preview == nil {
		b = append(b, "null"...)
	} else {
		b = appendWire(b, preview)
	}
	b = append(b, `,"render_head":`...)
	head := ""
	if preview != nil {
		head = headLines(stripANSI(renderBlock(preview)), renderLines)
	}
	b = value.AppendJSONString(b, head)
	return append(b, '}')
}

// firstType is the type of the first value seen in column c.
func firstType(t *value.Table, c string) string {
	for _, r := range t.Rows {
		if v, ok := r.Get(c); ok {
			return value.TypeName(v)
		}
	}
	return "null"
}

// firstChars returns the first n Unicode scalars of s.
func firstChars(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func headLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
