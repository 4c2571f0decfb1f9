package lib

import (
	"strings"

	"github.com/shoal-sh/shoal/lang/value"
)

// Collection methods (LANGUAGE.md §8.4) on lists, tables and ranges. A
// table is a list of records, so these methods return lists; a range
// materialises only as far as the method needs.

func recvColl(c *call) coll {
	cl, _ := asColl(c.recv)
	return cl
}

func collLen(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return value.Int(recvColl(c).n), nil
}

func collIsEmpty(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return value.Bool(recvColl(c).n == 0), nil
}

// firstLast serves first(n?) and last(n?): without n the element (or
// null), with n a list of up to n elements.
func firstLast(fromEnd bool) method {
	return func(c *call) (value.Value, error) {
		a, err := c.params([]string{"n"}, 0, "")
		if err != nil {
			return nil, err
		}
		cl := recvColl(c)
		if a[0] == nil {
			if cl.n == 0 {
				return value.Null{}, nil
			}
			if fromEnd {
				return cl.at(cl.n - 1), nil
			}
			return cl.at(0), nil
		}
		n, err := count(a[0])
		if err != nil {
			return nil, err
		}
		n = min(n, cl.n)
		if n > maxMaterialise {
			return nil, argErr("%s(%d) is too large to materialise", c.name, n)
		}
		if fromEnd {
			return list(cl.slice(cl.n-n, cl.n)), nil
		}
		return list(cl.slice(0, n)), nil
	}
}

func collCollect(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	if r, ok := c.recv.(value.Range); ok {
		cl, _ := asColl(r)
		if err := cl.checkMaterialise(); err != nil {
			return nil, err
		}
		return list(cl.all()), nil
	}
	return c.recv, nil
}

func collMap(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	out := make([]value.Value, cl.n)
	for i := range out {
		if out[i], err = c.apply1(f, cl.at(i)); err != nil {
			return nil, err
		}
	}
	return list(out), nil
}

func collEach(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	for i := 0; i < cl.n; i++ {
		if _, err := c.apply1(f, cl.at(i)); err != nil {
			return nil, err
		}
	}
	return value.Null{}, nil
}

func collFlatMap(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	var out []value.Value
	for i := 0; i < cl.n; i++ {
		r, err := c.apply1(f, cl.at(i))
		if err != nil {
			return nil, err
		}
		sub, ok := asColl(r)
		if !ok {
			return nil, typeErr("flat_map expects the function to return a list, table or range, found %s", value.TypeName(r))
		}
		if err := sub.checkMaterialise(); err != nil {
			return nil, err
		}
		for j := 0; j < sub.n; j++ {
			out = append(out, sub.at(j))
		}
	}
	if out == nil {
		out = []value.Value{}
	}
	return list(out), nil
}

// collWhere keeps the elements satisfying the predicate. It allocates
// nothing per element beyond what the callback does, because
// .where(.size > 500kb) over a million-row table is a hot path: the
// verdicts go to a byte per element first, so the result is allocated
// once at its exact size instead of growing by repeated appends.
func collWhere(c *call) (value.Value, error) {
	p, err := c.one("p", "a predicate")
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	keep := make([]bool, cl.n)
	kept := 0
	// A dot-lambda's field is read here, not through apply1, so the loop
	// does not look the callback up again per element.
	fc := c.fieldOf(p)
	for i := range keep {
		x := cl.at(i)
		var r value.Value
		if v, ok := fc.read(x); ok {
			r, err = fc.result(v)
		} else {
			r, err = c.apply1(p, x)
		}
		if err != nil {
			return nil, err
		}
		if keep[i], err = value.Cond(r); err != nil {
			return nil, err
		}
		if keep[i] {
			kept++
		}
	}
	out := make([]value.Value, 0, kept)
	for i, k := range keep {
		if k {
			out = append(out, cl.at(i))
		}
	}
	return list(out), nil
}

func collFind(c *call) (value.Value, error) {
	p, err := c.one("p", "a predicate")
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	for i := 0; i < cl.n; i++ {
		x := cl.at(i)
		hit, err := c.test(p, x)
		if err != nil {
			return nil, err
		}
		if hit {
			return x, nil
		}
	}
	return value.Null{}, nil
}

// anyAll short-circuits: any stops at the first match, all at the first
// mismatch.
func anyAll(want bool) method {
	return func(c *call) (value.Value, error) {
		p, err := c.one("p", "a predicate")
		if err != nil {
			return nil, err
		}
		cl := recvColl(c)
		for i := 0; i < cl.n; i++ {
			hit, err := c.test(p, cl.at(i))
			if err != nil {
				return nil, err
			}
			if hit == want {
				return value.Bool(want), nil
			}
		}
		return value.Bool(!want), nil
	}
}

