package value

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Pair is one member of an [Ordered] object.
type Pair struct {
	Key string
	Val any
}

// Ordered is an object whose member order matters. It is the
// intermediate form between values and the text codecs in lang/lib (YAML,
// TOML, CSV): Go maps lose the order records must keep.
type Ordered []Pair

// ToOrdered converts v to plain Go data for a codec, following the JSON
// mapping of LANGUAGE.md §5.2: nil, bool, int64, uint64 (sizes above
// i64), float64, string, time.Time (datetimes, so a TOML writer can emit a
// native datetime), []any and [Ordered].
func ToOrdered(v Value) (any, error) {
	switch x := v.(type) {
	case nil, Null:
		return nil, nil
	case Bool:
		return bool(x), nil
	case Int:
		return int64(x), nil
	case Float:
		return float64(x), nil
	case Str:
		return string(x), nil
	case Path:
		return lossy(x.P), nil
	case Glob:
		return x.Pattern, nil
	case Regex:
		return x.Src, nil
	case Time:
		return FormatTimeOfDayFull(x), nil
	case Size:
		if x > math.MaxInt64 {
			return uint64(x), nil
		}
		return int64(x), nil
	case Duration:
		return int64(x), nil
	case Datetime:
		return x.T, nil
	case *Bytes:
		d, err := x.Content(context.Background())
		if err != nil {
			return nil, err
		}
		return lossy(string(d)), nil
	case *List:
		return orderedItems(len(x.Items), func(i int) Value { return x.Items[i] })
	case *Table:
		return orderedItems(len(x.Rows), func(i int) Value { return x.Rows[i] })
	case Range:
		out := make([]any, 0, min(x.Len(), 1<<20))
		for i := int64(0); i < x.Len(); i++ {
			out = append(out, x.At(i))
		}
		return out, nil
	case *Record:
		out := make(Ordered, len(x.Vals))
		for i, k := range x.Shape.Keys {
			v, err := ToOrdered(x.Vals[i])
			if err != nil {
				return nil, err
			}
			out[i] = Pair{k, v}
		}
		return out, nil
	case *Outcome:
		var status any
		if x.Status != nil {
			status = int64(*x.Status)
		}
		out, err := ToOrdered(OutcomeOut(x))
		if err != nil {
			return nil, err
		}
		return Ordered{{"status", status}, {"ok", x.OK}, {"out", out}, {"err", lossy(string(x.Stderr))}}, nil
	case *ErrorVal:
		if x.Err == nil {
			return Ordered{{"code", ""}, {"msg", ""}}, nil
		}
		return Ordered{{"code", x.Err.Code}, {"msg", x.Err.Msg}}, nil
	}
	return RenderInline(v), nil
}

func orderedItems(n int, at func(int) Value) (any, error) {
	out := make([]any, n)
	for i := range out {
		v, err := ToOrdered(at(i))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// FromOrdered converts decoded codec data to a value with the JSON rules of
// LANGUAGE.md §5.2: integers that fit i64 are ints, objects records (an
// [Ordered] keeps its order, a map[string]any is sorted by key), and a
// non-empty array of only objects a table. A time.Time becomes a
// datetime. Unsupported Go types are an arg_error, never a panic.
func FromOrdered(x any) (Value, error) {
	switch t := x.(type) {
	case nil:
		return Null{}, nil
	case Value:
		return t, nil
	case bool:
		return Bool(t), nil
	case string:
		return Str(t), nil
	case []byte:
		return &Bytes{Data: t}, nil
	case int:
		return Int(t), nil
	case int8:
		return Int(t), nil
	case int16:
		return Int(t), nil
	case int32:
		return Int(t), nil
	case int64:
		return Int(t), nil
	case uint8:
		return Int(t), nil
	case uint16:
		return Int(t), nil
	case uint32:
		return Int(t), nil
	case uint:
		return uintValue(uint64(t)), nil
	case uint64:
		return uintValue(t), nil
	case float32:
		return Float(t), nil
	case float64:
		return Float(t), nil
	case time.Time:
		return Datetime{T: t}, nil
	case fmt.Stringer:
		// Number types of codec libraries (json.Number and the like).
		if v, err := NumberFromText(t.String()); err == nil {
			return v, nil
		}
		return Str(t.String()), nil
	case Ordered:
		keys := make([]string, 0, len(t))
		vals := make([]Value, 0, len(t))
		for _, p := range t {
			v, err := FromOrdered(p.Val)
			if err != nil {
				return nil, err
			}
			if i := indexOf(keys, p.Key); i >= 0 {
				vals[i] = v
				continue
			}
			keys = append(keys, p.Key)
			vals = append(vals, v)
		}
		return NewRecord(keys, vals), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := make(Ordered, len(keys))
		for i, k := range keys {
			o[i] = Pair{k, t[k]}
		}
		return FromOrdered(o)
	case []any:
		items := make([]Value, len(t))
		allRecords := len(t) > 0
		var shape *Shape
		for i, e := range t {
			v, err := FromOrdered(e)
			if err != nil {
				return nil, err
			}
			if r, ok := v.(*Record); ok {
				// Rows with the same keys share one shape. Only records
				// built here may be touched: a Value passed in is shared.
				_, given := e.(Value)
				if !given && shape != nil && sameKeys(shape.Keys, r.Shape.Keys) {
					r.Shape = shape
				}
				shape = r.Shape
			} else {
				allRecords = false
			}
			items[i] = v
		}
		if allRecords {
			rows := make([]*Record, len(items))
			for i, it := range items {
				rows[i] = it.(*Record)
			}
			return &Table{Rows: rows}, nil
		}
		return &List{Items: items}, nil
	}
	return nil, diag.New(diag.ArgError, "cannot convert %T to a value", x)
}

// uintValue keeps unsigned integers that fit i64 as ints; larger ones
// become floats, as JSON numbers do.
func uintValue(u uint64) Value {
	if u > math.MaxInt64 {
		return Float(u)
	}
	return Int(u)
}
