package jsonrpc

import (
	"encoding/json"
)

// The envelope scanner: one pass over a frame that both validates it exactly as json.Valid does
// and picks out the top-level members a JSON-RPC frame may carry, without building a map or
// copying anything. It runs on every frame, so it is written by hand; FuzzScanMatchesValid and
// FuzzDecodeMatchesReference hold it to encoding/json's behaviour.

// envelope holds the members a frame may carry, all raw so that absent (nil) and null
// ("null") stay distinguishable and nothing is reinterpreted. The slices alias the scanned
// frame; decode copies what it keeps.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// scanResult classifies a frame.
type scanResult uint8

const (
	scanInvalid   scanResult = iota // not valid JSON (json.Valid would say false)
	scanNotObject                   // valid JSON whose top-level value is not an object
	scanObject                      // a valid object; the envelope holds its members
)

// maxNestingDepth is encoding/json's limit on nested arrays and objects: json.Valid rejects
// the 10001st level, so the scanner does too.
const maxNestingDepth = 10000

// strPlain marks the bytes that may appear in a JSON string without ending it or starting an
// escape: anything but '"', '\\' and control characters. UTF-8 is not checked, as json.Valid
// does not check it either.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanEnvelope validates b and, when it is an object, returns its members by exact,
// case-sensitive name (keys are unescaped first, as a map decode would; a repeated key keeps
// its last value, as a map decode would).
func scanEnvelope(b []byte) (envelope, scanResult) {
	var env envelope
	i := skipSpace(b, 0)
	if i == len(b) {
		return env, scanInvalid
	}
	if b[i] != '{' {
		if i = skipValue(b, i, 0); i < 0 || skipSpace(b, i) != len(b) {
			return env, scanInvalid
		}
		return env, scanNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return env, scanInvalid
			}
			ks := i
			ke, esc := skipString(b, i)
			if ke < 0 {
				return env, scanInvalid
			}
			i = skipSpace(b, ke)
			if i >= len(b) || b[i] != ':' {
				return env, scanInvalid
			}
			vs := skipSpace(b, i+1)
			ve := skipValue(b, vs, 1)
			if ve < 0 {
				return env, scanInvalid
			}
			if dst := env.member(b[ks:ke], esc); dst != nil {
				*dst = b[vs:ve:ve]
			}
			i = skipSpace(b, ve)
			if i >= len(b) {
				return env, scanInvalid
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return env, scanInvalid
			}
			i = skipSpace(b, i+1)
		}
	}
	if skipSpace(b, i) != len(b) {
		return env, scanInvalid
	}
	return env, scanObject
}

// member returns where the value of the member with the quoted key goes, or nil for a member
// JSON-RPC does not define. A key with escapes is unescaped by encoding/json, as the map decode
// this replaces did; it is valid, having been scanned.
func (env *envelope) member(quoted []byte, escaped bool) *json.RawMessage {
	key := quoted[1 : len(quoted)-1]
	if escaped {
		var s string
		if json.Unmarshal(quoted, &s) != nil {
			return nil
		}
		key = []byte(s)
	}
	switch string(key) {
	case "jsonrpc":
		return &env.JSONRPC
	case "id":
		return &env.ID
	case "method":
		return &env.Method
	case "params":
		return &env.Params
	case "result":
		return &env.Result
	case "error":
		return &env.Error
	}
	return nil
}

// skipString returns the index just past the string starting at b[i] (a '"'), or -1 if it is
// not a valid JSON string, and whether it contains an escape.
func skipString(b []byte, i int) (int, bool) {
	esc := false
	i++
	for i < len(b) {
		c := b[i]
		if strPlain[c] {
			i++
			continue
		}
		switch c {
		case '"':
			return i + 1, esc
		case '\\':
			esc = true
			if i+1 >= len(b) {
				return -1, esc
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, esc
				}
				i += 6
			default:
				return -1, esc
			}
		default: // a control character
			return -1, esc
		}
	}
	return -1, esc
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipValue returns the index just past the JSON value starting at b[i] (not whitespace), or
// -1 if there is no valid value there. depth is the number of arrays and objects already open
// around it, for the nesting limit. What follows the value is the caller's to check.
func skipValue(b []byte, i, depth int) int {
	// open records the containers opened inside this value, innermost last: true for an
	// object. The fixed backing keeps ordinary nesting off the heap.
	var openBuf [32]bool
	open := openBuf[:0]
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth+len(open)+1 > maxNestingDepth {
				return -1
			}
			obj := c == '{'
			open = append(open, obj)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == byte(c+2) { // '}' is '{'+2 and ']' is '['+2
				i++
				open = open[:len(open)-1]
				break
			}
			if obj {
				if i = skipKey(b, i); i < 0 {
					return -1
				}
			}
			continue // the first element or member value
		case c == '"':
			if i, _ = skipString(b, i); i < 0 {
				return -1
			}
		case c == '-' || isDigit(c):
			if i = skipNumber(b, i); i < 0 {
				return -1
			}
		case c == 't':
			if i = skipLiteral(b, i, "true"); i < 0 {
				return -1
			}
		case c == 'f':
			if i = skipLiteral(b, i, "false"); i < 0 {
				return -1
			}
		case c == 'n':
			if i = skipLiteral(b, i, "null"); i < 0 {
				return -1
			}
		default:
			return -1
		}
		// A value ended at b[i]: close containers until another value is due.
		for {
			if len(open) == 0 {
				return i
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			obj := open[len(open)-1]
			if c := b[i]; c == ',' {
				i = skipSpace(b, i+1)
				if obj {
					if i = skipKey(b, i); i < 0 {
						return -1
					}
				}
				break
			} else if obj && c == '}' || !obj && c == ']' {
				i++
				open = open[:len(open)-1]
				continue
			}
			return -1
		}
	}
}

// skipKey skips a member's key and colon at b[i] and the whitespace after them.
func skipKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i, _ = skipString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// skipNumber skips the number at b[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