func collReduce(c *call) (value.Value, error) {
	a, err := c.params([]string{"init", "f"}, 2, "an initial value and a function")
	if err != nil {
		return nil, err
	}
	acc, f := a[0], a[1]
	cl := recvColl(c)
	for i := 0; i < cl.n; i++ {
		if acc, err = c.apply(f, acc, cl.at(i)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// collSort is sort() and sort(f)/sort_by(f): stable, ascending by §5.5.
// Keys are computed once per element, then sorted as a permutation.
func collSort(c *call) (value.Value, error) {
	need := 0
	if c.name == "sort_by" {
		need = 1
	}
	a, err := c.params([]string{"f"}, need, "a key function")
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	if out, ok := c.sortByStrField(a[0], cl); ok {
		return list(out), nil
	}
	var keys []value.Value
	if a[0] == nil {
		keys = cl.all()
	} else {
		keys = make([]value.Value, cl.n)
		for i := range keys {
			if keys[i], err = c.apply1(a[0], cl.at(i)); err != nil {
				return nil, err
			}
		}
	}
	perm, err := value.SortIndex(keys)
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		// keys is already a private copy of the elements: permute it.
		out := make([]value.Value, len(perm))
		for i, j := range perm {
			out[i] = keys[j]
		}
		return list(out), nil
	}
	for i, j := range perm {
		keys[i] = cl.at(j)
	}
	return list(keys), nil
}

// sortByStrField is sort_by(.field) when every element is a record
// whose field is a str (the usual name column): the strings go from the
// rows to the sorter without a boxed key per row. ok is false otherwise,
// and the general path then runs (reading a field has no effect to
// repeat).
func (c *call) sortByStrField(f value.Value, cl coll) ([]value.Value, bool) {
	if f == nil || cl.n == 0 {
		return nil, false
	}
	fc := c.fieldOf(f)
	if fc == nil || fc.apply != nil {
		return nil, false
	}
	perm, ok := value.SortStringsBy(cl.n, func(i int) (string, bool) {
		v, ok := fc.read(cl.at(i))
		if !ok {
			return "", false
		}
		s, ok := v.(value.Str)
		return string(s), ok
	})
	if !ok {
		return nil, false
	}
	out := make([]value.Value, len(perm))
	for i, j := range perm {
		out[i] = cl.at(j)
	}
	return out, true
}

func collReverse(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	out := make([]value.Value, cl.n)
	for i := range out {
		out[i] = cl.at(cl.n - 1 - i)
	}
	return list(out), nil
}

func collUniq(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	var seen valueIndex
	out := []value.Value{}
	for i := 0; i < cl.n; i++ {
		x := cl.at(i)
		_, found, err := seen.find(x)
		if err != nil {
			return nil, err
		}
		if !found {
			seen.add(x, len(out))
			out = append(out, x)
		}
	}
	return list(out), nil
}

// noProjection rejects arguments to sum/min/max with the idiom that
// replaces a projection argument.
func noProjection(c *call) error {
	if len(c.args) > 0 || len(c.named) > 0 {
		return argErr("%s takes no arguments (did you mean .map(f).%s()?)", c.name, c.name)
	}
	return nil
}

// collSum folds + from the first element, so sizes stay sizes and
// strings concatenate; an empty collection sums to 0.
func collSum(c *call) (value.Value, error) {
	if err := noProjection(c); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if cl.isRng {
		return rangeSum(cl.rng)
	}
	if cl.n == 0 {
		return value.Int(0), nil
	}
	acc := cl.at(0)
	var err error
	for i := 1; i < cl.n; i++ {
		if acc, err = add(acc, cl.at(i)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// extreme is min() and max(): the first extreme element, or null.
func extreme(sign int) method {
	return func(c *call) (value.Value, error) {
		if err := noProjection(c); err != nil {
			return nil, err
		}
		cl := recvColl(c)
		if cl.n == 0 {
			return value.Null{}, nil
		}
		if cl.isRng {
			// A range is ascending.
			if sign < 0 {
				return cl.at(0), nil
			}
			return cl.at(cl.n - 1), nil
		}
		best := cl.at(0)
		for i := 1; i < cl.n; i++ {
			x := cl.at(i)
			r, err := value.Compare(x, best)
			if err != nil {
				return nil, err
			}
			if r*sign > 0 {
				best = x
			}
		}
		return best, nil
	}
}

func collFlatten(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	out := []value.Value{}
	for i := 0; i < cl.n; i++ {
		x := cl.at(i)
		sub, ok := asColl(x)
		if !ok {
			return nil, typeErr("flatten expects every element to be a list, table or range, found %s", value.TypeName(x))
		}
		if err := sub.checkMaterialise(); err != nil {
			return nil, err
		}
		for j := 0; j < sub.n; j++ {
			out = append(out, sub.at(j))
		}
	}
	return list(out), nil
}

func collEnumerate(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	out := make([]value.Value, cl.n)
	for i := range out {
		out[i] = list([]value.Value{value.Int(i), cl.at(i)})
	}
	return list(out), nil
}

// skipTake slices by count; on overrun it stops at the end.
func skipTake(take bool) method {
	return func(c *call) (value.Value, error) {
		v, err := c.one("n", "a count")
		if err != nil {
			return nil, err
		}
		n, err := count(v)
		if err != nil {
			return nil, err
		}
		cl := recvColl(c)
		n = min(n, cl.n)
		if take {
			if n > maxMaterialise {
				return nil, argErr("take(%d) is too large to materialise", n)
			}
			return list(cl.slice(0, n)), nil
		}
		if err := cl.checkMaterialise(); err != nil {
			return nil, err
		}
		return list(cl.slice(n, cl.n)), nil
	}
}

func collChunks(c *call) (value.Value, error) {
	v, err := c.one("n", "a chunk size")
	if err != nil {
		return nil, err
	}
	n, err := count(v)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, argErr("chunks needs a size of at least 1")
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	out := []value.Value{}
	for lo := 0; lo < cl.n; lo += n {
		out = append(out, list(cl.slice(lo, min(lo+n, cl.n))))
	}
	return list(out), nil
}

func collZip(c *call) (value.Value, error) {
	v, err := c.one("other", "a collection")
	if err != nil {
		return nil, err
	}
	other, ok := asColl(v)
	if !ok {
		return nil, typeErr("zip expects a list, table or range, found %s", value.TypeName(v))
	}
	cl := recvColl(c)
	n := min(cl.n, other.n)
	if n > maxMaterialise {
		return nil, argErr("zip of %d elements is too large to materialise", n)
	}
	out := make([]value.Value, n)
	for i := range out {
		out[i] = list([]value.Value{cl.at(i), other.at(i)})
	}
	return list(out), nil
}

// groupShape is shared by every group record, as table rows share one.
var groupShape = value.NewShape([]string{"key", "values"})

// collGroup is group(f)/group_by(f): [{key, values}] in first-seen key
// order.
func collGroup(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	var idx valueIndex
	var keys []value.Value
	var groups [][]value.Value
	for i := 0; i < cl.n; i++ {
		x := cl.at(i)
		k, err := c.apply1(f, x)
		if err != nil {
			return nil, err
		}
		g, found, err := idx.find(k)
		if err != nil {
			return nil, err
		}
		if !found {
			g = len(groups)
			idx.add(k, g)
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], x)
	}
	out := make([]value.Value, len(groups))
	for i := range groups {
		out[i] = &value.Record{Shape: groupShape, Vals: []value.Value{keys[i], list(groups[i])}}
	}
	return list(out), nil
}

func collJoin(c *call) (value.Value, error) {
	a, err := c.params([]string{"sep"}, 0, "")
	if err != nil {
		return nil, err
	}
	sep := ""
	if a[0] != nil {
		if sep, err = str(a[0], "join separator"); err != nil {
			return nil, err
		}
	}
	cl := recvColl(c)
	var b strings.Builder
	for i := 0; i < cl.n; i++ {
		x := cl.at(i)
		s, ok := x.(value.Str)
		if !ok {
			return nil, typeErr("join needs str elements, found %s", value.TypeName(x))
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(s))
	}
	return value.Str(b.String()), nil
}

func collContains(c *call) (value.Value, error) {
	x, err := c.one("x", "a value")
	if err != nil {
		return nil, err
	}
	if r, ok := c.recv.(value.Range); ok {
		// Ranges answer without materialising; only ints can be inside.
		switch n := x.(type) {
		case value.Int:
			return value.Bool(r.Contains(int64(n))), nil
		case value.Float:
			f := float64(n)
			return value.Bool(f == float64(int64(f)) && r.Contains(int64(f))), nil
		}
		return value.Bool(false), nil
	}
	cl := recvColl(c)
	for i := 0; i < cl.n; i++ {
		eq, err := value.Equal(cl.at(i), x)
		if err != nil {
			return nil, err
		}
		if eq {
			return value.Bool(true), nil
		}
	}
	return value.Bool(false), nil
}

// collGet is get(i, default = null) on lists only: tables and ranges are
// not indexable (§17).
func collGet(c *call) (value.Value, error) {
	a, err := c.params([]string{"i", "default"}, 1, "an index")
	if err != nil {
		return nil, err
	}
	l, ok := c.recv.(*value.List)
	if !ok {
		return nil, typeErr("cannot get an element of a %s by index (use .first() or .find())", value.TypeName(c.recv))
	}
	i, ok := a[0].(value.Int)
	if !ok {
		return nil, typeErr("cannot index list with %s", value.TypeName(a[0]))
	}
	n := int64(len(l.Items))
	if i < 0 {
		i += value.Int(n)
	}
	if i < 0 || int64(i) >= n {
		if a[1] == nil {
			return value.Null{}, nil
		}
		return a[1], nil
	}
	return l.Items[i], nil
}
