package value

import (
	"math"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Compare orders a and b (LANGUAGE.md §5.5) and returns -1, 0 or +1.
// Ordering exists only within a family: numbers (int and float mix), str,
// path, size, duration, datetime (by instant), time and bool. Anything
// else, and a NaN operand, is a type_error "cannot compare X with Y".
// Scalar comparisons do not allocate, because sort_by on a million rows
// calls this for every pair.
func Compare(a, b Value) (int, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			return cmp3(x, y), nil
		case Float:
			if math.IsNaN(float64(y)) {
				return 0, nanError(a, b)
			}
			return -cmpFloatInt(float64(y), int64(x)), nil
		}
	case Float:
		if math.IsNaN(float64(x)) {
			if isNumber(b) {
				return 0, nanError(a, b)
			}
			break
		}
		switch y := b.(type) {
		case Float:
			if math.IsNaN(float64(y)) {
				return 0, nanError(a, b)
			}
			return cmp3(x, y), nil
		case Int:
			return cmpFloatInt(float64(x), int64(y)), nil
		}
	case Str:
		if y, ok := b.(Str); ok {
			return strings.Compare(string(x), string(y)), nil
		}
	case Path:
		if y, ok := b.(Path); ok {
			return strings.Compare(x.P, y.P), nil
		}
	case Size:
		if y, ok := b.(Size); ok {
			return cmp3(x, y), nil
		}
	case Duration:
		if y, ok := b.(Duration); ok {
			return cmp3(x, y), nil
		}
	case Datetime:
		if y, ok := b.(Datetime); ok {
			return x.T.Compare(y.T), nil
		}
	case Time:
		if y, ok := b.(Time); ok {
			if c := cmp3(x.H, y.H); c != 0 {
				return c, nil
			}
			if c := cmp3(x.M, y.M); c != 0 {
				return c, nil
			}
			return cmp3(x.S, y.S), nil
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			return cmp3(b2i(bool(x)), b2i(bool(y))), nil
		}
	}
	return 0, diag.New(diag.TypeError, "cannot compare %s with %s", TypeName(a), TypeName(b))
}

// Less is Compare(a, b) < 0, for sort callbacks.
func Less(a, b Value) (bool, error) {
	c, err := Compare(a, b)
	return c < 0, err
}

func cmp3[T int | int64 | float64 | Int | Float | Size | Duration](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isNumber(v Value) bool {
	switch v.(type) {
	case Int, Float:
		return true
	}
	return false
}

// cmpFloatInt compares a non-NaN float with an int exactly, without the
// rounding of converting the int to float64.
func cmpFloatInt(f float64, i int64) int {
	switch {
	case f < -(1 << 63):
		return -1
	case f >= 1<<63:
		return 1
	}
	t := math.Trunc(f)
	if c := cmp3(int64(t), i); c != 0 {
		return c
	}
	// Same integer part: the fraction decides.
	return cmp3(f, t)
}

func nanError(a, b Value) error {
	return diag.New(diag.TypeError, "cannot compare %s with %s: NaN has no order", TypeName(a), TypeName(b))
}
