package kernel

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Tagged wire encoding of language values (AGENT-SURFACE §2.6). Every value is a JSON object
// whose "$" member names its type. The encoder appends to a byte slice: exec replies are hot,
// and going through reflection-based encoding/json for every list item costs several times
// more.
//
// Go additions, ignorable by clients: a record whose insertion order differs from the sorted
// key order carries "order":[keys] so [DecodeWire] rebuilds the original record; floats that
// JSON cannot hold (nan, inf, -inf) are strings; CAS-backed bytes whose data is not loaded are
// {"$":"bytes","len","ref"}.

// wireTag is the "$" discriminator of a kind. It differs from the type name only for command.
func wireTag(v value.Value) string {
	if v == nil {
		return "null"
	}
	if v.Kind() == value.KCommand {
		return "cmd"
	}
	return v.Kind().String()
}

// EncodeWire returns the full (unelided) tagged encoding of v.
func EncodeWire(v value.Value) []byte { return appendWire(nil, v) }

func appendTag(b []byte, tag string) []byte {
	b = append(b, `{"$":"`...)
	b = append(b, tag...)
	return append(b, '"')
}

func appendWire(b []byte, v value.Value) []byte {
	switch x := v.(type) {
	case nil, value.Null:
		return append(b, `{"$":"null"}`...)
	case value.Bool:
		b = appendTag(b, "bool")
		b = append(b, `,"v":`...)
		b = strconv.AppendBool(b, bool(x))
		return append(b, '}')
	case value.Int:
		b = appendTag(b, "int")
		b = append(b, `,"v":`...)
		b = strconv.AppendInt(b, int64(x), 10)
		return append(b, '}')
	case value.Float:
		b = appendTag(b, "float")
		b = append(b, `,"v":`...)
		b = appendFloat(b, float64(x))
		return append(b, '}')
	case value.Str:
		b = appendTag(b, "str")
		b = append(b, `,"v":`...)
		b = value.AppendJSONString(b, string(x))
		return append(b, '}')
	case value.Size:
		b = appendTag(b, "size")
		b = append(b, `,"v":`...)
		b = strconv.AppendUint(b, uint64(x), 10)
		return append(b, '}')
	case value.Duration:
		b = appendTag(b, "duration")
		b = append(b, `,"v":`...)
		b = strconv.AppendInt(b, int64(x), 10)
		return append(b, '}')
	case *value.Bytes:
		b = appendTag(b, "bytes")
		if x.Data == nil && x.Ref != "" {
			b = append(b, `,"len":`...)
			b = strconv.AppendInt(b, x.Length(), 10)
			b = append(b, `,"ref":`...)
			b = value.AppendJSONString(b, x.Ref)
			return append(b, '}')
		}
		b = append(b, `,"v":"`...)
		b = base64.StdEncoding.AppendEncode(b, x.Data)
		return append(b, `"}`...)
	case value.Path:
		b = appendTag(b, "path")
		b = append(b, `,"v":`...)
		b = appendWirePathFields(b, x.P)
		return append(b, '}')
	case *value.List:
		b = appendTag(b, "list")
		b = append(b, `,"v":[`...)
		for i, it := range x.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendWire(b, it)
		}
		return append(b, "]}"...)
	case *value.Record:
		return appendRecord(b, x)
	case *value.Table:
		return appendTable(b, x)
	case *value.Outcome:
		return appendOutcome(b, x)
	case *value.ErrorVal:
		return appendError(b, x.Err)
	case value.Datetime:
		b = appendTag(b, "datetime")
		b = append(b, `,"v":"`...)
		b = x.T.AppendFormat(b, time.RFC3339Nano)
		return append(b, `"}`...)
	case value.Time:
		b = appendTag(b, "time")
		b = append(b, `,"v":"`...)
		b = append(b, value.FormatTimeOfDayFull(x)...)
		return append(b, `"}`...)
	case value.Glob:
		b = appendTag(b, "glob")
		b = append(b, `,"v":`...)
		b = value.AppendJSONString(b, x.Pattern)
		return append(b, '}')
	case value.Regex:
		b = appendTag(b, "regex")
		b = append(b, `,"v":`...)
		b = value.AppendJSONString(b, x.Src)
		return append(b, '}')
	case value.Range:
		b = appendTag(b, "range")
		b = append(b, `,"start":`...)
		b = strconv.AppendInt(b, x.Start, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, x.End, 10)
		b = append(b, `,"inclusive":`...)
		b = strconv.AppendBool(b, x.Inclusive)
		return append(b, '}')
	case *value.Task:
		b = appendTag(b, "task")
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, x.ID, 10)
		b = append(b, `,"done":`...)
		b = strconv.AppendBool(b, x.Handle != nil && x.Handle.Done())
		return append(b, '}')
	case *value.Closure, *value.Command:
		b = appendTag(b, wireTag(v))
		b = append(b, `,"repr":`...)
		b = value.AppendJSONString(b, value.RenderInline(v))
		return append(b, '}')
	case *value.Stream:
		b = appendTag(b, "stream")
		b = append(b, `,"label":`...)
		b = value.AppendJSONString(b, x.Label)
		return append(b, '}')
	case *value.Secret:
		// The material is never encoded, only the name.
		b = appendTag(b, "secret")
		b = append(b, `,"name":`...)
		b = value.AppendJSONString(b, x.Name)
		return append(b, '}')
	}
	// An unknown Value implementation still encodes as something recognisable.
	b = appendTag(b, wireTag(v))
	b = append(b, `,"repr":`...)
	b = value.AppendJSONString(b, value.RenderInline(v))
	return append(b, '}')
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"nan"`...)
	case math.IsInf(f, 1):
		return append(b, `"inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-inf"`...)
	}
	return value.AppendJSONFloat(b, f)
}

// appendWirePathFields appends the display string, and ,"raw":… when p is not UTF-8; the
// caller has written the key of the display member.
func appendWirePathFields(b []byte, p string) []byte {
	if utf8.ValidString(p) {
		return value.AppendJSONString(b, p)
	}
	b = value.AppendJSONString(b, string([]rune(p))) // invalid bytes become U+FFFD
	b = append(b, `,"raw":"`...)
	b = base64.StdEncoding.AppendEncode(b, []byte(p))
	return append(b, '"')
}

