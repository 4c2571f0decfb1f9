package lib

import (
	"math"

	"github.com/shoal-sh/shoal/lang/value"
)

// namespaces is the one list of library namespace functions (§10).
var namespaces = map[string]methodTable{
	"json": {"parse": jsonParse, "stringify": jsonStringify},
	"yaml": {"parse": yamlParse, "stringify": yamlStringify},
	"toml": {"parse": tomlParse, "stringify": tomlStringify},
	"csv":  {"parse": csvParse, "stringify": csvStringify},
	"math": mathFuncs,
}

// nsConstants are the namespace members read as fields.
var nsConstants = map[string]map[string]value.Value{
	"math": {
		"pi":    value.Float(math.Pi),
		"e":     value.Float(math.E),
		"tau":   value.Float(2 * math.Pi),
		"inf":   value.Float(math.Inf(1)),
		"nan":   value.Float(math.NaN()),
		"sqrt2": value.Float(math.Sqrt2),
	},
}

// textArg reads the str document argument of the parse functions; a
// missing or non-str argument is an arg_error, as malformed input is.
func textArg(c *call) (string, error) {
	a, err := c.params([]string{"s"}, 0, "")
	if err != nil {
		return "", err
	}
	if a[0] == nil {
		return "", argErr("%s requires a str argument", c.name)
	}
	s, ok := a[0].(value.Str)
	if !ok {
		return "", argErr("%s expects a str, found %s", c.name, value.TypeName(a[0]))
	}
	return string(s), nil
}

// valueArg reads the single required value of the stringify functions.
func valueArg(c *call) (value.Value, error) {
	a, err := c.params([]string{"v"}, 0, "")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, argErr("%s requires a value", c.name)
	}
	return a[0], nil
}
