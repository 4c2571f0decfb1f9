package value

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The parsers here serve unit literals (the lexer has already checked
// that units are lowercase), word coercion (§7.3) and t"…" literals
// (§18). Their errors are plain Go errors: each caller wraps them into its
// own diagnostic (a parse error, an arg_error naming the word, …).

// ParseSize parses a size such as 512b, 4kb, 2.5mb or 1kib. Units are
// case-insensitive (coercion accepts 4KB); a bare integer is a byte count.
// Fractional values round to the nearest byte and huge ones saturate.
func ParseSize(s string) (Size, error) {
	num, unit := splitNumber(s)
	if num == "" {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	var mult float64
	switch strings.ToLower(unit) {
	case "", "b":
		mult = 1
	case "kb":
		mult = 1e3
	case "mb":
		mult = 1e6
	case "gb":
		mult = 1e9
	case "tb":
		mult = 1e12
	case "kib":
		mult = 1 << 10
	case "mib":
		mult = 1 << 20
	case "gib":
		mult = 1 << 30
	case "tib":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("unknown size unit %q", unit)
	}
	if !strings.ContainsAny(num, ".eE") {
		// Integers are exact even past 2^53.
		n, err := strconv.ParseUint(num, 10, 64)
		if err == nil {
			hi, lo := mulU64(n, uint64(mult))
			if hi {
				return math.MaxUint64, nil
			}
			return Size(lo), nil
		}
		if !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("invalid size %q", s)
		}
		return math.MaxUint64, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return Size(saturateU64(math.Round(f * mult))), nil
}

func mulU64(a, b uint64) (overflow bool, r uint64) {
	if a != 0 && b > math.MaxUint64/a {
		return true, 0
	}
	return false, a * b
}

func saturateU64(f float64) uint64 {
	switch {
	case f <= 0 || math.IsNaN(f):
		return 0
	case f >= 1<<64:
		return math.MaxUint64
	}
	return uint64(f)
}

func saturateI64(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 1<<63:
		return math.MaxInt64
	case f <= -(1 << 63):
		return math.MinInt64
	}
	return int64(f)
}

// splitNumber splits a leading unsigned decimal (digits, optional
// fraction, '_' separators dropped) from the rest.
func splitNumber(s string) (num, rest string) {
	i, dot := 0, false
	var b strings.Builder
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '_' && i > 0:
		case c == '.' && !dot && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			dot = true
			b.WriteByte(c)
		default:
			return b.String(), s[i:]
		}
	}
	return b.String(), ""
}

// durationUnit is the length in nanoseconds of a duration unit, or 0.
func durationUnit(u string) float64 {
	switch u {
	case "ns":
		return 1
	case "us":
		return 1e3
	case "ms":
		return 1e6
	case "s":
		return 1e9
	case "m":
		return 60e9
	case "h":
		return 3600e9
	case "d":
		return 86400e9
	case "w":
		return 604800e9
	}
	return 0
}

