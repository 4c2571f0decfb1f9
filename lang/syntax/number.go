package syntax

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// lexNumber scans a numeric, unit or time-of-day literal at i with maximal
// munch (LANGUAGE.md §2.4) and returns its token with the decoded node.
func (p *parser) lexNumber(i int) token {
	src := p.src[:p.end]
	j := i
	// Radix prefixes apply only when a digit of that radix follows, so
	// `0b` alone stays the size literal zero bytes.
	if src[i] == '0' && i+2 < len(src) {
		base := 0
		switch src[i+1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 && digitVal(src[i+2]) < base {
			j = i + 2
			for j < len(src) && (digitVal(src[j]) < base || src[j] == '_') {
				j++
			}
			digits := strings.ReplaceAll(src[i+2:j], "_", "")
			v, err := strconv.ParseUint(digits, base, 64)
			sp := diag.Span{Start: i, End: j}
			if err != nil || v > math.MaxInt64 {
				p.fail(sp, "integer literal out of range", "the largest int is 9223372036854775807")
			}
			p.rejectGluedLetters(j)
			return token{kind: tInt, start: i, end: j, lit: &IntLit{Pos{sp}, int64(v)}}
		}
	}
	for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
		j++
	}
	intEnd := j
	// Time of day: H:MM or HH:MM, optional :SS, optional am/pm.
	if intEnd-i <= 2 && j+2 < len(src) && src[j] == ':' && isDigit(src[j+1]) && isDigit(src[j+2]) {
		return p.lexTime(i, intEnd)
	}
	isFloat := false
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		isFloat = true
		j++
		for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			isFloat = true
			j = k
			for j < len(src) && isDigit(src[j]) {
				j++
			}
		}
	}
	numText := strings.ReplaceAll(src[i:j], "_", "")
	u := j
	for u < len(src) && isIdentChar(src[u]) {
		u++
	}
	sp := diag.Span{Start: i, End: u}
	if u > j {
		unit := src[j:u]
		if unit == "am" || unit == "pm" {
			if isFloat {
				p.fail(sp, "invalid time literal", "")
			}
			return p.lexTime(i, intEnd)
		}
		return p.unitLiteral(sp, numText, unit)
	}
	if isFloat {
		f, err := strconv.ParseFloat(numText, 64)
		if err != nil && !math.IsInf(f, 0) {
			p.fail(sp, "invalid float literal", "")
		}
		return token{kind: tFloat, start: i, end: j, lit: &FloatLit{Pos{sp}, f}}
	}
	v, err := strconv.ParseInt(numText, 10, 64)
	if err != nil {
		p.fail(sp, "integer literal out of range", "the smallest int is written -9223372036854775807 - 1")
	}
	return token{kind: tInt, start: i, end: j, lit: &IntLit{Pos{sp}, v}}
}

