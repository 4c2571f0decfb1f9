package lib

import (
	"math"

	"github.com/shoal-sh/shoal/lang/value"
)

// The math namespace (§10): every function takes numbers (int or float)
// and returns a float.

// numArgs binds exactly len(names) numeric arguments.
func numArgs(c *call, names ...string) ([]float64, error) {
	a, err := c.params(names, 0, "")
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(a))
	for i, v := range a {
		if v == nil {
			return nil, argErr("%s requires %d argument(s): missing `%s`", c.name, len(names), names[i])
		}
		switch x := v.(type) {
		case value.Int:
			out[i] = float64(x)
		case value.Float:
			out[i] = float64(x)
		default:
			return nil, typeErr("%s expects a number, found %s", c.name, value.TypeName(v))
		}
	}
	return out, nil
}

func math1(f func(float64) float64) method {
	return func(c *call) (value.Value, error) {
		a, err := numArgs(c, "x")
		if err != nil {
			return nil, err
		}
		return value.Float(f(a[0])), nil
	}
}

func math2(p, q string, f func(a, b float64) float64) method {
	return func(c *call) (value.Value, error) {
		a, err := numArgs(c, p, q)
		if err != nil {
			return nil, err
		}
		return value.Float(f(a[0], a[1])), nil
	}
}

// sign is ±1 (0 counts as positive), NaN for NaN.
func sign(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return -1
	}
	return 1
}

func logBase(x, base float64) float64 {
	// Exact for the common bases, where Log(x)/Log(base) can be off by an
	// ulp.
	switch base {
	case 2:
		return math.Log2(x)
	case 10:
		return math.Log10(x)
	}
	return math.Log(x) / math.Log(base)
}

func mathClamp(c *call) (value.Value, error) {
	a, err := numArgs(c, "x", "lo", "hi")
	if err != nil {
		return nil, err
	}
	x, lo, hi := a[0], a[1], a[2]
	if lo > hi {
		return nil, argErr("math.clamp: lo (%s) is greater than hi (%s)", value.RenderInline(value.Float(lo)), value.RenderInline(value.Float(hi)))
	}
	return value.Float(math.Max(lo, math.Min(hi, x))), nil
}

var mathFuncs = methodTable{
	"sqrt":  math1(math.Sqrt),
	"cbrt":  math1(math.Cbrt),
	"sin":   math1(math.Sin),
	"cos":   math1(math.Cos),
	"tan":   math1(math.Tan),
	"asin":  math1(math.Asin),
	"acos":  math1(math.Acos),
	"atan":  math1(math.Atan),
	"ln":    math1(math.Log),
	"log10": math1(math.Log10),
	"log2":  math1(math.Log2),
	"exp":   math1(math.Exp),
	"floor": math1(math.Floor),
	"ceil":  math1(math.Ceil),
	"round": math1(math.Round), // half away from zero
	"trunc": math1(math.Trunc),
	"abs":   math1(math.Abs),
	"sign":  math1(sign),
	"atan2": math2("y", "x", math.Atan2),
	"log":   math2("x", "base", logBase),
	"pow":   math2("x", "y", math.Pow),
	"min":   math2("a", "b", math.Min),
	"max":   math2("a", "b", math.Max),
	"hypot": math2("x", "y", math.Hypot),
	"clamp": mathClamp,
}
