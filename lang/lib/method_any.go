package lib

import (
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Methods every value answers (LANGUAGE.md §8.4 "Every value"). tap,
// also, save, append, feed and pick need the host and live in the
// evaluator.

func anyJSON(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	b, err := value.ToJSON(c.recv, false)
	if err != nil {
		return nil, err
	}
	return value.Str(b), nil
}

// anyStr is str(): only values with one obvious text convert; the rest
// are pointed at interpolation, which renders anything.
func anyStr(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return toStr(c, false)
}

// anyDisplay is display(): str() but lossy for paths and bytes.
func anyDisplay(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return toStr(c, true)
}

func toStr(c *call, lossyOK bool) (value.Value, error) {
	switch x := c.recv.(type) {
	case value.Str:
		return x, nil
	case value.Int, value.Float, value.Bool:
		return value.Str(value.RenderInline(x)), nil
	case value.Path:
		return utf8Text([]byte(x.P), "path", lossyOK)
	case *value.Bytes:
		data, err := bytesData(c.ctx, x)
		if err != nil {
			return nil, err
		}
		return utf8Text(data, "bytes", lossyOK)
	}
	return nil, diag.New(diag.TypeError, "%s has no .%s() conversion", value.TypeName(c.recv), c.name).
		WithHint(`use string interpolation to render any value: "{x}"`)
}

func utf8Text(b []byte, what string, lossyOK bool) (value.Value, error) {
	if lossyOK {
		return value.Str(lossy(b)), nil
	}
	if !utf8.Valid(b) {
		return nil, diag.New(diag.UTF8Error, "%s is not valid UTF-8", what).
			WithHint("use .display() for a lossy conversion")
	}
	return value.Str(b), nil
}
