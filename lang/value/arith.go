package value

import (
	"math"
	"math/bits"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Messages asserted (as substrings) by the corpus.
const (
	msgIntOverflow      = "integer overflow"
	msgDivZero          = "division by zero"
	msgSizeNegative     = "size cannot go negative"
	msgSizeOverflow     = "size overflow"
	msgDurationOverflow = "duration overflow"
	msgDatetimeRange    = "datetime out of range"
)

// Binary applies the arithmetic operator op ("+", "-", "*", "/" or "%") to
// a and b with the full matrix of LANGUAGE.md §6.1. Compound assignment
// uses it too.
func Binary(op string, a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			return intOp(op, int64(x), int64(y))
		case Float:
			return floatOp(op, float64(x), float64(y))
		case Size:
			if op == "*" {
				return sizeTimesInt(y, int64(x))
			}
		case Duration:
			if op == "*" {
				return durTimesInt(y, int64(x))
			}
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return floatOp(op, float64(x), float64(y))
		case Float:
			return floatOp(op, float64(x), float64(y))
		case Size:
			if op == "*" {
				return sizeTimesFloat(y, float64(x))
			}
		case Duration:
			if op == "*" {
				return durTimesFloat(y, float64(x))
			}
		}
	case Str:
		if y, ok := b.(Str); ok && op == "+" {
			return x + y, nil
		}
	case *List:
		if op == "+" {
			switch y := b.(type) {
			case *List:
				return &List{Items: concat(x.Items, y.Items)}, nil
			case *Table:
				return &List{Items: concat(x.Items, rowsAsItems(y.Rows))}, nil
			}
		}
	case *Table:
		if op == "+" {
			switch y := b.(type) {
			case *Table:
				return &Table{Rows: concat(x.Rows, y.Rows)}, nil
			case *List:
				return &List{Items: concat(rowsAsItems(x.Rows), y.Items)}, nil
			}
		}
	case Size:
		switch y := b.(type) {
		case Size:
			return sizeSize(op, x, y)
		case Int:
			switch op {
			case "*":
				return sizeTimesInt(x, int64(y))
			case "/":
				return sizeDivInt(x, int64(y))
			}
		case Float:
			if op == "*" {
				return sizeTimesFloat(x, float64(y))
			}
		}
	case Duration:
		switch y := b.(type) {
		case Duration:
			return durDur(op, x, y)
		case Int:
			switch op {
			case "*":
				return durTimesInt(x, int64(y))
			case "/":
				if y == 0 {
					return nil, diag.New(diag.DivZero, msgDivZero)
				}
				if x == math.MinInt64 && y == -1 {
					return nil, diag.New(diag.Overflow, msgDurationOverflow)
				}
				return x / Duration(y), nil
			}
		case Float:
			if op == "*" {
				return durTimesFloat(x, float64(y))
			}
		case Datetime:
			if op == "+" {
				return addDatetime(y, int64(x))
			}
		}
	case Datetime:
		switch y := b.(type) {
		case Duration:
			switch op {
			case "+":
				return addDatetime(x, int64(y))
			case "-":
				if y == math.MinInt64 {
					return nil, diag.New(diag.Overflow, msgDatetimeRange)
				}
				return addDatetime(x, -int64(y))
			}
		case Datetime:
			if op == "-" {
				return datetimeDiff(x.T, y.T)
			}
		}
	}
	return nil, diag.New(diag.TypeError, "cannot apply `%s` to %s and %s", op, TypeName(a), TypeName(b))
}

// Neg is unary minus (LANGUAGE.md §6.2): int (checked), float and
// duration (checked). Sizes cannot go negative, so they are a type_error.
func Neg(v Value) (Value, error) {
	switch x := v.(type) {
	case Int:
		if x == math.MinInt64 {
			return nil, diag.New(diag.Overflow, msgIntOverflow)
		}
		return -x, nil
	case Float:
		return -x, nil
	case Duration:
		if x == math.MinInt64 {
			return nil, diag.New(diag.Overflow, msgDurationOverflow)
		}
		return -x, nil
	}
	return nil, diag.New(diag.TypeError, "cannot apply unary `-` to %s", TypeName(v))
}

// NewRange builds a..b (or a..=b when inclusive). Both bounds must be
// ints; an end before the start is simply an empty range.
func NewRange(a, b Value, inclusive bool) (Value, error) {
	x, ok1 := a.(Int)
	y, ok2 := b.(Int)
	if !ok1 || !ok2 {
		return nil, diag.New(diag.TypeError, "range bounds must be int, found %s and %s", TypeName(a), TypeName(b))
	}
	return Range{Start: int64(x), End: int64(y), Inclusive: inclusive}, nil
}

func intOp(op string, x, y int64) (Value, error) {
	switch op {
	case "+":
		r := x + y
		// Overflow iff both operands have the sign the result lacks.
		if (x >= 0) == (y >= 0) && (r >= 0) != (x >= 0) {
			return nil, diag.New(diag.Overflow, msgIntOverflow)
		}
		return Int(r), nil
	case "-":
		r := x - y
		if (x >= 0) != (y >= 0) && (r >= 0) != (x >= 0) {
			return nil, diag.New(diag.Overflow, msgIntOverflow)
		}
		return Int(r), nil
	case "*":
		r, ok := mulInt64(x, y)
		if !ok {
			return nil, diag.New(diag.Overflow, msgIntOverflow)
		}
		return Int(r), nil
	case "/", "%":
		if y == 0 {
			return nil, diag.New(diag.DivZero, msgDivZero)
		}
		if x == math.MinInt64 && y == -1 {
			if op == "%" {
				return Int(0), nil
			}
			return nil, diag.New(diag.Overflow, msgIntOverflow)
		}
		if op == "/" {
			return Int(x / y), nil // Go truncates toward zero, as §6.1 wants
		}
		return Int(x % y), nil // sign of the dividend
	}
	return nil, diag.New(diag.TypeError, "cannot apply `%s` to int and int", op)
}

