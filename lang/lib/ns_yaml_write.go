package lib

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shoal-sh/shoal/lang/value"
)

// yamlStringify writes block-style YAML (`- 1`, `key: value`), with flow
// [] and {} only for empty collections. Strings are quoted whenever the
// plain form would read back as something else.
func yamlStringify(c *call) (value.Value, error) {
	v, err := valueArg(c)
	if err != nil {
		return nil, err
	}
	o, err := value.ToOrdered(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, l := range yamlLines(o) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return value.Str(b.String()), nil
}

// yamlLines renders x as lines at indentation 0; callers indent them.
func yamlLines(x any) []string {
	switch t := x.(type) {
	case value.Ordered:
		if len(t) == 0 {
			return []string{"{}"}
		}
		var out []string
		for _, p := range t {
			k := yamlString(p.Key)
			if !yamlNested(p.Val) {
				out = append(out, k+": "+yamlScalar(p.Val))
				continue
			}
			out = append(out, k+":")
			for _, l := range yamlLines(p.Val) {
				out = append(out, "  "+l)
			}
		}
		return out
	case []any:
		if len(t) == 0 {
			return []string{"[]"}
		}
		var out []string
		for _, e := range t {
			if !yamlNested(e) {
				out = append(out, "- "+yamlScalar(e))
				continue
			}
			// The first line of a nested block shares the dash's line.
			for i, l := range yamlLines(e) {
				if i == 0 {
					out = append(out, "- "+l)
				} else {
					out = append(out, "  "+l)
				}
			}
		}
		return out
	}
	return []string{yamlScalar(x)}
}

// yamlNested reports whether x is written as an indented block.
func yamlNested(x any) bool {
	switch t := x.(type) {
	case value.Ordered:
		return len(t) > 0
	case []any:
		return len(t) > 0
	}
	return false
}

func yamlScalar(x any) string {
	switch t := x.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case uint64:
		return strconv.FormatUint(t, 10)
	case float64:
		switch {
		case math.IsNaN(t):
			return ".nan"
		case math.IsInf(t, 1):
			return ".inf"
		case math.IsInf(t, -1):
			return "-.inf"
		}
		// JSON's float form keeps a ".0" so the value reads back a float.
		return string(value.AppendJSONFloat(nil, t))
	case string:
		return yamlString(t)
	case time.Time:
		return yamlString(value.FormatZoned(t))
	case value.Ordered, []any:
		return strings.Join(yamlLines(t), "")
	}
	return yamlString(value.RenderInline(mustValue(x)))
}

func mustValue(x any) value.Value {
	v, err := value.FromOrdered(x)
	if err != nil {
		return value.Null{}
	}
	return v
}

// yamlString writes s plain when that reads back as the same string,
// else double-quoted.
func yamlString(s string) string {
	if yamlPlainSafe(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(`\x`)
				b.WriteString(strconv.FormatUint(uint64(r)|0x100, 16)[1:])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func yamlPlainSafe(s string) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	if _, isStr := plainScalar(s).(string); !isStr {
		return false
	}
	if strings.IndexByte("-?:,[]{}#&*!|>'\"%@`~", s[0]) >= 0 {
		return false
	}
	// Quotes and # inside a plain scalar are legal YAML, but they make
	// comment and quote detection depend on context; quoting is cheaper
	// than being clever.
	if strings.ContainsAny(s, "\"'#\\") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return false
		}
	}
	return true
}
