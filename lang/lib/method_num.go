package lib

import (
	"math"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Number methods (LANGUAGE.md §8.4) on int and float.

func numAbs(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	switch x := c.recv.(type) {
	case value.Int:
		if x == math.MinInt64 {
			return nil, diag.New(diag.Overflow, "integer overflow in abs")
		}
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case value.Float:
		return value.Float(math.Abs(float64(x))), nil
	}
	return nil, typeErr("abs is not defined on %s", value.TypeName(c.recv))
}

// numRound is round/floor/ceil with an optional number of decimal
// places. Ints are already whole and come back unchanged; floats stay
// floats. A scale that overflows (round(400)) leaves the value as is,
// since it already has fewer digits than asked for.
func numRound(f func(float64) float64) method {
	return func(c *call) (value.Value, error) {
		a, err := c.params([]string{"digits"}, 0, "")
		if err != nil {
			return nil, err
		}
		digits := 0
		if a[0] != nil {
			d, ok := a[0].(value.Int)
			if !ok {
				return nil, typeErr("%s expects an int number of digits, found %s", c.name, value.TypeName(a[0]))
			}
			digits = int(max(min(d, 1000), -1000))
		}
		x, ok := c.recv.(value.Float)
		if !ok {
			return c.recv, nil
		}
		if digits == 0 {
			return value.Float(f(float64(x))), nil
		}
		scale := math.Pow(10, float64(digits))
		scaled := float64(x) * scale
		if math.IsInf(scale, 0) || scale == 0 || math.IsInf(scaled, 0) {
			return x, nil
		}
		return value.Float(f(scaled) / scale), nil
	}
}

var (
	// math.Round rounds half away from zero, as Shoal does.
	numRoundHalf = numRound(math.Round)
	numFloor     = numRound(math.Floor)
	numCeil      = numRound(math.Ceil)
)
