package value

import (
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// noTruthinessHint is the teaching hint of every non-bool condition.
const noTruthinessHint = "shoal has no truthiness — try .is_empty(), .is_some(), or != null"

// Cond is a value used as a condition (LANGUAGE.md §5.4): a bool, or an
// outcome standing for its ok. There is no truthiness, so anything else is
// a type_error that teaches the explicit test.
func Cond(v Value) (bool, error) {
	switch x := v.(type) {
	case Bool:
		return bool(x), nil
	case *Outcome:
		return x.OK, nil
	}
	return false, diag.New(diag.TypeError, "expected bool in condition, found %s", TypeName(v)).
		WithHint(noTruthinessHint)
}

// In is `needle in haystack` (LANGUAGE.md §6.3).
func In(needle, haystack Value) (bool, error) {
	switch h := haystack.(type) {
	case *List:
		for _, it := range h.Items {
			eq, err := Equal(it, needle)
			if err != nil || eq {
				return eq, err
			}
		}
		return false, nil
	case *Table:
		if r, ok := needle.(*Record); ok {
			for _, row := range h.Rows {
				eq, err := recordsEqual(row, r)
				if err != nil || eq {
					return eq, err
				}
			}
			return false, nil
		}
	case Str:
		if s, ok := needle.(Str); ok {
			return strings.Contains(string(h), string(s)), nil
		}
	case *Record:
		if s, ok := needle.(Str); ok {
			return h.Shape.Index(string(s)) >= 0, nil
		}
	case Range:
		if i, ok := needle.(Int); ok {
			return h.Contains(int64(i)), nil
		}
	}
	return false, diag.New(diag.TypeError, "cannot test %s membership in %s", TypeName(needle), TypeName(haystack))
}

// Contains reports whether i lies inside the range.
func (r Range) Contains(i int64) bool {
	if r.Inclusive {
		return i >= r.Start && i <= r.End
	}
	return i >= r.Start && i < r.End
}

// Len is the number of ints in the range, without materialising it; an
// end before the start makes the range empty. Ranges too long for an
// int64 count saturate.
func (r Range) Len() int64 {
	end := r.End
	if r.Inclusive {
		if end == 1<<63-1 {
			if r.Start <= 0 {
				return 1<<63 - 1
			}
			return end - r.Start + 1
		}
		end++
	}
	if end <= r.Start {
		return 0
	}
	n := uint64(end) - uint64(r.Start)
	if n > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(n)
}

// At is the i-th int of the range (0 <= i < Len()).
func (r Range) At(i int64) int64 { return r.Start + i }
