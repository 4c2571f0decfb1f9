package value

import (
	"math"
	"math/bits"
	"slices"
	"strings"
)

// SortIndex returns the permutation that sorts keys stably in [Compare]
// order: perm[0] is the index of the smallest key. sort, sort_by, min and
// max on large tables go through it. When every key has the same scalar
// kind (the usual column) the keys are encoded once as order-preserving
// integers and radix-sorted, which keeps a million-row sort well under the
// evaluator's budget; mixed keys (and a NaN) fall back to Compare, and the
// first incomparable pair is the error ("cannot compare X with Y").
func SortIndex(keys []Value) ([]int, error) {
	if len(keys) == 0 {
		return []int{}, nil
	}
	switch keys[0].(type) {
	case Str:
		if perm, ok := sortStrings(keys, func(v Value) (string, bool) { s, ok := v.(Str); return string(s), ok }); ok {
			return perm, nil
		}
	case Path:
		if perm, ok := sortStrings(keys, func(v Value) (string, bool) { s, ok := v.(Path); return s.P, ok }); ok {
			return perm, nil
		}
	case Int:
		if perm, ok := sortEncoded(keys, func(v Value) (uint64, bool) { x, ok := v.(Int); return uint64(x) ^ 1<<63, ok }); ok {
			return perm, nil
		}
	case Size:
		if perm, ok := sortEncoded(keys, func(v Value) (uint64, bool) { x, ok := v.(Size); return uint64(x), ok }); ok {
			return perm, nil
		}
	case Duration:
		if perm, ok := sortEncoded(keys, func(v Value) (uint64, bool) { x, ok := v.(Duration); return uint64(x) ^ 1<<63, ok }); ok {
			return perm, nil
		}
	case Float:
		if perm, ok := sortEncoded(keys, encodeFloat); ok {
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

// encodeFloat maps a float key to an integer with the same order. -0 and
// +0 compare equal, so they share a code (ties keep input order); a NaN
// has no order and is refused, so the general path reports it.
func encodeFloat(v Value) (uint64, bool) {
	x, ok := v.(Float)
	if !ok || math.IsNaN(float64(x)) {
		return 0, false
	}
	if x == 0 {
		x = 0
	}
	b := math.Float64bits(float64(x))
	if b>>63 != 0 {
		return ^b, true
	}
	return b | 1<<63, true
}

// sortEncoded sorts when encode accepts every key, mapping it to an
// integer with the key's order.
func sortEncoded(keys []Value, encode func(Value) (uint64, bool)) ([]int, bool) {
	ks := make([]uint64, len(keys))
	lo, hi := ^uint64(0), uint64(0)
	for i, v := range keys {
		k, ok := encode(v)
		if !ok {
			return nil, false
		}
		ks[i] = k
		lo, hi = min(lo, k), max(hi, k)
	}
	for i := range ks {
		ks[i] -= lo
	}
	return sortKeys(ks, bits.Len64(hi-lo), nil, nil), true
}

// sortKeys returns the stable sorting permutation of keys and rewrites
// keys into sorted order (keys[i] becomes the key of perm[i]); tmp, if
// long enough, is scratch. The keys are all below 1<<keyBits once sq, if
// not nil, has mapped them. When key and index fit one word together
// (keys from a column usually span few bits) they are packed as
// key<<idxBits | index and LSD radix-sorted on the key bits alone: the
// index travels in the same word, and the unique words make the result
// stable. Wider keys travel beside their indexes instead.
func sortKeys(keys []uint64, keyBits int, tmp []uint64, sq *squeezer) []int {
	n := len(keys)
	idxBits := bits.Len(uint(n - 1))
	if sq != nil && (keyBits+idxBits > 64 || n < 256 || keyBits == 0) {
		for i, k := range keys {
			keys[i] = sq.key(k)
		}
		sq = nil
	}
	switch {
	case keyBits+idxBits > 64:
		return radixPerm(keys)
	case n < 256 || keyBits == 0:
		for i, k := range keys {
			keys[i] = k<<idxBits | uint64(i)
		}
		slices.Sort(keys)
	default:
		if len(tmp) < n {
			tmp = make([]uint64, n)
		}
		if sorted := radixPacked(keys, tmp[:n], idxBits, keyBits, sq); &sorted[0] != &keys[0] {
			copy(keys, sorted)
		}
	}
	perm := make([]int, n)
	mask := uint64(1)<<idxBits - 1
	for i, w := range keys {
		perm[i] = int(w & mask)
		keys[i] = w >> idxBits
	}
	return perm
}

// radixPacked maps each key through sq (if not nil), packs it above its
// index and sorts the words by their key bits [idxBits, idxBits+keyBits)
// with an LSD radix sort of at most 12-bit digits, using tmp as the other
// buffer; it returns whichever buffer holds the result. The packing pass
// also builds every digit's histogram, and a digit on which all words
// agree costs no pass.
func radixPacked(a, tmp []uint64, idxBits, keyBits int, sq *squeezer) []uint64 {
	const maxDigit = 12
	passes := (keyBits + maxDigit - 1) / maxDigit
	r := (keyBits + passes - 1) / passes
	size := 1 << r
	mask := uint64(size - 1)
	counts := make([]int, passes*size)
	for i, k := range a {
		if sq != nil {
			k = sq.key(k)
		}
		a[i] = k<<idxBits | uint64(i)
		for p := range passes {
			counts[p*size+int(k>>(p*r)&mask)]++
		}
	}
	n := len(a)
	for p := range passes {
		count := counts[p*size : (p+1)*size]
		shift := idxBits + p*r
		if count[(a[0]>>shift)&mask] == n {
			continue
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, w := range a {
			d := (w >> shift) & mask
			tmp[count[d]] = w
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// radixPerm is sortKeys for keys too wide to share a word with their
// index: an LSD radix sort over bytes, skipping byte positions where all
// keys agree, with each key travelling beside its index so each pass
// reads memory in order.
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
		keys[i] = it.k
	}
	return perm
}

// sortStrings sorts string keys byte-wise and stably, or reports false
// when unbox refuses a key.
func sortStrings(keys []Value, unbox func(Value) (string, bool)) ([]int, bool) {
	return SortStringsBy(len(keys), func(i int) (string, bool) { return unbox(keys[i]) })
}

// SortStringsBy returns the permutation that sorts the strings at(0) …
// at(n-1) stably and byte-wise, which is [SortIndex] order for str keys;
// ok is false, and nothing is sorted, when at refuses an index. at is
// called once per index in order, then again only for keys that tie in
// their leading bytes, so it may read the strings from wherever they
// live instead of a copied slice.
func SortStringsBy(n int, at func(i int) (string, bool)) (perm []int, ok bool) {
	return strSorter{at}.sort(nil, n, 0)
}

// strSorter is an MSD string sort built on the integer radix sort. Names
// in a column usually share a prefix ("file-…"), so the 8 bytes after the
// common prefix are packed into an integer, squeezed to the bits that
// vary among the keys (a decimal digit keeps four), and sorted as
// integers; only runs whose packed bytes tie look further.
type strSorter struct {
	at func(i int) (string, bool)
}

// str is the string at i, which the first pass has checked.
func (s strSorter) str(i int) string {
	t, _ := s.at(i)
	return t
}

// smallStrSort is the group size below which comparison sorting wins.
const smallStrSort = 32

// sort returns the indexes idx (nil meaning 0..n-1) stably sorted by
// their strings, all of which are at least off bytes long and share
// their first off bytes. A non-nil idx is sorted in place. ok is false
// when s.at refuses an index.
func (s strSorter) sort(idx []int, n, off int) (perm []int, ok bool) {
	index := func(j int) int {
		if idx == nil {
			return j
		}
		return idx[j]
	}
	identity := func() []int {
		if idx == nil {
			idx = make([]int, n)
			for i := range idx {
				idx[i] = i
			}
		}
		return idx
	}
	if n == 0 {
		return identity(), true
	}
	// One read of the strings checks them, finds their common prefix p
	// and packs the 16 bytes after off, which hold the 8 bytes after p
	// unless the prefix runs on.
	keys, next := make([]uint64, n), make([]uint64, n)
	first, ok := s.at(index(0))
	if !ok {
		return nil, false
	}
	p, sameLen := len(first), true
	for j := range n {
		t, ok := s.at(index(j))
		if !ok {
			return nil, false
		}
		p = off + commonPrefix(first[off:p], t[off:])
		sameLen = sameLen && len(t) == len(first)
		keys[j], next[j] = pack8(t, off), pack8(t, off+8)
	}
	if sameLen && p == len(first) {
		return identity(), true // all equal
	}
	if n < smallStrSort {
		idx = identity()
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(s.str(a)[p:], s.str(b)[p:]) })
		return idx, true
	}
	if d := uint(8 * (p - off)); d <= 64 {
		for j, k := range keys {
			keys[j] = k<<d | next[j]>>(64-d)
		}
	} else {
		for j := range keys {
			keys[j] = pack8(s.str(index(j)), p)
		}
	}
	sq, keyBits := newSqueezer(keys)
	perm = sortKeys(keys, keyBits, next, sq)
	if idx == nil {
		idx = perm
	} else {
		for j, l := range perm {
			perm[j] = idx[l]
		}
		copy(idx, perm)
	}
	// Runs of equal packed keys: their strings agree on bytes [p, p+8)
	// once zero-padded, so a string shorter than p+8 is a prefix of every
	// longer string in the run (shorter first), and strings of at least
	// p+8 bytes share that many.
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && keys[hi] == keys[lo] {
			hi++
		}
		if hi-lo > 1 {
			s.ties(idx[lo:hi], p+8)
		}
		lo = hi
	}
	return idx, true
}

// ties orders a run of indexes, in input order, whose strings agree up
// to end once zero-padded.
func (s strSorter) ties(run []int, end int) {
	var short, long []int
	for _, i := range run {
		if len(s.str(i)) < end {
			short = append(short, i)
		} else {
			long = append(long, i)
		}
	}
	slices.SortStableFunc(short, func(a, b int) int { return len(s.str(a)) - len(s.str(b)) })
	copy(run, short)
	if len(long) > 1 {
		s.sort(long, len(long), end)
	}
	copy(run[len(short):], long)
}

// squeezer maps packed keys to only the bits that vary among them,
// packed to the right (a software PEXT): dropping bits every key shares
// keeps the order and the distinctness, and six decimal digits then take
// 24 bits instead of 48.
type squeezer struct {
	np     int
	shifts [8]uint
	// code[i] maps the byte at shifts[i] to its varying bits, already
	// shifted into place, so a key is the OR of one lookup per byte.
	code [8][256]uint64
}

// newSqueezer returns the squeezer for keys and the width of its keys.
func newSqueezer(keys []uint64) (*squeezer, int) {
	var differ uint64
	for _, k := range keys {
		differ |= k ^ keys[0]
	}
	width := bits.OnesCount64(differ)
	sq := &squeezer{}
	at := width
	for b := range 8 {
		shift := uint(56 - 8*b)
		m := uint8(differ >> shift)
		if m == 0 {
			continue
		}
		at -= bits.OnesCount8(m)
		for v := range 256 {
			var x uint64
			for bit := 7; bit >= 0; bit-- {
				if m>>bit&1 != 0 {
					x = x<<1 | uint64(v>>bit&1)
				}
			}
			sq.code[sq.np][v] = x << at
		}
		sq.shifts[sq.np] = shift
		sq.np++
	}
	return sq, width
}

func (sq *squeezer) key(k uint64) uint64 {
	var q uint64
	for i := range sq.np {
		q |= sq.code[i][(k>>sq.shifts[i])&0xff]
	}
	return q
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
	if off+8 <= len(s) {
		b := s[off : off+8]
		return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	}
	var p uint64
	for j := range 8 {
		p <<= 8
		if off+j < len(s) {
			p |= uint64(s[off+j])
		}
	}
	return p
}
