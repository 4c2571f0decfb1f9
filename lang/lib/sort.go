package lib

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shoal-sh/shoal/lang/value"
)

// sortByKeys stably sorts vals by the parallel keys (keys may be vals
// itself). Every adjacent pair of keys is checked for comparability
// first, so an incomparable mix fails with the same "cannot compare …"
// error whatever the sort algorithm would have visited. Keys are then
// sorted as precomputed pairs, with str and int fast paths that skip the
// generic comparison: sort_by(.name) over a million rows must stay well
// under a second.
func sortByKeys(vals, keys []value.Value) error {
	for i := 1; i < len(keys); i++ {
		if _, err := value.Compare(keys[i-1], keys[i]); err != nil {
			return err
		}
	}
	switch {
	case allKind[value.Str](keys):
		sortPairs(vals, keys, func(k value.Value) string { return string(k.(value.Str)) }, strings.Compare)
	case allKind[value.Int](keys):
		sortPairs(vals, keys, func(k value.Value) int64 { return int64(k.(value.Int)) }, cmp.Compare[int64])
	default:
		sortPairs(vals, keys, func(k value.Value) value.Value { return k }, func(a, b value.Value) int {
			// Comparability was checked above; families are closed, so
			// every pair compares without error.
			r, _ := value.Compare(a, b)
			return r
		})
	}
	return nil
}

func allKind[T value.Value](keys []value.Value) bool {
	for _, k := range keys {
		if _, ok := k.(T); !ok {
			return false
		}
	}
	return true
}

type pair[K any] struct {
	k K
	v value.Value
}

func sortPairs[K any](vals, keys []value.Value, key func(value.Value) K, compare func(a, b K) int) {
	ps := make([]pair[K], len(vals))
	for i := range vals {
		ps[i] = pair[K]{key(keys[i]), vals[i]}
	}
	slices.SortStableFunc(ps, func(a, b pair[K]) int { return compare(a.k, b.k) })
	for i := range ps {
		vals[i] = ps[i].v
	}
}
