package lib

import (
	"math/big"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// add is the `+` of §6.1, which sum() folds with.
func add(a, b value.Value) (value.Value, error) { return value.Binary("+", a, b) }

// rangeSum sums a range in closed form, without materialising it.
func rangeSum(r value.Range) (value.Value, error) {
	n := r.Len()
	if n == 0 {
		return value.Int(0), nil
	}
	// n*(first+last)/2 can overflow int64 on the way even when the sum
	// fits, so it is computed exactly.
	s := new(big.Int).Add(big.NewInt(r.Start), big.NewInt(r.At(n-1)))
	s.Mul(s, big.NewInt(n))
	s.Quo(s, big.NewInt(2))
	if !s.IsInt64() {
		return nil, diag.New(diag.Overflow, "integer overflow in `+`")
	}
	return value.Int(s.Int64()), nil
}
