package value

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
)

// ToJSON encodes v as JSON (LANGUAGE.md §5.2 "Value → JSON"): compact
// without spaces, or pretty with a two-space indent. Record and table keys
// keep their insertion order. The only failure is lazily stored bytes that
// cannot be loaded.
func ToJSON(v Value, pretty bool) ([]byte, error) {
	e := jsonEncoder{pretty: pretty}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type jsonEncoder struct {
	buf    []byte
	pretty bool
}

func (e *jsonEncoder) newline(depth int) {
	if !e.pretty {
		return
	}
	e.buf = append(e.buf, '\n')
	for i := 0; i < depth; i++ {
		e.buf = append(e.buf, "  "...)
	}
}

func (e *jsonEncoder) key(k string, depth int, first bool) {
	if !first {
		e.buf = append(e.buf, ',')
	}
	e.newline(depth)
	e.buf = AppendJSONString(e.buf, k)
	e.buf = append(e.buf, ':')
	if e.pretty {
		e.buf = append(e.buf, ' ')
	}
}

func (e *jsonEncoder) value(v Value, depth int) error {
	switch x := v.(type) {
	case nil, Null:
		e.buf = append(e.buf, "null"...)
	case Bool:
		e.buf = strconv.AppendBool(e.buf, bool(x))
	case Int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case Float:
		e.buf = AppendJSONFloat(e.buf, float64(x))
	case Str:
		e.buf = AppendJSONString(e.buf, string(x))
	case Path:
		e.buf = AppendJSONString(e.buf, x.P)
	case Glob:
		e.buf = AppendJSONString(e.buf, x.Pattern)
	case Regex:
		e.buf = AppendJSONString(e.buf, x.Src)
	case Time:
		e.buf = AppendJSONString(e.buf, FormatTimeOfDayFull(x))
	case Size:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case Duration:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case Datetime:
		e.buf = AppendJSONString(e.buf, FormatZoned(x.T))
	case *Bytes:
		d, err := x.Content(context.Background())
		if err != nil {
			return err
		}
		e.buf = AppendJSONString(e.buf, string(d))
	case *List:
		return e.array(len(x.Items), func(i int) Value { return x.Items[i] }, depth)
	case Range:
		n := x.Len()
		return e.array(int(min(n, math.MaxInt)), func(i int) Value { return Int(x.At(int64(i))) }, depth)
	case *Table:
		return e.array(len(x.Rows), func(i int) Value { return x.Rows[i] }, depth)
	case *Record:
		if len(x.Vals) == 0 {
			e.buf = append(e.buf, "{}"...)
			return nil
		}
		e.buf = append(e.buf, '{')
		for i, k := range x.Shape.Keys {
			e.key(k, depth+1, i == 0)
			if err := e.value(x.Vals[i], depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.buf = append(e.buf, '}')
	case *Outcome:
		e.buf = append(e.buf, '{')
		e.key("status", depth+1, true)
		if x.Status != nil {
			e.buf = strconv.AppendInt(e.buf, int64(*x.Status), 10)
		} else {
			e.buf = append(e.buf, "null"...)
		}
		e.key("ok", depth+1, false)
		e.buf = strconv.AppendBool(e.buf, x.OK)
		e.key("out", depth+1, false)
		if err := e.value(OutcomeOut(x), depth+1); err != nil {
			return err
		}
		e.key("err", depth+1, false)
		e.buf = AppendJSONString(e.buf, string(x.Stderr))
		e.newline(depth)
		e.buf = append(e.buf, '}')
	case *ErrorVal:
		code, msg := "", ""
		if x.Err != nil {
			code, msg = x.Err.Code, x.Err.Msg
		}
		e.buf = append(e.buf, '{')
		e.key("code", depth+1, true)
		e.buf = AppendJSONString(e.buf, code)
		e.key("msg", depth+1, false)
		e.buf = AppendJSONString(e.buf, msg)
		e.newline(depth)
		e.buf = append(e.buf, '}')
	default:
		// secret(name), closures, commands, tasks, streams: their inline
		// rendering, which never includes a secret's content.
		e.buf = AppendJSONString(e.buf, RenderInline(v))
	}
	return nil
}

func (e *jsonEncoder) array(n int, at func(int) Value, depth int) error {
	if n == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline(depth + 1)
		if err := e.value(at(i), depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf = append(e.buf, ']')
	return nil
}

// AppendJSONFloat appends f the way the original's JSON writer does:
// integral values keep ".0", plain decimals between 1e-5 and 1e16,
// exponent form outside, and null for NaN and infinities (JSON has no
// spelling for them).
func AppendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	ei := bytes.IndexByte(sci, 'e')
	exp, _ := strconv.Atoi(string(sci[ei+1:]))
	if point := exp + 1; point > -5 && point <= 16 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		if bytes.IndexByte(b[start:], '.') < 0 {
			b = append(b, ".0"...)
		}
		return b
	}
	b = append(b, sci[:ei]...)
	b = append(b, 'e')
	return strconv.AppendInt(b, int64(exp), 10)
}

// AppendJSONString appends s as a JSON string. Unlike encoding/json it
// leaves <, > and & alone; invalid UTF-8 becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, `\"`...)
			case c == '\\':
				b = append(b, `\\`...)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c == '\b':
				b = append(b, `\b`...)
			case c == '\f':
				b = append(b, `\f`...)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// FormatZoned renders t as zoned text, the JSON form of a datetime:
// 2026-07-09T14:00:00+00:00[UTC].
func FormatZoned(t time.Time) string {
	b := t.AppendFormat(nil, "2006-01-02T15:04:05.999999999-07:00")
	name := t.Location().String()
	if name == "" || name == "Local" {
		// No IANA name is known: the bracket holds the offset instead.
		name = t.Format("-07:00")
	}
	b = append(b, '[')
	b = append(b, name...)
	return string(append(b, ']'))
}

// FormatTimeOfDayFull renders a time of day as HH:MM:SS, the form codecs
// use (the inline rendering drops zero seconds).
func FormatTimeOfDayFull(t Time) string {
	b := append2(nil, t.H)
	b = append(b, ':')
	b = append2(b, t.M)
	b = append(b, ':')
	b = append2(b, t.S)
	return string(b)
}

// FromJSON decodes one JSON document (LANGUAGE.md §5.2 "JSON → value"):
// integers that fit i64 are ints, other numbers floats; objects are records
// in document order; a non-empty array of only objects is a table whose
// rows share a Shape when their keys agree. Bad input is an arg_error.
func FromJSON(data []byte) (Value, error) {
	d := jsonDecoder{dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	v, err := d.value()
	if err != nil {
		return nil, jsonError(err)
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("trailing data after the JSON value")
		}
		return nil, jsonError(err)
	}
	return v, nil
}

func jsonError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return diag.New(diag.ArgError, "invalid JSON: unexpected end of input")
	}
	if d := diag.As(err); d != nil {
		return d
	}
	return diag.New(diag.ArgError, "invalid JSON: %v", err)
}