func appendRecord(b []byte, r *value.Record) []byte {
	keys := r.Keys()
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sorted := slices.IsSorted(keys)
	if !sorted {
		slices.SortStableFunc(order, func(i, j int) int {
			switch {
			case keys[i] < keys[j]:
				return -1
			case keys[i] > keys[j]:
				return 1
			}
			return 0
		})
	}
	b = appendTag(b, "record")
	b = append(b, `,"v":{`...)
	for n, i := range order {
		if n > 0 {
			b = append(b, ',')
		}
		b = value.AppendJSONString(b, keys[i])
		b = append(b, ':')
		b = appendWire(b, r.Vals[i])
	}
	b = append(b, '}')
	if !sorted {
		b = append(b, `,"order":[`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = value.AppendJSONString(b, k)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendTable writes the columnar form; columns keep the table's order (the first row's keys,
// then keys first seen later), and a row lacking a column has a tagged null there.
func appendTable(b []byte, t *value.Table) []byte {
	cols := t.Columns()
	b = appendTag(b, "table")
	b = append(b, `,"cols":{`...)
	for ci, c := range cols {
		if ci > 0 {
			b = append(b, ',')
		}
		b = value.AppendJSONString(b, c)
		b = append(b, ":["...)
		for ri, r := range t.Rows {
			if ri > 0 {
				b = append(b, ',')
			}
			v, ok := r.Get(c)
			if !ok {
				v = value.Null{}
			}
			b = appendWire(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, `},"n":`...)
	b = strconv.AppendInt(b, int64(len(t.Rows)), 10)
	return append(b, '}')
}

func appendOutcome(b []byte, o *value.Outcome) []byte {
	return appendOutcomeWith(b, o, appendWire(nil, value.OutcomeOut(o)))
}

// appendOutcomeWith encodes o with out already encoded (elision replaces it by a summary).
func appendOutcomeWith(b []byte, o *value.Outcome, out []byte) []byte {
	b = appendTag(b, "outcome")
	b = append(b, `,"status":`...)
	if o.Status != nil {
		b = strconv.AppendInt(b, int64(*o.Status), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, o.OK)
	b = append(b, `,"signal":`...)
	if o.Signal != "" {
		b = value.AppendJSONString(b, o.Signal)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"out":`...)
	b = append(b, out...)
	b = append(b, `,"err":`...)
	b = value.AppendJSONString(b, string(value.OutcomeErr(o).(value.Str)))
	b = append(b, `,"dur_ns":`...)
	b = strconv.AppendInt(b, int64(o.Dur), 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(o.Pid), 10)
	b = append(b, `,"cmd":`...)
	b = value.AppendJSONString(b, o.Cmd)
	return append(b, '}')
}

func appendError(b []byte, e *diag.Error) []byte {
	b = appendTag(b, "error")
	if e == nil {
		return append(b, `,"code":"","msg":""}`...)
	}
	b = append(b, `,"code":`...)
	b = value.AppendJSONString(b, e.Code)
	b = append(b, `,"msg":`...)
	b = value.AppendJSONString(b, e.Msg)
	if !e.Span.IsZero() {
		b = append(b, `,"span":{"start":`...)
		b = strconv.AppendInt(b, int64(e.Span.Start), 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, int64(e.Span.End), 10)
		b = append(b, '}')
	}
	if e.Hint != "" {
		b = append(b, `,"hint":`...)
		b = value.AppendJSONString(b, e.Hint)
	}
	if e.Stderr != nil {
		b = append(b, `,"stderr":`...)
		b = value.AppendJSONString(b, *e.Stderr)
	}
	if e.Status != nil {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(*e.Status), 10)
	}
	return append(b, '}')
}