// mulInt64 is checked multiplication.
func mulInt64(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	r := x * y
	if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return 0, false
	}
	return r, true
}

func floatOp(op string, x, y float64) (Value, error) {
	switch op {
	case "+":
		return Float(x + y), nil
	case "-":
		return Float(x - y), nil
	case "*":
		return Float(x * y), nil
	case "/":
		return Float(x / y), nil // IEEE: 1/0 = inf, 0/0 = nan
	case "%":
		return Float(math.Mod(x, y)), nil
	}
	return nil, diag.New(diag.TypeError, "cannot apply `%s` to float and float", op)
}

func sizeSize(op string, x, y Size) (Value, error) {
	switch op {
	case "+":
		r, carry := bits.Add64(uint64(x), uint64(y), 0)
		if carry != 0 {
			return nil, diag.New(diag.Overflow, msgSizeOverflow)
		}
		return Size(r), nil
	case "-":
		if y > x {
			return nil, diag.New(diag.TypeError, msgSizeNegative)
		}
		return x - y, nil
	case "/":
		if y == 0 {
			return nil, diag.New(diag.DivZero, msgDivZero)
		}
		return Float(float64(x) / float64(y)), nil
	}
	return nil, diag.New(diag.TypeError, "cannot apply `%s` to size and size", op)
}

func sizeTimesInt(x Size, n int64) (Value, error) {
	if n < 0 {
		return nil, diag.New(diag.TypeError, msgSizeNegative)
	}
	hi, lo := bits.Mul64(uint64(x), uint64(n))
	if hi != 0 {
		return nil, diag.New(diag.Overflow, msgSizeOverflow)
	}
	return Size(lo), nil
}

func sizeDivInt(x Size, n int64) (Value, error) {
	switch {
	case n == 0:
		return nil, diag.New(diag.DivZero, msgDivZero)
	case n < 0:
		return nil, diag.New(diag.TypeError, msgSizeNegative)
	}
	return x / Size(n), nil
}

func sizeTimesFloat(x Size, f float64) (Value, error) {
	p := math.Round(float64(x) * f)
	switch {
	case math.IsNaN(p) || p >= 1<<64:
		return nil, diag.New(diag.Overflow, msgSizeOverflow)
	case p < 0:
		return nil, diag.New(diag.TypeError, msgSizeNegative)
	}
	return Size(p), nil
}

func durDur(op string, x, y Duration) (Value, error) {
	switch op {
	case "+", "-":
		r, err := intOp(op, int64(x), int64(y))
		if err != nil {
			return nil, diag.New(diag.Overflow, msgDurationOverflow)
		}
		return Duration(r.(Int)), nil
	case "/":
		if y == 0 {
			return nil, diag.New(diag.DivZero, msgDivZero)
		}
		return Float(float64(x) / float64(y)), nil
	}
	return nil, diag.New(diag.TypeError, "cannot apply `%s` to duration and duration", op)
}

func durTimesInt(x Duration, n int64) (Value, error) {
	r, ok := mulInt64(int64(x), n)
	if !ok {
		return nil, diag.New(diag.Overflow, msgDurationOverflow)
	}
	return Duration(r), nil
}

func durTimesFloat(x Duration, f float64) (Value, error) {
	p := math.Round(float64(x) * f)
	if math.IsNaN(p) || p < -(1<<63) || p >= 1<<63 {
		return nil, diag.New(diag.Overflow, msgDurationOverflow)
	}
	return Duration(p), nil
}

// InDatetimeRange reports whether t lies in the years -9999..9999, the
// range of the original's calendar library; results outside it are an
// overflow rather than a silently odd date.
func InDatetimeRange(t time.Time) bool {
	y := t.UTC().Year()
	return y >= -9999 && y <= 9999
}

func addDatetime(d Datetime, ns int64) (Value, error) {
	t := d.T.Add(time.Duration(ns))
	if !InDatetimeRange(t) {
		return nil, diag.New(diag.Overflow, msgDatetimeRange)
	}
	return Datetime{T: t}, nil
}

// datetimeDiff is a - b as a duration, checked: Go's Time.Sub saturates
// silently, which would hide the overflow the spec wants reported.
func datetimeDiff(a, b time.Time) (Value, error) {
	secs := a.Unix() - b.Unix()
	ns := int64(a.Nanosecond() - b.Nanosecond())
	total, ok := mulInt64(secs, 1e9)
	if ok {
		r := total + ns
		if (ns >= 0) == (total >= 0) && (r >= 0) != (total >= 0) {
			ok = false
		}
		total = r
	}
	if !ok {
		return nil, diag.New(diag.Overflow, msgDurationOverflow)
	}
	return Duration(total), nil
}

func concat[T any](a, b []T) []T {
	out := make([]T, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

func rowsAsItems(rows []*Record) []Value {
	out := make([]Value, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}
