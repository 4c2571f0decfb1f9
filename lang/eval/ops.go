package eval

import (
	"github.com/shoal-sh/shoal/lang/value"
)

// The value operations live in lang/value; these thin wrappers keep the
// evaluator's call sites short and give the evaluator one place to add
// fast paths.

func binop(op string, l, r value.Value) (value.Value, error) { return value.Binary(op, l, r) }
func neg(v value.Value) (value.Value, error)                 { return value.Neg(v) }
func equal(a, b value.Value) (bool, error)                   { return value.Equal(a, b) }
func compare(a, b value.Value) (int, error)                  { return value.Compare(a, b) }
func cond(v value.Value) (bool, error) {
	if b, ok := v.(value.Bool); ok {
		return bool(b), nil
	}
	return value.Cond(v)
}

func in(needle, haystack value.Value) (value.Value, error) {
	b, err := value.In(needle, haystack)
	if err != nil {
		return nil, err
	}
	return value.Bool(b), nil
}

func newRange(a, b value.Value, inclusive bool) (value.Value, error) {
	return value.NewRange(a, b, inclusive)
}

func parseDatetime(s string) (value.Value, error) {
	d, err := value.ParseDatetime(s)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func toJSON(v value.Value) (string, error) {
	b, err := value.ToJSON(v, false)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// outcomeOut is .out: the payload of a successful outcome, cmd_failed for
// a failed one.
func outcomeOut(o *value.Outcome) (value.Value, error) {
	if !o.OK {
		return nil, cmdFailed(o)
	}
	return value.OutcomeOut(o), nil
}

// argvString converts a value to one argv word (LANGUAGE.md §9.3).
func argvString(v value.Value) (string, error) { return value.ArgvString(v) }

// coerceWord converts a command word to a declared parameter type
// (LANGUAGE.md §7.3).
func coerceWord(s, ty string) (value.Value, error) { return value.CoerceWord(s, ty, "") }
