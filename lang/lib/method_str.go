package lib

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// String methods (LANGUAGE.md §8.4). Lengths, indices and slices count
// Unicode scalar values, never bytes.

func recvStr(c *call) string { return string(c.recv.(value.Str)) }

// strNoArg adapts a str → value function into a no-argument method.
func strNoArg(f func(s string) value.Value) method {
	return func(c *call) (value.Value, error) {
		if err := c.noArgs(); err != nil {
			return nil, err
		}
		return f(recvStr(c)), nil
	}
}

var (
	strLen     = strNoArg(func(s string) value.Value { return value.Int(utf8.RuneCountInString(s)) })
	strIsEmpty = strNoArg(func(s string) value.Value { return value.Bool(s == "") })
	strLines   = strNoArg(func(s string) value.Value { return strList(splitLines(s)) })
	strWords   = strNoArg(func(s string) value.Value { return strList(strings.Fields(s)) })
	strTrim    = strNoArg(func(s string) value.Value { return value.Str(strings.TrimSpace(s)) })
	strUpper   = strNoArg(func(s string) value.Value { return value.Str(strings.ToUpper(s)) })
	strLower   = strNoArg(func(s string) value.Value { return value.Str(strings.ToLower(s)) })
	strChars   = strNoArg(func(s string) value.Value {
		out := make([]value.Value, 0, len(s))
		for _, r := range s {
			out = append(out, value.Str(string(r)))
		}
		return list(out)
	})
	strReverse = strNoArg(func(s string) value.Value {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return value.Str(string(rs))
	})
)

// splitLines splits on \n, strips one \r before each break and drops the
// empty line after a final newline, so "" has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// strArg binds the single required str argument of starts_with,
// ends_with, contains and split.
func strArg(c *call, need string) (string, error) {
	v, err := c.one("s", need)
	if err != nil {
		return "", err
	}
	s, ok := v.(value.Str)
	if !ok {
		return "", typeErr("%s expects a str argument, found %s", c.name, value.TypeName(v))
	}
	return string(s), nil
}

func strPredicate(need string, f func(s, arg string) bool) method {
	return func(c *call) (value.Value, error) {
		a, err := strArg(c, need)
		if err != nil {
			return nil, err
		}
		return value.Bool(f(recvStr(c), a)), nil
	}
}

var (
	strStartsWith = strPredicate("a prefix", strings.HasPrefix)
	strEndsWith   = strPredicate("a suffix", strings.HasSuffix)
	strContains   = strPredicate("a substring", strings.Contains)
)

func strSplit(c *call) (value.Value, error) {
	sep, err := strArg(c, "a separator")
	if err != nil {
		return nil, err
	}
	return strList(strings.Split(recvStr(c), sep)), nil
}

// regexArg accepts a regex, or a str compiled as one.
func regexArg(v value.Value, what string) (*regexp.Regexp, error) {
	switch x := v.(type) {
	case value.Regex:
		if x.Re != nil {
			return x.Re, nil
		}
		return compileRegex(x.Src)
	case value.Str:
		return compileRegex(string(x))
	}
	return nil, typeErr("%s expects a regex, found %s", what, value.TypeName(v))
}

func compileRegex(src string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, diag.New(diag.ArgError, "invalid regex %q: %v", src, err)
	}
	return re, nil
}

// strReplace replaces every occurrence of a str literally, or every match
// of a regex with $1/$name expansion.
func strReplace(c *call) (value.Value, error) {
	a, err := c.params([]string{"pattern", "replacement"}, 0, "")
	if err != nil {
		return nil, err
	}
	if a[0] == nil {
		return nil, argErr("replace requires a pattern")
	}
	if a[1] == nil {
		return nil, argErr("replace requires a replacement")
	}
	rep, ok := a[1].(value.Str)
	if !ok {
		return nil, typeErr("replace expects a str replacement, found %s", value.TypeName(a[1]))
	}
	s := recvStr(c)
	switch p := a[0].(type) {
	case value.Str:
		return value.Str(strings.ReplaceAll(s, string(p), string(rep))), nil
	case value.Regex:
		re, err := regexArg(p, "replace")
		if err != nil {
			return nil, err
		}
		return value.Str(re.ReplaceAllString(s, string(rep))), nil
	}
	return nil, typeErr("replace expects a str or regex pattern, found %s", value.TypeName(a[0]))
}

func strMatches(c *call) (value.Value, error) {
	v, err := c.one("re", "a regex")
	if err != nil {
		return nil, err
	}
	re, err := regexArg(v, c.name)
	if err != nil {
		return nil, err
	}
	ms := re.FindAllString(recvStr(c), -1)
	if ms == nil {
		return list([]value.Value{}), nil
	}
	return strList(ms), nil
}

func strMatch(c *call) (value.Value, error) {
	v, err := c.one("re", "a regex")
	if err != nil {
		return nil, err
	}
	re, err := regexArg(v, c.name)
	if err != nil {
		return nil, err
	}
	s := recvStr(c)
	loc := re.FindStringIndex(s)
	if loc == nil {
		return value.Null{}, nil
	}
	return value.Str(s[loc[0]:loc[1]]), nil
}

func strParseInt(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	s := recvStr(c)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, argErr("cannot parse %s as int", value.RenderInline(value.Str(s)))
	}
	return value.Int(n), nil
}

func strParseFloat(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	s := recvStr(c)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, argErr("cannot parse %s as float", value.RenderInline(value.Str(s)))
	}
	return value.Float(f), nil
}

// strSkipTake slices by characters and returns a str.
func strSkipTake(take bool) method {
	return func(c *call) (value.Value, error) {
		v, err := c.one("n", "a count")
		if err != nil {
			return nil, err
		}
		n, err := count(v)
		if err != nil {
			return nil, err
		}
		s := recvStr(c)
		// Byte offset of the n-th character (or the end).
		off := len(s)
		i := 0
		for b := range s {
			if i == n {
				off = b
				break
			}
			i++
		}
		if take {
			return value.Str(s[:off]), nil
		}
		return value.Str(s[off:]), nil
	}
}
