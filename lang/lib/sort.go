package lib

import (
	"github.com/shoal-sh/shoal/lang/value"
)

// sortByKeys stably sorts vals by the parallel keys (keys may be vals
// itself). value.SortIndex unboxes same-kind keys and radix-sorts
// strings, which keeps sort_by(.name) over a million rows fast; an
// incomparable pair is its "cannot compare X with Y" type_error.
func sortByKeys(vals, keys []value.Value) error {
	perm, err := value.SortIndex(keys)
	if err != nil {
		return err
	}
	sorted := make([]value.Value, len(vals))
	for i, j := range perm {
		sorted[i] = vals[j]
	}
	copy(vals, sorted)
	return nil
}
