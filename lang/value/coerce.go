package value

import (
	"strconv"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
)

// CoerceWord converts a command-form string argument to its parameter's
// declared type (LANGUAGE.md §7.3). typeName is the declared type as
// written ("int", "list<int>", "" when untyped); elem is the element type
// of a list or rest parameter when the caller has already split it off
// (pass "" otherwise). A word that does not fit is an arg_error
// `expected int, found "abc"`; unknown type names keep the word as a str.
func CoerceWord(word, typeName, elem string) (Value, error) {
	if inner, ok := listElem(typeName); ok {
		if elem == "" {
			elem = inner
		}
		v, err := CoerceWord(word, elem, "")
		if err != nil {
			return nil, err
		}
		return &List{Items: []Value{v}}, nil
	}
	if typeName == "list" {
		if elem == "" {
			return &List{Items: []Value{Str(word)}}, nil
		}
		v, err := CoerceWord(word, elem, "")
		if err != nil {
			return nil, err
		}
		return &List{Items: []Value{v}}, nil
	}
	var v Value
	var err error
	switch typeName {
	case "int":
		var i int64
		if i, err = strconv.ParseInt(strings.TrimPrefix(word, "+"), 10, 64); err == nil {
			v = Int(i)
		}
	case "float":
		if isDecimalFloat(word) {
			var f float64
			if f, err = strconv.ParseFloat(word, 64); err == nil {
				v = Float(f)
			}
		} else {
			err = strconv.ErrSyntax
		}
	case "size":
		var s Size
		if s, err = ParseSize(word); err == nil {
			v = s
		}
	case "duration":
		var d Duration
		if d, err = ParseDuration(word, true); err == nil {
			v = d
		}
	case "time":
		var t Time
		if t, err = ParseTimeOfDay(word); err == nil {
			v = t
		}
	case "datetime":
		var d Datetime
		if d, err = ParseDatetime(word); err == nil {
			v = d
		}
	case "bool":
		switch word {
		case "true":
			v = Bool(true)
		case "false":
			v = Bool(false)
		default:
			err = strconv.ErrSyntax
		}
	case "path":
		v = Path{P: word}
	case "glob":
		v = Glob{Pattern: word}
	default:
		v = Str(word)
	}
	if err != nil {
		return nil, diag.New(diag.ArgError, "expected %s, found %s", typeName, RenderInline(Str(word)))
	}
	return v, nil
}

// listElem splits "list<T>" into T.
func listElem(typeName string) (string, bool) {
	if strings.HasPrefix(typeName, "list<") && strings.HasSuffix(typeName, ">") {
		return strings.TrimSpace(typeName[5 : len(typeName)-1]), true
	}
	return "", false
}

// isDecimalFloat accepts what a user types as a number (digits, one
// point, an exponent, a sign) and refuses Go-only spellings such as hex
// floats or "Inf" that ParseFloat would also take.
func isDecimalFloat(s string) bool {
	if s == "" {
		return false
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return digits
}

// ArgvString converts a value to one argv word for an external program
// (LANGUAGE.md §9.3). Collections are not splatted, and a secret never
// reaches argv: both are a type_error.
func ArgvString(v Value) (string, error) {
	switch x := v.(type) {
	case Str:
		return string(x), nil
	case Path:
		return x.P, nil // OS bytes, even when not UTF-8
	case Int:
		return strconv.FormatInt(int64(x), 10), nil
	case Float:
		return string(AppendFloat(nil, float64(x))), nil
	case Size:
		return strconv.FormatUint(uint64(x), 10), nil
	case Duration:
		return strconv.FormatInt(int64(x), 10), nil
	case Bool:
		return strconv.FormatBool(bool(x)), nil
	case *Secret:
		return "", diag.New(diag.TypeError, "secret cannot be placed in argv").
			WithHint("hand a secret over as an env prefix (NAME=value cmd)")
	}
	return "", diag.New(diag.TypeError, "%s cannot be passed as argv", TypeName(v))
}
