package lib

import (
	"context"
	"testing"

	"github.com/shoal-sh/shoal/lang/value"
)

func TestUnknownMethodHint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		recv value.Value
		meth string
		want string
	}{
		{"meth-err-length-on-list-suggests-len", Ints(1, 2), "length", "did you mean .len()?"},
		{"meth-err-size-on-list-suggests-len", Ints(1, 2, 3), "size", "did you mean .len()?"},
		{"meth-err-size-on-str-suggests-len", S("abc"), "size", "did you mean .len()?"},
		{"meth-err-to-upper-suggests-upper", S("a"), "to_upper", "did you mean .upper()?"},
		{"meth-err-to-lower-suggests-lower", S("A"), "to_lower", "did you mean .lower()?"},
		{"meth-err-read-str-on-path-suggests-read", value.Path{P: "a.txt"}, "read_str", "did you mean .read()?"},
		{"meth-err-push-on-list-teaches-concat", Ints(1), "push", "shoal values are immutable — build a new list with `list + [item]`"},
		{"push-on-table", Tab(), "push", "shoal values are immutable — build a new list with `list + [item]`"},
		{"meth-err-typo-within-distance-suggests", Ints(3, 1), "sortt", "did you mean .sort()?"},
		{"meth-err-unrelated-name-gets-no-suggestion", Ints(1), "frobnicate", ""},
		{"short-name-distance-one", Ints(1), "mup", "did you mean .map()?"},
		{"distance-must-be-less-than-length", Ints(1), "x", ""},
		{"record-typo", Rec(), "kes", "did you mean .keys()?"},
		{"transposed-short-name-is-too-far", Rec(), "kyes", ""},
		{"task-typo", &value.Task{}, "awiat", "did you mean .await()?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok, err := Method(t.Context(), testEnv{}, c.recv, c.meth, nil, nil); ok || err != nil {
				t.Fatalf("%s should be an unknown method (ok=%v err=%v)", c.meth, ok, err)
			}
			if got := UnknownMethodHint(c.recv, c.meth); got != c.want {
				t.Fatalf("hint = %q, want %q", got, c.want)
			}
		})
	}
	if got := UnknownMethodHint(S("hello"), "substring"); got == "" || !contains(got, ".take(n)") {
		t.Fatalf("meth-err-substring-suggests-take-skip: hint %q", got)
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || indexStr(s, sub) >= 0 }

func indexStr(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestHasMethod(t *testing.T) {
	t.Parallel()
	yes := []struct {
		k value.Kind
		m string
	}{
		{value.KStr, "upper"}, {value.KList, "sum"}, {value.KStr, "len"}, {value.KList, "reverse"},
		{value.KStr, "reverse"}, {value.KList, "is_empty"}, {value.KRange, "map"}, {value.KTable, "where"},
		{value.KStream, "collect"}, {value.KStream, "sum"}, {value.KRecord, "keys"}, {value.KInt, "abs"},
		{value.KBytes, "len"}, {value.KPath, "read"}, {value.KGlob, "map"}, {value.KTask, "await"},
		{value.KDatetime, "json"}, {value.KNull, "tap"},
	}
	for _, c := range yes {
		if !HasMethod(c.k, c.m) {
			t.Errorf("HasMethod(%s, %q) = false", c.k, c.m)
		}
	}
	no := []struct {
		k value.Kind
		m string
	}{
		{value.KRecord, "first"}, {value.KRecord, "map"}, {value.KInt, "len"}, {value.KDatetime, "len"},
		{value.KBytes, "upper"}, {value.KSize, "abs"}, {value.KList, "upper"}, {value.KList, "nope"},
		{value.KStr, "sum"},
	}
	for _, c := range no {
		if HasMethod(c.k, c.m) {
			t.Errorf("HasMethod(%s, %q) = true", c.k, c.m)
		}
	}
}

// TestHostMethodsAreNotAnswered checks that methods the evaluator owns
// (they need the host) are left to it: Method reports ok=false.
func TestHostMethodsAreNotAnswered(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		recv value.Value
		m    string
	}{
		{value.Path{P: "a"}, "read"}, {Ints(1), "tap"}, {Ints(1), "save"}, {S("x"), "feed"},
		{value.Glob{Pattern: "*"}, "map"}, {&value.Task{}, "await"},
	} {
		if _, ok, err := Method(t.Context(), testEnv{}, c.recv, c.m, nil, nil); ok || err != nil {
			t.Errorf("Method(%s, %s) answered (ok=%v err=%v)", value.TypeName(c.recv), c.m, ok, err)
		}
	}
}

// TestFieldFallbackShorthands mirrors field-method-fallback.toml: the
// evaluator calls Method with no arguments when HasMethod says so.
func TestFieldFallbackShorthands(t *testing.T) {
	runCases(t, []mcase{
		{name: "str-upper-no-parens", recv: S("hi"), meth: "upper", want: `"HI"`},
		{name: "sum-as-field", recv: Ints(1, 2, 3), meth: "sum", want: "6"},
		{name: "map-len-shorthand", recv: Strs("aa", "b", "ccc"), meth: "map", args: args(methodFn("len")), want: "[2, 1, 3]"},
		{name: "map-upper-shorthand", recv: Strs("a", "b", "c"), meth: "map", args: args(methodFn("upper")), want: `["A", "B", "C"]`},
		{name: "map-reverse-shorthand-on-strings", recv: Strs("ab", "cd"), meth: "map", args: args(methodFn("reverse")), want: `["ba", "dc"]`},
		{name: "where-predicate-uses-method-fallback", recv: L(L(), Ints(1), L(), Ints(2, 3)), meth: "where", args: args(methodFn("is_empty")), want: "[[], []]"},
		{name: "map-then-sum-is-the-projection-idiom", recv: L(Rec("n", I(1)), Rec("n", I(2))), meth: "map", args: args(field("n")), want: "[1, 2]"},
	})
}

// methodFn is `.name` as a lambda: item => item.name().
func methodFn(name string) *value.Closure {
	return fn(func(a ...value.Value) (value.Value, error) {
		v, _, err := Method(context.Background(), testEnv{}, a[0], name, nil, nil)
		return v, err
	})
}
