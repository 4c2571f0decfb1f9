package lib

import (
	"math"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// coll is a read-only view of a list, a table or a range, so collection
// methods index all three without first copying a table's rows into a
// list or materialising a range (a million-row table stays one slice).
type coll struct {
	items []value.Value
	rows  []*value.Record
	rng   value.Range
	isRng bool
	n     int
}

// asColl views v as a collection.
func asColl(v value.Value) (coll, bool) {
	switch x := v.(type) {
	case *value.List:
		return coll{items: x.Items, n: len(x.Items)}, true
	case *value.Table:
		return coll{rows: x.Rows, n: len(x.Rows)}, true
	case value.Range:
		n := x.Len()
		if n > int64(maxInt) {
			n = int64(maxInt)
		}
		return coll{rng: x, isRng: true, n: int(n)}, true
	}
	return coll{}, false
}

// at returns the i-th element (0 <= i < n).
func (c coll) at(i int) value.Value {
	switch {
	case c.items != nil:
		return c.items[i]
	case c.rows != nil:
		return c.rows[i]
	case c.isRng:
		return value.Int(c.rng.At(int64(i)))
	}
	return nil
}

// slice materialises elements [lo, hi) into a new slice (the result is
// owned by the caller, so it may become a list's Items).
func (c coll) slice(lo, hi int) []value.Value {
	if lo >= hi {
		return []value.Value{}
	}
	out := make([]value.Value, hi-lo)
	switch {
	case c.items != nil:
		copy(out, c.items[lo:hi])
	default:
		for i := range out {
			out[i] = c.at(lo + i)
		}
	}
	return out
}

// all materialises every element.
func (c coll) all() []value.Value { return c.slice(0, c.n) }

// maxMaterialise caps how many elements a range may expand to: a range
// is cheap to write (0..1_000_000_000_000) but its list would exhaust
// memory, so materialising methods refuse instead.
const maxMaterialise = 1 << 28

func (c coll) checkMaterialise() error {
	if c.isRng && c.n > maxMaterialise {
		return diag.New(diag.ArgError, "range %s is too large to materialise (%d elements)", value.RenderInline(c.rng), c.n)
	}
	return nil
}

// valueIndex finds values by equality (§5.3) in O(1) for the common
// scalar keys (str, path, int, integral float, bool) and by a linear scan
// for the rest, so uniq and group stay fast on large inputs.
type valueIndex struct {
	m      map[any]int
	others []indexed
}

type indexed struct {
	v value.Value
	i int
}

// hashKey maps v to a Go map key such that Equal values share a key;
// ok is false for kinds whose equality needs Equal.
func hashKey(v value.Value) (any, bool) {
	switch x := v.(type) {
	case value.Str:
		return string(x), true
	case value.Path:
		// A path equals the str of its text.
		return x.P, true
	case value.Int:
		return int64(x), true
	case value.Float:
		f := float64(x)
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			// An integral float equals the int of the same value.
			return int64(f), true
		}
		return f, true
	case value.Bool:
		return bool(x), true
	case value.Null, nil:
		return value.Null{}, true
	}
	return nil, false
}

// find returns the slot of a value equal to v.
func (x *valueIndex) find(v value.Value) (int, bool, error) {
	if k, ok := hashKey(v); ok {
		i, found := x.m[k]
		return i, found, nil
	}
	for _, o := range x.others {
		eq, err := value.Equal(o.v, v)
		if err != nil {
			return 0, false, err
		}
		if eq {
			return o.i, true, nil
		}
	}
	return 0, false, nil
}

// add records v at slot i (v must not be present yet).
func (x *valueIndex) add(v value.Value, i int) {
	if k, ok := hashKey(v); ok {
		if x.m == nil {
			x.m = make(map[any]int)
		}
		x.m[k] = i
		return
	}
	x.others = append(x.others, indexed{v, i})
}
