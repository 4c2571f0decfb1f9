package value

import (
	"cmp"
	"slices"
	"strings"
)

// SortIndex returns the permutation that sorts keys stably in [Compare]
// order: perm[0] is the index of the smallest key. sort, sort_by, min and
// max on large tables go through it. When every key has the same scalar
// kind (the usual column) the keys are unboxed once and compared directly,
// which keeps a million-row sort well under the evaluator's budget; mixed
// keys fall back to Compare, and the first incomparable pair is the
// error ("cannot compare X with Y").
func SortIndex(keys []Value) ([]int, error) {
	if len(keys) == 0 {
		return []int{}, nil
	}
	switch keys[0].(type) {
	case Str:
		if perm, ok := sortStrings(keys, func(v Value) (string, bool) { s, ok := v.(Str); return string(s), ok }); ok {
			return perm, nil
		}
	case Int:
		if perm, ok := sortUnboxed(keys, func(v Value) (Int, bool) { s, ok := v.(Int); return s, ok }, cmp.Compare[Int]); ok {
			return perm, nil
		}
	case Size:
		if perm, ok := sortUnboxed(keys, func(v Value) (Size, bool) { s, ok := v.(Size); return s, ok }, cmp.Compare[Size]); ok {
			return perm, nil
		}
	case Duration:
		if perm, ok := sortUnboxed(keys, func(v Value) (Duration, bool) { s, ok := v.(Duration); return s, ok }, cmp.Compare[Duration]); ok {
			return perm, nil
		}
	case Path:
		if perm, ok := sortStrings(keys, func(v Value) (string, bool) { s, ok := v.(Path); return s.P, ok }); ok {
			return perm, nil
		}
	}
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i
	}
	var firstErr error
	slices.SortStableFunc(perm, func(a, b int) int {
		if firstErr != nil {
			return 0
		}
		c, err := Compare(keys[a], keys[b])
		if err != nil {
			firstErr = err
			return 0
		}
		return c
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return perm, nil
}

type keyed[K any] struct {
	k K
	i int
}

// sortUnboxed sorts when unbox accepts every key; ties keep input order
// by comparing indexes, so the faster unstable sort gives a stable result.
func sortUnboxed[K any](keys []Value, unbox func(Value) (K, bool), compare func(a, b K) int) ([]int, bool) {
	ks := make([]keyed[K], len(keys))
	for i, v := range keys {
		k, ok := unbox(v)
		if !ok {
			return nil, false
		}
		ks[i] = keyed[K]{k, i}
	}
	slices.SortFunc(ks, func(a, b keyed[K]) int {
		if c := compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	perm := make([]int, len(ks))
	for i, k := range ks {
		perm[i] = k.i
	}
	return perm, true
}

// sortStrings sorts string keys byte-wise and stably. Names in a column
// usually share a prefix ("file-…"), so the 8 bytes after the common
// prefix are packed into an integer and radix-sorted (linear, stable);
// only runs whose packed bytes tie are then compared as strings.
func sortStrings(keys []Value, unbox func(Value) (string, bool)) ([]int, bool) {
	strs := make([]string, len(keys))
	for i, v := range keys {
		s, ok := unbox(v)
		if !ok {
			return nil, false
		}
		strs[i] = s
	}
	off := len(strs[0])
	for _, s := range strs[1:] {
		off = commonPrefix(strs[0][:off], s)
	}
	packed := make([]uint64, len(strs))
	for i, s := range strs {
		packed[i] = pack8(s, off)
	}
	perm := radixPerm(packed)
	// Tied packed keys: order by the whole string, stably.
	for lo := 0; lo < len(perm); {
		hi := lo + 1
		for hi < len(perm) && packed[perm[hi]] == packed[perm[lo]] {
			hi++
		}
		if hi-lo > 1 {
			slices.SortStableFunc(perm[lo:hi], func(a, b int) int { return strings.Compare(strs[a], strs[b]) })
		}
		lo = hi
	}
	return perm, true
}

// radixPerm returns the stable sorting permutation of keys with an LSD
// radix sort over bytes, skipping byte positions where all keys agree.
// Keys travel with their indexes so each pass reads memory in order.
func radixPerm(keys []uint64) []int {
	type item struct {
		k uint64
		i int
	}
	n := len(keys)
	cur, tmp := make([]item, n), make([]item, n)
	for i, k := range keys {
		cur[i] = item{k, i}
	}
	// All eight byte histograms in one read of the keys.
	var counts [8][256]int
	for _, k := range keys {
		for b := range 8 {
			counts[b][(k>>(8*b))&0xff]++
		}
	}
	for b := range 8 {
		count := &counts[b]
		if slices.Contains(count[:], n) {
			continue // every key has the same byte here
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		shift := uint(8 * b)
		for _, it := range cur {
			d := (it.k >> shift) & 0xff
			tmp[count[d]] = it
			count[d]++
		}
		cur, tmp = tmp, cur
	}
	perm := make([]int, n)
	for i, it := range cur {
		perm[i] = it.i
	}
	return perm
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// pack8 is s[off:off+8] as a big-endian integer, zero-padded; equal
// integers still need a full comparison ("a" and "a\x00" pack alike).
func pack8(s string, off int) uint64 {
	var p uint64
	for j := 0; j < 8; j++ {
		p <<= 8
		if off+j < len(s) {
			p |= uint64(s[off+j])
		}
	}
	return p
}
