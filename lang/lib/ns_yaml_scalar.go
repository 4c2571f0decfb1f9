package lib

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// YAML scalars and flow collections: quoted and plain scalars with the
// core-schema typing, and the [a, b] / {k: v} parser.

// quoted decodes the quoted scalar at the start of t and returns it and
// the number of bytes it used.
func quoted(t string) (string, int, error) {
	q := t[0]
	var b strings.Builder
	for i := 1; i < len(t); i++ {
		ch := t[i]
		if q == '\'' {
			if ch == '\'' {
				if i+1 < len(t) && t[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), i + 1, nil
			}
			b.WriteByte(ch)
			continue
		}
		switch ch {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(t) {
				return "", 0, errUnterminated
			}
			i++
			r, n, ok := yamlEscape(t[i:])
			if !ok {
				return "", 0, errBadEscape
			}
			b.WriteString(r)
			i += n - 1
		default:
			b.WriteByte(ch)
		}
	}
	return "", 0, errUnterminated
}

var (
	errUnterminated = diag.New(diag.ArgError, "invalid YAML: unterminated quoted scalar")
	errBadEscape    = diag.New(diag.ArgError, "invalid YAML: invalid escape in a double-quoted scalar")
)

// yamlEscapes are the one-character escapes of double-quoted scalars.
var yamlEscapes = map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n",
	'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\",
	'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}

// yamlEscape decodes the escape after a backslash; n is its length.
func yamlEscape(s string) (string, int, bool) {
	if r, ok := yamlEscapes[s[0]]; ok {
		return r, 1, true
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if width == 0 || len(s) < 1+width {
		return "", 0, false
	}
	n, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return "", 0, false
	}
	return string(rune(n)), 1 + width, true
}

// flowParser reads a flow collection: [a, b], {k: v}.
type flowParser struct {
	s     string
	pos   int
	line  int
	depth int
}

func (f *flowParser) ws() {
	for f.pos < len(f.s) && (f.s[f.pos] == ' ' || f.s[f.pos] == '\t') {
		f.pos++
	}
}

func (f *flowParser) err(format string, args ...any) error {
	return yamlError(f.line, format, args...)
}

func (f *flowParser) value(depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, f.err("nesting is too deep")
	}
	f.ws()
	if f.pos >= len(f.s) {
		return nil, f.err("unexpected end of a flow collection")
	}
	switch f.s[f.pos] {
	case '[':
		f.pos++
		items := []any{}
		for {
			f.ws()
			if f.pos >= len(f.s) {
				return nil, f.err("unclosed `[`")
			}
			if f.s[f.pos] == ']' {
				f.pos++
				return items, nil
			}
			x, err := f.value(depth + 1)
			if err != nil {
				return nil, err
			}
			items = append(items, x)
			if err := f.sep(']'); err != nil {
				return nil, err
			}
		}
	case '{':
		f.pos++
		out := value.Ordered{}
		for {
			f.ws()
			if f.pos >= len(f.s) {
				return nil, f.err("unclosed `{`")
			}
			if f.s[f.pos] == '}' {
				f.pos++
				return out, nil
			}
			k, err := f.scalar(true)
			if err != nil {
				return nil, err
			}
			// Keys stay text: scalar(true) does not type them.
			key, _ := k.(string)
			f.ws()
			var x any
			if f.pos < len(f.s) && f.s[f.pos] == ':' {
				f.pos++
				f.ws()
				if f.pos < len(f.s) && f.s[f.pos] != ',' && f.s[f.pos] != '}' {
					if x, err = f.value(depth + 1); err != nil {
						return nil, err
					}
				}
			}
			out = append(out, value.Pair{Key: key, Val: x})
			if err := f.sep('}'); err != nil {
				return nil, err
			}
		}
	case ']', '}', ',':
		return nil, f.err("unexpected %q in a flow collection", f.s[f.pos])
	}
	return f.scalar(false)
}

// sep consumes the separator after an item: a comma, or the closer
// (left for the caller).
func (f *flowParser) sep(closer byte) error {
	f.ws()
	if f.pos >= len(f.s) {
		return f.err("unclosed flow collection")
	}
	switch f.s[f.pos] {
	case ',':
		f.pos++
		return nil
	case closer:
		return nil
	}
	return f.err("expected `,` or `%c`, found %q", closer, f.s[f.pos])
}

// scalar reads a quoted or plain scalar inside a flow collection; a key
// also ends at a `:`.
func (f *flowParser) scalar(key bool) (any, error) {
	rest := f.s[f.pos:]
	if rest[0] == '"' || rest[0] == '\'' {
		s, n, err := quoted(rest)
		if err != nil {
			return nil, f.err("unterminated quoted scalar")
		}
		f.pos += n
		return s, nil
	}
	if strings.IndexByte("&*!@`", rest[0]) >= 0 {
		return nil, f.err("%q cannot start a plain scalar", rest[0])
	}
	end := len(rest)
	for i := 0; i < len(rest); i++ {
		ch := rest[i]
		if ch == ',' || ch == ']' || ch == '}' || ch == '[' || ch == '{' {
			end = i
			break
		}
		if ch == ':' && (i+1 == len(rest) || strings.IndexByte(" ,]}", rest[i+1]) >= 0) {
			end = i
			break
		}
	}
	f.pos += end
	t := strings.TrimSpace(rest[:end])
	if key {
		return t, nil
	}
	return plainScalar(t), nil
}

// The YAML 1.2 core schema for plain scalars.
var (
	yamlInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	yamlOct   = regexp.MustCompile(`^0o[0-7]+$`)
	yamlHex   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
)

// plainScalar types a plain scalar: null, bool, int, float, else str.
func plainScalar(t string) any {
	switch t {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	switch {
	case yamlInt.MatchString(t):
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f
		}
	case yamlOct.MatchString(t):
		if n, err := strconv.ParseInt(t[2:], 8, 64); err == nil {
			return n
		}
	case yamlHex.MatchString(t):
		if n, err := strconv.ParseInt(t[2:], 16, 64); err == nil {
			return n
		}
	case yamlFloat.MatchString(t):
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f
		}
	}
	return t
}
