package value

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// RenderInline returns the canonical single-line rendering of v
// (LANGUAGE.md §5.2). The conformance corpus compares against it, so every
// byte here is normative.
func RenderInline(v Value) string {
	// Scalars that are already strings of the right shape skip the buffer.
	switch x := v.(type) {
	case nil, Null:
		return "null"
	case Bool:
		if x {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(int64(x), 10)
	}
	// Most renderings fit in 64 bytes; sizing the buffer once saves the
	// doubling reallocations of a record or list.
	return string(AppendInline(make([]byte, 0, 64), v))
}

// Display returns the text echo and string interpolation use: strings and
// paths raw, null empty, anything else its inline rendering.
func Display(v Value) string {
	switch x := v.(type) {
	case nil, Null:
		return ""
	case Str:
		return string(x)
	case Path:
		return lossy(x.P)
	}
	return RenderInline(v)
}

// AppendInline appends the inline rendering of v to b. Renderers of
// large collections use it to avoid one string per element.
func AppendInline(b []byte, v Value) []byte {
	switch x := v.(type) {
	case nil, Null:
		return append(b, "null"...)
	case Bool:
		return strconv.AppendBool(b, bool(x))
	case Int:
		return strconv.AppendInt(b, int64(x), 10)
	case Float:
		return AppendFloat(b, float64(x))
	case Str:
		return AppendQuoted(b, string(x))
	case Path:
		p := lossy(x.P)
		if containsByte(p, ' ') {
			b = append(b, '"')
			b = append(b, p...)
			return append(b, '"')
		}
		return append(b, p...)
	case Glob:
		return append(b, x.Pattern...)
	case Regex:
		b = append(b, `re"`...)
		b = append(b, x.Src...)
		return append(b, '"')
	case Size:
		return AppendSize(b, uint64(x))
	case Duration:
		return AppendDuration(b, int64(x))
	case Datetime:
		return AppendDatetime(b, x.T)
	case Time:
		return AppendTimeOfDay(b, x)
	case *Bytes:
		b = append(b, "bytes("...)
		b = AppendSize(b, uint64(x.Length()))
		if x.Ref != "" {
			b = append(b, ' ')
			b = append(b, x.Ref...)
		}
		return append(b, ')')
	case *List:
		b = append(b, '[')
		for i, it := range x.Items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendInline(b, it)
		}
		return append(b, ']')
	case *Table:
		b = append(b, '[')
		for i, r := range x.Rows {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendInline(b, r)
		}
		return append(b, ']')
	case *Record:
		b = append(b, '{')
		for i, k := range x.Shape.Keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendKey(b, k)
			b = append(b, ": "...)
			b = AppendInline(b, x.Vals[i])
		}
		return append(b, '}')
	case Range:
		b = strconv.AppendInt(b, x.Start, 10)
		if x.Inclusive {
			b = append(b, "..="...)
		} else {
			b = append(b, ".."...)
		}
		return strconv.AppendInt(b, x.End, 10)
	case *Stream:
		b = append(b, "stream<"...)
		b = append(b, x.Label...)
		return append(b, '>')
	case *ErrorVal:
		b = append(b, "error("...)
		if x.Err != nil {
			b = append(b, x.Err.Code...)
			b = append(b, ": "...)
			b = append(b, x.Err.Msg...)
		}
		return append(b, ')')
	case *Outcome:
		if x.Signal != "" {
			b = append(b, "outcome(signal: "...)
			b = append(b, x.Signal...)
		} else {
			b = append(b, "outcome(status: "...)
			st := int64(-1)
			if x.Status != nil {
				st = int64(*x.Status)
			}
			b = strconv.AppendInt(b, st, 10)
		}
		b = append(b, ", ok: "...)
		b = strconv.AppendBool(b, x.OK)
		return append(b, ')')
	case *Task:
		b = append(b, "task("...)
		b = strconv.AppendInt(b, x.ID, 10)
		return append(b, ')')
	case *Closure:
		if x.Name != "" {
			b = append(b, "fn "...)
			b = append(b, x.Name...)
		} else {
			b = append(b, "closure"...)
		}
		b = append(b, '(')
		for i, p := range x.Params {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, p...)
		}
		if x.Rest != "" {
			if len(x.Params) > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "..."...)
			b = append(b, x.Rest...)
		}
		return append(b, ')')
	case *Command:
		b = append(b, "command("...)
		b = append(b, x.Head...)
		return append(b, ')')
	case *Secret:
		b = append(b, "secret("...)
		b = append(b, x.Name...)
		return append(b, ')')
	}
	// An unknown implementation of Value (a test double, a future kind)
	// still renders as something recognisable rather than panicking.
	return append(b, v.Kind().String()...)
}

