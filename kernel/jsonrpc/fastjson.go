package jsonrpc

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Hand-written JSON for the hot path of a request: the frames were validated by the envelope
// scanner already, and encoding/json's reflection (and its second validating pass over every
// RawMessage) was a good part of what a quick call costs the MCP facade. Each helper matches
// encoding/json's output or decoding exactly; the fuzz tests in fastjson_test.go hold them to it.

// Appender is implemented by results and params that write their own JSON: the connection
// appends it instead of calling encoding/json. The output must be one valid, compact value.
type Appender interface {
	AppendJSON(b []byte) []byte
}

var errNotObject = errors.New("not a JSON object")

// Members calls f with each member of the JSON object raw, in order: the key unescaped, the
// value raw (aliasing raw). Anything but one valid object is an error, as is f's.
func Members(raw []byte, f func(key string, value json.RawMessage) error) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		if end := skipValue(raw, i, 0); end >= 0 && skipSpace(raw, end) == len(raw) {
			return errNotObject
		}
		return errors.New("invalid JSON")
	}
	if end := skipValue(raw, i, 0); end < 0 || skipSpace(raw, end) != len(raw) {
		return errors.New("invalid JSON")
	}
	// Valid from here on: walk the members.
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return nil
	}
	for {
		ke, esc := skipString(raw, i)
		key, _ := unquote(raw[i:ke], esc)
		vs := skipSpace(raw, skipSpace(raw, ke)+1)
		ve := skipValue(raw, vs, 1)
		if err := f(key, raw[vs:ve:ve]); err != nil {
			return err
		}
		i = skipSpace(raw, ve)
		if raw[i] == '}' {
			return nil
		}
		i = skipSpace(raw, i+1)
	}
}

// String decodes a JSON string as json.Unmarshal into a string does (null gives ""); false
// for any other value.
func String(raw json.RawMessage) (string, bool) {
	if string(raw) == "null" {
		return "", true
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	end, esc := skipString(raw, 0)
	if end != len(raw) {
		return "", false
	}
	return unquote(raw, esc)
}

// unquote decodes the valid JSON string q (quotes included).
func unquote(q []byte, escaped bool) (string, bool) {
	s := q[1 : len(q)-1]
	if !escaped && utf8.Valid(s) {
		return string(s), true
	}
	var out string
	if json.Unmarshal(q, &out) != nil {
		return "", false
	}
	return out, true
}

// DecodeAny decodes raw as a json.Decoder with UseNumber does into an any: objects as
// map[string]any (a repeated key keeps its last value), arrays as []any, numbers as
// json.Number.
func DecodeAny(raw []byte) (any, error) {
	i := skipSpace(raw, 0)
	end := skipValue(raw, i, 0)
	if end < 0 || skipSpace(raw, end) != len(raw) {
		return nil, errors.New("invalid JSON")
	}
	v, _ := decodeValid(raw, i)
	return v, nil
}

// decodeValid decodes the valid value at raw[i] and returns it with the index past it.
func decodeValid(raw []byte, i int) (any, int) {
	switch c := raw[i]; {
	case c == '{':
		m := map[string]any{}
		i = skipSpace(raw, i+1)
		if raw[i] == '}' {
			return m, i + 1
		}
		for {
			ke, esc := skipString(raw, i)
			key, _ := unquote(raw[i:ke], esc)
			var v any
			v, i = decodeValid(raw, skipSpace(raw, skipSpace(raw, ke)+1))
			m[key] = v
			i = skipSpace(raw, i)
			if raw[i] == '}' {
				return m, i + 1
			}
			i = skipSpace(raw, i+1)
		}
	case c == '[':
		a := []any{}
		i = skipSpace(raw, i+1)
		if raw[i] == ']' {
			return a, i + 1
		}
		for {
			var v any
			v, i = decodeValid(raw, i)
			a = append(a, v)
			i = skipSpace(raw, i)
			if raw[i] == ']' {
				return a, i + 1
			}
			i = skipSpace(raw, i+1)
		}
	case c == '"':
		end, esc := skipString(raw, i)
		s, _ := unquote(raw[i:end], esc)
		return s, end
	case c == 't':
		return true, i + 4
	case c == 'f':
		return false, i + 5
	case c == 'n':
		return nil, i + 4
	default:
		end := skipNumber(raw, i)
		return json.Number(raw[i:end]), end
	}
}

// AppendString appends s as a JSON string exactly as encoding/json writes it with HTML
// escaping off: \b \f \n \r \t and \" \\ short, other control bytes as \u00XX, invalid UTF-8
// as \ufffd, and U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
