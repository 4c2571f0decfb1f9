package value

import (
	"bytes"
	"context"
	"math"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Equal is ==, in, contains, uniq and literal patterns (LANGUAGE.md §5.3).
// It is total except that comparing a stream with a non-stream is a
// type_error. Scalar comparisons do not allocate.
func Equal(a, b Value) (bool, error) {
	if a == nil {
		a = Null{}
	}
	if b == nil {
		b = Null{}
	}
	switch x := a.(type) {
	case Null:
		_, ok := b.(Null)
		return ok, streamMismatch(a, b)
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y, streamMismatch(a, b)
	case Int:
		switch y := b.(type) {
		case Int:
			return x == y, nil
		case Float:
			return intEqFloat(int64(x), float64(y)), nil
		}
	case Float:
		switch y := b.(type) {
		case Float:
			return x == y, nil
		case Int:
			return intEqFloat(int64(y), float64(x)), nil
		}
	case Str:
		switch y := b.(type) {
		case Str:
			return x == y, nil
		case Path:
			return string(x) == y.P, nil
		}
	case Path:
		switch y := b.(type) {
		case Path:
			return x.P == y.P, nil
		case Str:
			return x.P == string(y), nil
		}
	case Glob:
		if y, ok := b.(Glob); ok {
			return x.Pattern == y.Pattern, nil
		}
	case Regex:
		if y, ok := b.(Regex); ok {
			return x.Src == y.Src, nil
		}
	case Size:
		y, ok := b.(Size)
		return ok && x == y, streamMismatch(a, b)
	case Duration:
		y, ok := b.(Duration)
		return ok && x == y, streamMismatch(a, b)
	case Datetime:
		y, ok := b.(Datetime)
		return ok && x.T.Equal(y.T), streamMismatch(a, b)
	case Time:
		y, ok := b.(Time)
		return ok && x == y, streamMismatch(a, b)
	case Range:
		y, ok := b.(Range)
		return ok && x == y, streamMismatch(a, b)
	case *Bytes:
		if y, ok := b.(*Bytes); ok {
			return bytesEqual(x, y)
		}
	case *List:
		switch y := b.(type) {
		case *List:
			return itemsEqual(len(x.Items), len(y.Items), x.Items, nil, y.Items, nil)
		case *Table:
			return itemsEqual(len(x.Items), len(y.Rows), x.Items, nil, nil, y.Rows)
		}
	case *Table:
		switch y := b.(type) {
		case *Table:
			return itemsEqual(len(x.Rows), len(y.Rows), nil, x.Rows, nil, y.Rows)
		case *List:
			return itemsEqual(len(x.Rows), len(y.Items), nil, x.Rows, y.Items, nil)
		}
	case *Record:
		if y, ok := b.(*Record); ok {
			return recordsEqual(x, y)
		}
	case *ErrorVal:
		if y, ok := b.(*ErrorVal); ok {
			return errorsEqual(x, y), nil
		}
	case *Stream:
		if y, ok := b.(*Stream); ok {
			return x == y, nil
		}
		return false, streamMismatch(a, b)
	case *Outcome, *Task, *Closure:
		return a == b, streamMismatch(a, b)
	case *Command:
		if y, ok := b.(*Command); ok {
			return commandsEqual(x, y), nil
		}
	case *Secret:
		if y, ok := b.(*Secret); ok {
			return x.Name == y.Name && bytes.Equal(x.Content, y.Content), nil
		}
	}
	return false, streamMismatch(a, b)
}

// streamMismatch is the only failure of equality: a stream compared with
// a non-stream. It returns nil in every other case.
func streamMismatch(a, b Value) error {
	_, sa := a.(*Stream)
	_, sb := b.(*Stream)
	if sa == sb {
		return nil
	}
	return diag.New(diag.TypeError, "cannot compare %s with %s", TypeName(a), TypeName(b)).
		WithHint("collect the stream first with .collect()")
}

// intEqFloat compares exactly: 2^53+1 is not equal to 2^53 as a float.
func intEqFloat(i int64, f float64) bool {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return false // also NaN and ±Inf
	}
	return int64(f) == i
}

// itemsEqual compares two sequences, each given as either list items or
// table rows, so a table equals the list of its rows without copying.
func itemsEqual(n, m int, xi []Value, xr []*Record, yi []Value, yr []*Record) (bool, error) {
	if n != m {
		return false, nil
	}
	for i := 0; i < n; i++ {
		var a, b Value
		if xr != nil {
			a = xr[i]
		} else {
			a = xi[i]
		}
		if yr != nil {
			b = yr[i]
		} else {
			b = yi[i]
		}
		eq, err := Equal(a, b)
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// recordsEqual ignores key order: same key set, equal values.
func recordsEqual(x, y *Record) (bool, error) {
	if len(x.Vals) != len(y.Vals) {
		return false, nil
	}
	same := x.Shape == y.Shape
	for i, k := range x.Shape.Keys {
		j := i
		if !same {
			if j = y.Shape.Index(k); j < 0 {
				return false, nil
			}
		}
		eq, err := Equal(x.Vals[i], y.Vals[j])
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

func errorsEqual(x, y *ErrorVal) bool {
	if x.Err == nil || y.Err == nil {
		return x.Err == y.Err
	}
	a, b := x.Err, y.Err
	return a.Code == b.Code && a.Msg == b.Msg && a.Hint == b.Hint &&
		eqPtr(a.Status, b.Status) && eqPtr(a.Stderr, b.Stderr)
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ImplEqualer lets the evaluator define structural equality of the stored
// call behind an alias (a *Command's Impl).
type ImplEqualer interface {
	EqualImpl(other any) bool
}

func commandsEqual(x, y *Command) bool {
	if x == y {
		return true
	}
	if x.Head != y.Head {
		return false
	}
	if e, ok := x.Impl.(ImplEqualer); ok {
		return e.EqualImpl(y.Impl)
	}
	return x.Impl == nil && y.Impl == nil
}

// bytesEqual compares content. Two stored blobs are equal exactly when
// their content addresses are; otherwise lazily stored content is loaded.
func bytesEqual(x, y *Bytes) (bool, error) {
	if x == y {
		return true, nil
	}
	if x.Ref != "" && y.Ref != "" {
		return x.Ref == y.Ref, nil
	}
	if x.Length() != y.Length() {
		return false, nil
	}
	xd, err := x.Content(context.Background())
	if err != nil {
		return false, err
	}
	yd, err := y.Content(context.Background())
	if err != nil {
		return false, err
	}
	return bytes.Equal(xd, yd), nil
}

// Content returns the bytes, loading lazily stored content. A failed load
// is an io_error.
func (b *Bytes) Content(ctx context.Context) ([]byte, error) {
	if b.Data != nil || b.Ref == "" {
		return b.Data, nil
	}
	if b.Load == nil {
		return nil, diag.New(diag.IOError, "cannot load %s: no content store", b.Ref)
	}
	d, err := b.Load(ctx)
	if err != nil {
		if de := diag.As(err); de != nil {
			return nil, err
		}
		return nil, diag.New(diag.IOError, "cannot load %s: %v", b.Ref, err)
	}
	return d, nil
}
