package lib

import (
	"github.com/shoal-sh/shoal/lang/value"
)

// json.parse and json.stringify use lang/value's codec, the same mapping
// as .json() and command output sniffing (§5.2).

func jsonParse(c *call) (value.Value, error) {
	s, err := textArg(c)
	if err != nil {
		return nil, err
	}
	return value.FromJSON([]byte(s))
}

// jsonStringify takes pretty as a named argument or as a second
// positional true.
func jsonStringify(c *call) (value.Value, error) {
	a, err := c.params([]string{"v", "pretty"}, 0, "")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, argErr("json.stringify requires a value")
	}
	pretty := false
	if a[1] != nil {
		b, ok := a[1].(value.Bool)
		if !ok {
			return nil, typeErr("json.stringify: pretty must be a bool, found %s", value.TypeName(a[1]))
		}
		pretty = bool(b)
	}
	out, err := value.ToJSON(a[0], pretty)
	if err != nil {
		return nil, err
	}
	return value.Str(out), nil
}