// AppendFloat appends the §5.2 float rendering: the shortest decimal that
// round-trips, never in exponent form, with nan/inf spelled out.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// AppendQuoted appends s double-quoted with the six escapes of §5.2; every
// other character (including non-ASCII) is written literally.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\t':
			esc = `\t`
		case '\r':
			esc = `\r`
		case 0:
			esc = `\0`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendKey appends a record key: bare when identifier-shaped, otherwise
// quoted like a string, so a rendered record reads back as a literal.
func AppendKey(b []byte, k string) []byte {
	if IsIdent(k) {
		return append(b, k...)
	}
	return AppendQuoted(b, k)
}

// IsIdent reports whether s matches [A-Za-z_][A-Za-z0-9_]*.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// sizeUnits are the decimal units of the size rendering, largest first.
var sizeUnits = [...]struct {
	name string
	n    uint64
}{{"tb", 1e12}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}}

// FormatSize renders a byte count with the §5.2 size algorithm.
func FormatSize(n uint64) string { return string(AppendSize(nil, n)) }

// AppendSize appends the §5.2 size rendering of n bytes.
func AppendSize(b []byte, n uint64) []byte {
	if n < 1000 {
		b = strconv.AppendUint(b, n, 10)
		return append(b, 'b')
	}
	u := 0
	for n < sizeUnits[u].n {
		u++
	}
	var tmp [32]byte
	digits := strconv.AppendFloat(tmp[:0], float64(n)/float64(sizeUnits[u].n), 'f', 2, 64)
	// 999_999b is 999.999kb, which prints as 1000.00: move up a unit so
	// the number stays below 1000 where a larger unit exists.
	if u > 0 && len(digits) >= 7 { // "1000.00" or longer
		u--
		digits = strconv.AppendFloat(tmp[:0], float64(n)/float64(sizeUnits[u].n), 'f', 2, 64)
	}
	digits = trimFraction(digits)
	b = append(b, digits...)
	return append(b, sizeUnits[u].name...)
}

// trimFraction strips trailing zeros of a fixed-point number, then a
// trailing dot.
func trimFraction(d []byte) []byte {
	if !containsByteSlice(d, '.') {
		return d
	}
	for d[len(d)-1] == '0' {
		d = d[:len(d)-1]
	}
	if d[len(d)-1] == '.' {
		d = d[:len(d)-1]
	}
	return d
}

// durationUnits are the duration rendering's units, largest first.
var durationUnits = [...]struct {
	name string
	n    uint64
}{
	{"w", 7 * 24 * 3600 * 1e9}, {"d", 24 * 3600 * 1e9}, {"h", 3600 * 1e9}, {"m", 60 * 1e9},
	{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1},
}

// FormatDuration renders nanoseconds with the §5.2 duration algorithm.
func FormatDuration(ns int64) string { return string(AppendDuration(nil, ns)) }

// AppendDuration appends the §5.2 duration rendering of ns nanoseconds.
func AppendDuration(b []byte, ns int64) []byte {
	if ns == 0 {
		return append(b, "0s"...)
	}
	// Work on the magnitude as uint64 so the minimum int64 has one too.
	rest := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		rest = -rest
	}
	for _, u := range durationUnits {
		if c := rest / u.n; c > 0 {
			b = strconv.AppendUint(b, c, 10)
			b = append(b, u.name...)
			rest -= c * u.n
		}
	}
	return b
}

// FormatDatetime renders an instant as §5.2 wants it: UTC, RFC 3339 with
// Z, seconds always, fraction only when non-zero and without trailing
// zeros.
func FormatDatetime(t time.Time) string { return string(AppendDatetime(nil, t)) }

// AppendDatetime appends the §5.2 rendering of t.
func AppendDatetime(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, "2006-01-02T15:04:05.999999999Z07:00")
}

// AppendTimeOfDay appends HH:MM, or HH:MM:SS when the seconds are not zero.
func AppendTimeOfDay(b []byte, t Time) []byte {
	b = append2(b, t.H)
	b = append(b, ':')
	b = append2(b, t.M)
	if t.S != 0 {
		b = append(b, ':')
		b = append2(b, t.S)
	}
	return b
}

func append2(b []byte, n int) []byte {
	if n >= 0 && n < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// Length is the byte length of b, including lazily stored bytes whose
// content is not loaded.
func (b *Bytes) Length() int64 {
	if b.Data == nil && b.Ref != "" {
		return b.Len
	}
	return int64(len(b.Data))
}

// lossy returns s with invalid UTF-8 replaced by U+FFFD, without copying
// when s is already valid (the common case).
func lossy(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func containsByteSlice(s []byte, c byte) bool {
	for _, x := range s {
		if x == c {
			return true
		}
	}
	return false
}

// TypeName is v's type_name, as used in error messages ("cannot compare
// int with str"). A nil Value is null.
func TypeName(v Value) string {
	if v == nil {
		return "null"
	}
	return v.Kind().String()
}
