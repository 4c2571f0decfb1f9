package value

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

func TestToJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"null", Null{}, "null"},
		{"int", Int(-3), "-3"},
		{"float integral keeps .0", Float(4), "4.0"},
		{"float", Float(2.5), "2.5"},
		{"float large", Float(1e16), "1e16"},
		{"float small", Float(1.5e-7), "1.5e-7"},
		{"float 1e15", Float(1e15), "1000000000000000.0"},
		{"nan", Float(math.NaN()), "null"},
		{"str", Str("hi \"x\" <&>\n\x01"), `"hi \"x\" <&>\n\u0001"`},
		{"path", Path{"a b"}, `"a b"`},
		{"glob", Glob{Pattern: "*.rs"}, `"*.rs"`},
		{"regex", Regex{Src: `\d`}, `"\\d"`},
		{"time", Time{10, 30, 0}, `"10:30:00"`},
		{"size", Size(1500), "1500"},
		{"duration", Duration(250e6), "250000000"},
		{"datetime", Datetime{T: time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC)}, `"2026-07-09T14:00:00+00:00[UTC]"`},
		{"bytes", &Bytes{Data: []byte("ab")}, `"ab"`},
		{"list", &List{Items: []Value{Int(1), Str("a"), Bool(true), Null{}}}, `[1,"a",true,null]`},
		{"range", Range{1, 3, true}, "[1,2,3]"},
		{"record order", rec("b", Int(1), "a", &List{Items: []Value{Int(1), Int(2)}}), `{"b":1,"a":[1,2]}`},
		{"table", &Table{Rows: []*Record{rec("a", Int(1)), rec("a", Int(2))}}, `[{"a":1},{"a":2}]`},
		{"empty", &List{}, "[]"},
		{"empty record", rec(), "{}"},
		{"outcome", &Outcome{Status: intp(0), OK: true, Stdout: []byte("hi\n"), Stderr: []byte("w")}, `{"status":0,"ok":true,"out":"hi","err":"w"}`},
		{"error", &ErrorVal{Err: diag.New(diag.DivZero, "division by zero")}, `{"code":"div_zero","msg":"division by zero"}`},
		{"secret", &Secret{Name: "tok", Content: []byte("hunter2")}, `"secret(tok)"`},
		{"closure", &Closure{Params: []string{"x"}}, `"closure(x)"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToJSON(tc.v, false)
			if err != nil || string(got) != tc.want {
				t.Errorf("ToJSON = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestToJSONPretty(t *testing.T) {
	t.Parallel()
	v := rec("a", Int(1), "b", &List{Items: []Value{Int(1), rec()}}, "c", &List{})
	got, err := ToJSON(v, true)
	want := "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    {}\n  ],\n  \"c\": []\n}"
	if err != nil || string(got) != want {
		t.Errorf("pretty = %q, want %q", got, want)
	}
}

func TestFromJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		kind     Kind
	}{
		{"null", "null", KNull},
		{"[[1,2],[3,4]]", "[[1, 2], [3, 4]]", KList},
		{`{"b": 1, "a": {"c": 2}}`, "{b: 1, a: {c: 2}}", KRecord},
		{`"hi"`, `"hi"`, KStr},
		{"3.5", "3.5", KFloat},
		{"3.0", "3", KFloat},
		{"9223372036854775807", "9223372036854775807", KInt},
		{"9223372036854775808", "9223372036854776000", KFloat},
		{"-12", "-12", KInt},
		{"[true, false, null]", "[true, false, null]", KList},
		{`[{"a":1},{"a":2}]`, "[{a: 1}, {a: 2}]", KTable},
		{`[{"a":1},2]`, "[{a: 1}, 2]", KList},
		{"[]", "[]", KList},
		{`{"a":1,"a":2,"b":3}`, "{a: 2, b: 3}", KRecord},
		{`{"content-type":"x"}`, `{"content-type": "x"}`, KRecord},
	}
	for _, tc := range tests {
		v, err := FromJSON([]byte(tc.in))
		if err != nil {
			t.Errorf("FromJSON(%s): %v", tc.in, err)
			continue
		}
		if got := RenderInline(v); got != tc.want || v.Kind() != tc.kind {
			t.Errorf("FromJSON(%s) = %s (%s), want %s (%s)", tc.in, got, v.Kind(), tc.want, tc.kind)
		}
	}
	for _, bad := range []string{"{not valid", "", "[1,", "1 2", `{"a"}`, "nul", "1e999"} {
		if _, err := FromJSON([]byte(bad)); diag.CodeOf(err) != diag.ArgError {
			t.Errorf("FromJSON(%q) error = %v, want arg_error", bad, err)
		}
	}
}

func TestFromJSONDeepNesting(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 200_000)
	if _, err := FromJSON([]byte(deep)); diag.CodeOf(err) != diag.ArgError {
		t.Errorf("deep nesting error = %v, want arg_error", err)
	}
	ok := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if _, err := FromJSON([]byte(ok)); err != nil {
		t.Errorf("100 levels: %v", err)
	}
}

func TestFromJSONTableSharesShape(t *testing.T) {
	t.Parallel()
	v, err := FromJSON([]byte(`[{"id":1,"n":"a"},{"id":2,"n":"b"},{"n":"c","id":3}]`))
	if err != nil {
		t.Fatal(err)
	}
	tab := v.(*Table)
	if tab.Rows[0].Shape != tab.Rows[1].Shape {
		t.Error("rows with the same keys do not share a shape")
	}
	if tab.Rows[1].Shape == tab.Rows[2].Shape {
		t.Error("rows with different key order share a shape")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	v := rec("name", Str("shoal"), "tags", &List{Items: []Value{Int(1), Float(2.5), Null{}}},
		"rows", &Table{Rows: []*Record{rec("z", Int(1), "a", Bool(true))}})
	for _, pretty := range []bool{false, true} {
		data, err := ToJSON(v, pretty)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		if RenderInline(back) != RenderInline(v) {
			t.Errorf("round trip (pretty=%v) = %s, want %s", pretty, RenderInline(back), RenderInline(v))
		}
	}
}

func TestOrdered(t *testing.T) {
	t.Parallel()
	v, err := FromOrdered(Ordered{{"b", int64(1)}, {"a", []any{Ordered{{"x", 1.5}}, Ordered{{"x", "s"}}}}, {"m", map[string]any{"z": nil, "y": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RenderInline(v), `{b: 1, a: [{x: 1.5}, {x: "s"}], m: {y: true, z: null}}`; got != want {
		t.Errorf("FromOrdered = %s, want %s", got, want)
	}
	if r := v.(*Record); r.Vals[1].Kind() != KTable {
		t.Errorf("array of objects became %s, want table", r.Vals[1].Kind())
	}
	if _, err := FromOrdered(struct{}{}); diag.CodeOf(err) != diag.ArgError {
		t.Errorf("unsupported type error = %v", err)
	}
	back, err := ToOrdered(v)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := back.(Ordered)
	if !ok || len(o) != 3 || o[0].Key != "b" || o[0].Val != int64(1) {
		t.Errorf("ToOrdered = %#v", back)
	}
}

func TestOutcomeOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stdout, want string
	}{
		{"hi\n", `"hi"`},
		{"hi\n\n", `"hi\n"`},
		{`{"n": 4}`, "{n: 4}"},
		{"  [1,2]\n", "[1, 2]"},
		{"{}", "{}"},
		{"5\n", `"5"`},
		{"{broken", `"{broken"`},
		{"", `""`},
		{"a\xffb", "\"a\uFFFDb\""},
	}
	for _, tc := range tests {
		got := RenderInline(OutcomeOut(&Outcome{Stdout: []byte(tc.stdout)}))
		if got != tc.want {
			t.Errorf("OutcomeOut(%q) = %s, want %s", tc.stdout, got, tc.want)
		}
	}
	if got := OutcomeOut(&Outcome{Stdout: []byte("x"), Out: Int(7)}); got != Int(7) {
		t.Errorf("builtin payload ignored: %v", got)
	}
	if SignalName(15) != "SIGTERM" || SignalName(11) != "SIGSEGV" || SignalName(99) != "SIG99" {
		t.Error("SignalName")
	}
}

func FuzzFromJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `[{"a":1},{"a":2}]`, `1e400`, `"\ud800"`, `[[[[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := FromJSON(data)
		if err != nil {
			if diag.CodeOf(err) != diag.ArgError {
				t.Fatalf("error %v is not an arg_error", err)
			}
			return
		}
		// Whatever parsed must encode and parse back to an equal value.
		out, err := ToJSON(v, false)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromJSON(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		if eq, _ := Equal(v, back); !eq {
			t.Fatalf("round trip changed %s into %s", RenderInline(v), RenderInline(back))
		}
	})
}