type jsonDecoder struct {
	dec   *json.Decoder
	depth int
}

// maxJSONDepth bounds nesting: the decoder recurses per level, and a
// document of a million '[' must be an arg_error, not a stack overflow.
const maxJSONDepth = 10000

func (d *jsonDecoder) enter() error {
	d.depth++
	if d.depth > maxJSONDepth {
		return diag.New(diag.ArgError, "invalid JSON: nesting deeper than %d levels", maxJSONDepth)
	}
	return nil
}

func (d *jsonDecoder) value() (Value, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	return d.fromToken(tok)
}

func (d *jsonDecoder) fromToken(tok json.Token) (Value, error) {
	switch t := tok.(type) {
	case nil:
		return Null{}, nil
	case bool:
		return Bool(t), nil
	case string:
		return Str(t), nil
	case json.Number:
		return NumberFromText(string(t))
	case json.Delim:
		switch t {
		case '{':
			return d.object(nil)
		case '[':
			return d.array()
		}
	}
	return nil, errors.New("unexpected token")
}

// NumberFromText converts JSON/YAML/TOML number text: an int when it is
// an integer that fits in i64, otherwise a float.
func NumberFromText(s string) (Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, diag.New(diag.ArgError, "invalid number %q", s)
	}
	if math.IsInf(f, 0) {
		return nil, diag.New(diag.ArgError, "number out of range: %s", s)
	}
	return Float(f), nil
}

// object reads the members of an object whose '{' was consumed. When
// prev is given and the keys match it exactly, the record shares prev.
func (d *jsonDecoder) object(prev *Shape) (*Record, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	var keys []string
	var vals []Value
	var index map[string]int // only for wide objects, to stay linear
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key must be a string")
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		// A repeated key keeps its first position and its last value.
		i := -1
		if index != nil {
			if j, ok := index[k]; ok {
				i = j
			}
		} else {
			i = indexOf(keys, k)
		}
		if i >= 0 {
			vals[i] = v
			continue
		}
		if index == nil && len(keys) >= 16 {
			index = make(map[string]int, 2*len(keys))
			for j, key := range keys {
				index[key] = j
			}
		}
		if index != nil {
			index[k] = len(keys)
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return nil, err
	}
	if prev != nil && sameKeys(prev.Keys, keys) {
		return &Record{Shape: prev, Vals: vals}, nil
	}
	return NewRecord(keys, vals), nil
}

func (d *jsonDecoder) array() (Value, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	var items []Value
	allRecords := true
	var shape *Shape
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		var v Value
		if tok == json.Delim('{') {
			r, err := d.object(shape)
			if err != nil {
				return nil, err
			}
			shape = r.Shape
			v = r
		} else {
			allRecords = false
			if v, err = d.fromToken(tok); err != nil {
				return nil, err
			}
		}
		items = append(items, v)
	}
	if _, err := d.dec.Token(); err != nil { // ']'
		return nil, err
	}
	if len(items) > 0 && allRecords {
		rows := make([]*Record, len(items))
		for i, it := range items {
			rows[i] = it.(*Record)
		}
		return &Table{Rows: rows}, nil
	}
	if items == nil {
		items = []Value{}
	}
	return &List{Items: items}, nil
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func sameKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