// ParseDuration parses 250ms, 1.5h, compound 1m30s and a leading '-'.
// When bareSeconds is set a bare integer means seconds (word coercion:
// `5` → 5s). Results beyond the i64 range saturate, as the literals do.
func ParseDuration(s string, bareSeconds bool) (Duration, error) {
	body, neg := s, false
	if strings.HasPrefix(body, "-") {
		body, neg = body[1:], true
	} else if strings.HasPrefix(body, "+") {
		body = body[1:]
	}
	if body == "" {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	if bareSeconds {
		if n, err := strconv.ParseInt(body, 10, 64); err == nil {
			p, ok := mulInt64(n, 1e9)
			if !ok {
				p = math.MaxInt64
			}
			if neg {
				p = -p
			}
			return Duration(p), nil
		}
	}
	var total float64
	var exact int64 // exact sum while no segment has a fraction
	fractional := false
	for body != "" {
		num, rest := splitNumber(body)
		if num == "" {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		unit := durationUnit(rest[:j])
		if unit == 0 {
			if j == 0 {
				return 0, fmt.Errorf("duration %q needs a unit", s)
			}
			return 0, fmt.Errorf("unknown duration unit %q", rest[:j])
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		total += f * unit
		if strings.Contains(num, ".") {
			fractional = true
		} else if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			p, ok := mulInt64(n, int64(unit))
			if ok && exact+p >= exact {
				exact += p
			} else {
				fractional = true // saturating float path decides
			}
		}
		body = rest[j:]
	}
	if !fractional {
		if neg {
			return Duration(-exact), nil
		}
		return Duration(exact), nil
	}
	return Duration(saturateI64(math.Round(sign(neg) * total))), nil
}

func sign(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// ParseTimeOfDay parses 9:05am, 10:00AM, 23:15, 14:30:05 and 7:05:30pm.
// With am/pm the hour is 1–12 (12am is 00); without, 0–23.
func ParseTimeOfDay(s string) (Time, error) {
	bad := fmt.Errorf("invalid time %q", s)
	body := s
	ampm := ""
	if len(body) > 2 {
		switch strings.ToLower(body[len(body)-2:]) {
		case "am", "pm":
			ampm = strings.ToLower(body[len(body)-2:])
			body = body[:len(body)-2]
		}
	}
	parts := strings.Split(body, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return Time{}, bad
	}
	if len(parts[0]) < 1 || len(parts[0]) > 2 {
		return Time{}, bad
	}
	var nums [3]int
	for i, p := range parts {
		if i > 0 && len(p) != 2 {
			return Time{}, bad
		}
		n, ok := digits(p)
		if !ok {
			return Time{}, bad
		}
		nums[i] = n
	}
	h, m, sec := nums[0], nums[1], nums[2]
	if m > 59 || sec > 59 {
		return Time{}, bad
	}
	switch ampm {
	case "":
		if h > 23 {
			return Time{}, bad
		}
	default:
		if h < 1 || h > 12 {
			return Time{}, bad
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	}
	return Time{H: h, M: m, S: sec}, nil
}

// digits parses a non-empty run of ASCII digits (no sign, no '_').
func digits(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// ParseDatetime parses the forms of t"…" literals (LANGUAGE.md §18):
// YYYY-MM-DD (UTC midnight), or YYYY-MM-DDTHH:MM[:SS[.frac]] followed by
// Z or ±HH:MM (no offset means UTC), and an optional [Zone/Name]
// annotation. Without an annotation the instant is held in UTC; with one
// it is held in that zone (and a wall time without offset is read there).
func ParseDatetime(s string) (Datetime, error) {
	bad := func(why string) (Datetime, error) {
		return Datetime{}, fmt.Errorf("invalid datetime %q: %s", s, why)
	}
	body, zone := s, ""
	if strings.HasSuffix(body, "]") {
		i := strings.LastIndexByte(body, '[')
		if i < 0 {
			return bad("unbalanced zone annotation")
		}
		body, zone = body[:i], body[i+1:len(body)-1]
	}
	loc := time.UTC
	if zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil || zone == "Local" {
			return bad("unknown time zone " + zone)
		}
		loc = l
	}
	if len(body) < 10 || body[4] != '-' || body[7] != '-' {
		return bad("expected YYYY-MM-DD")
	}
	year, ok1 := digits(body[0:4])
	month, ok2 := digits(body[5:7])
	day, ok3 := digits(body[8:10])
	if !ok1 || !ok2 || !ok3 {
		return bad("expected YYYY-MM-DD")
	}
	var hour, minute, sec, nsec int
	rest := body[10:]
	hasOffset, offset := false, 0
	if rest != "" {
		if rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ' {
			return bad("expected T after the date")
		}
		rest = rest[1:]
		if len(rest) < 5 || rest[2] != ':' {
			return bad("expected HH:MM")
		}
		var ok1, ok2 bool
		hour, ok1 = digits(rest[0:2])
		minute, ok2 = digits(rest[3:5])
		if !ok1 || !ok2 {
			return bad("expected HH:MM")
		}
		rest = rest[5:]
		if strings.HasPrefix(rest, ":") {
			if len(rest) < 3 {
				return bad("expected seconds")
			}
			var ok bool
			if sec, ok = digits(rest[1:3]); !ok {
				return bad("expected seconds")
			}
			rest = rest[3:]
			if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, ",") {
				j := 1
				for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
					j++
				}
				frac := rest[1:j]
				if frac == "" {
					return bad("expected fraction digits")
				}
				frac = (frac + "000000000")[:9]
				nsec, _ = digits(frac)
				rest = rest[j:]
			}
		}
		switch {
		case rest == "":
		case rest == "Z" || rest == "z":
			hasOffset = true
		case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
			oh, ok1 := digits(rest[1:3])
			om, ok2 := digits(rest[4:6])
			if !ok1 || !ok2 || oh > 23 || om > 59 {
				return bad("invalid offset")
			}
			hasOffset, offset = true, oh*3600+om*60
			if rest[0] == '-' {
				offset = -offset
			}
		default:
			return bad("unexpected " + strconv.Quote(rest))
		}
	}
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return bad("field out of range")
	}
	wallLoc := loc
	if hasOffset {
		wallLoc = time.FixedZone("", offset)
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, wallLoc)
	if t.Day() != day {
		return bad("no such day")
	}
	return Datetime{T: t.In(loc)}, nil
}