// rejectGluedLetters fails when identifier characters follow a literal.
func (p *parser) rejectGluedLetters(j int) {
	u := j
	for u < p.end && isIdentChar(p.src[u]) {
		u++
	}
	if u > j {
		p.fail(diag.Span{Start: j, End: u}, fmt.Sprintf("unknown unit `%s`", p.src[j:u]), "units: b kb mb gb tb kib mib gib tib ns us ms s m h d w")
	}
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func sizeUnit(u string) (uint64, bool) {
	switch u {
	case "b":
		return 1, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	case "kib":
		return 1 << 10, true
	case "mib":
		return 1 << 20, true
	case "gib":
		return 1 << 30, true
	case "tib":
		return 1 << 40, true
	}
	return 0, false
}

func durationUnit(u string) (int64, bool) {
	switch u {
	case "ns":
		return 1, true
	case "us":
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s":
		return 1e9, true
	case "m":
		return 60e9, true
	case "h":
		return 3600e9, true
	case "d":
		return 86400e9, true
	case "w":
		return 7 * 86400e9, true
	}
	return 0, false
}

// unitLiteral scales num by unit, rounding to the nearest unit of storage
// and saturating instead of wrapping (`4000000000w` is the max duration).
func (p *parser) unitLiteral(sp diag.Span, num, unit string) token {
	if n, err := strconv.ParseUint(num, 10, 64); err == nil {
		// Whole numbers, the common case: exact integer arithmetic.
		if m, ok := sizeUnit(unit); ok {
			bytes := uint64(math.MaxUint64)
			if n <= math.MaxUint64/m {
				bytes = n * m
			}
			return token{kind: tSize, start: sp.Start, end: sp.End, lit: &SizeLit{Pos{sp}, bytes}}
		}
		if m, ok := durationUnit(unit); ok {
			ns := int64(math.MaxInt64)
			if n <= uint64(math.MaxInt64/m) {
				ns = int64(n) * m
			}
			return token{kind: tDuration, start: sp.Start, end: sp.End, lit: &DurationLit{Pos{sp}, ns}}
		}
	}
	// Exact rational arithmetic keeps fractional sizes exact beyond 2^53.
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		p.fail(sp, "invalid number literal", "")
	}
	if m, ok := sizeUnit(unit); ok {
		v := roundRat(r.Mul(r, new(big.Rat).SetInt(new(big.Int).SetUint64(m))))
		var bytes uint64 = math.MaxUint64
		if v.IsUint64() {
			bytes = v.Uint64()
		}
		return token{kind: tSize, start: sp.Start, end: sp.End, lit: &SizeLit{Pos{sp}, bytes}}
	}
	if m, ok := durationUnit(unit); ok {
		v := roundRat(r.Mul(r, new(big.Rat).SetInt64(m)))
		var ns int64 = math.MaxInt64
		if v.IsInt64() {
			ns = v.Int64()
		}
		return token{kind: tDuration, start: sp.Start, end: sp.End, lit: &DurationLit{Pos{sp}, ns}}
	}
	lower := strings.ToLower(unit)
	if _, ok := sizeUnit(lower); ok {
		p.fail(sp, fmt.Sprintf("unit `%s` must be lowercase", unit), "write `"+lower+"`")
	}
	if _, ok := durationUnit(lower); ok {
		p.fail(sp, fmt.Sprintf("unit `%s` must be lowercase", unit), "write `"+lower+"`")
	}
	p.fail(sp, fmt.Sprintf("unknown unit `%s`", unit), "units: b kb mb gb tb kib mib gib tib ns us ms s m h d w")
	return token{}
}

// roundRat rounds a non-negative rational to the nearest integer, halves
// away from zero.
func roundRat(r *big.Rat) *big.Int {
	num := new(big.Int).Mul(r.Num(), big.NewInt(2))
	num.Add(num, r.Denom())
	den := new(big.Int).Mul(r.Denom(), big.NewInt(2))
	return num.Quo(num, den)
}

// lexTime scans H[H][:MM[:SS]][am|pm] starting at i; hourEnd ends the hour.
func (p *parser) lexTime(i, hourEnd int) token {
	src := p.src[:p.end]
	j := hourEnd
	h, _ := strconv.Atoi(src[i:hourEnd])
	m, s := 0, 0
	hasMin := false
	if j+2 < len(src) && src[j] == ':' && isDigit(src[j+1]) && isDigit(src[j+2]) {
		m = int(src[j+1]-'0')*10 + int(src[j+2]-'0')
		j += 3
		hasMin = true
		if j+2 < len(src) && src[j] == ':' && isDigit(src[j+1]) && isDigit(src[j+2]) {
			s = int(src[j+1]-'0')*10 + int(src[j+2]-'0')
			j += 3
		}
	}
	u := j
	for u < len(src) && isIdentChar(src[u]) {
		u++
	}
	sp := diag.Span{Start: i, End: u}
	suffix := src[j:u]
	bad := hourEnd-i > 2 || strings.Contains(src[i:hourEnd], "_") || m > 59 || s > 59
	switch suffix {
	case "am", "pm":
		if h < 1 || h > 12 {
			bad = true
		}
		h %= 12
		if suffix == "pm" {
			h += 12
		}
	case "":
		if h > 23 || !hasMin {
			bad = true
		}
	default:
		bad = true
	}
	if bad {
		p.fail(sp, "invalid time literal", "times look like 9:05am, 23:15 or 14:30:05")
	}
	return token{kind: tTime, start: i, end: u, lit: &TimeLit{Pos{sp}, h, m, s}}
}
