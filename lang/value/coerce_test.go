package value

import (
	"math"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

func TestCoerceWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word, typ, elem string
		want            string
		kind            Kind
		wantErr         string
	}{
		{"hello", "str", "", `"hello"`, KStr, ""},
		{"5", "", "", `"5"`, KStr, ""},
		{"x", "mytype", "", `"x"`, KStr, ""},
		{"2", "int", "", "2", KInt, ""},
		{"-5", "int", "", "-5", KInt, ""},
		{"abc", "int", "", "", 0, `expected int, found "abc"`},
		{"9223372036854775808", "int", "", "", 0, `expected int, found "9223372036854775808"`},
		{"3.5", "float", "", "3.5", KFloat, ""},
		{"0x10", "float", "", "", 0, `expected float, found "0x10"`},
		{"4kb", "size", "", "4kb", KSize, ""},
		{"1.5MB", "size", "", "1.5mb", KSize, ""},
		{"notasize", "size", "", "", 0, `expected size, found "notasize"`},
		{"250ms", "duration", "", "250ms", KDuration, ""},
		{"1m30s", "duration", "", "1m30s", KDuration, ""},
		{"-5s", "duration", "", "-5s", KDuration, ""},
		{"5", "duration", "", "5s", KDuration, ""},
		{"5x", "duration", "", "", 0, `expected duration, found "5x"`},
		{"10:00am", "time", "", "10:00", KTime, ""},
		{"23:15", "time", "", "23:15", KTime, ""},
		{"7:05:30pm", "time", "", "19:05:30", KTime, ""},
		{"25:00", "time", "", "", 0, `expected time, found "25:00"`},
		{"2026-07-09T14:00Z", "datetime", "", "2026-07-09T14:00:00Z", KDatetime, ""},
		{"2026-07-09", "datetime", "", "2026-07-09T00:00:00Z", KDatetime, ""},
		{"yesterday", "datetime", "", "", 0, `expected datetime, found "yesterday"`},
		{"true", "bool", "", "true", KBool, ""},
		{"yes", "bool", "", "", 0, `expected bool, found "yes"`},
		{"a.txt", "path", "", "a.txt", KPath, ""},
		{"*.txt", "glob", "", "*.txt", KGlob, ""},
		{"3", "list<int>", "", "[3]", KList, ""},
		{"3", "list", "int", "[3]", KList, ""},
		{"x", "list<int>", "", "", 0, `expected int, found "x"`},
	}
	for _, tc := range tests {
		v, err := CoerceWord(tc.word, tc.typ, tc.elem)
		if tc.wantErr != "" {
			d := diag.As(err)
			if d == nil || d.Code != diag.ArgError || d.Msg != tc.wantErr {
				t.Errorf("CoerceWord(%q, %q) error = %v, want arg_error %q", tc.word, tc.typ, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("CoerceWord(%q, %q): %v", tc.word, tc.typ, err)
			continue
		}
		if got := RenderInline(v); got != tc.want || v.Kind() != tc.kind {
			t.Errorf("CoerceWord(%q, %q) = %s (%s), want %s (%s)", tc.word, tc.typ, got, v.Kind(), tc.want, tc.kind)
		}
	}
}

func TestParseUnits(t *testing.T) {
	t.Parallel()
	sizes := map[string]Size{"512b": 512, "4kb": 4000, "2.5mb": 2_500_000, "1kib": 1024, "32mib": 32 << 20,
		"1tib": 1 << 40, "1_000b": 1000, "0.5b": 1, "99999999999999999999tb": math.MaxUint64, "7": 7}
	for in, want := range sizes {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "kb", "1xb", "1.5.5kb", "-1kb"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) succeeded", bad)
		}
	}
	durs := map[string]Duration{"5ns": 5, "3us": 3000, "250ms": 250e6, "1.5h": 5400e9, "7d": 7 * 86400e9,
		"1w": 604800e9, "1m30s": 90e9, "-5s": -5e9, "4000000000w": math.MaxInt64, "1.5s": 1500e6}
	for in, want := range durs {
		if got, err := ParseDuration(in, false); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-", "5", "5x", "s", "1m30"} {
		if _, err := ParseDuration(bad, false); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
	times := map[string]Time{"9:05am": {9, 5, 0}, "12am": {}, "12:00am": {0, 0, 0}, "12:30pm": {12, 30, 0},
		"7:05pm": {19, 5, 0}, "14:30:05": {14, 30, 5}, "10:30:15pm": {22, 30, 15}, "10:00AM": {10, 0, 0}}
	for in, want := range times {
		got, err := ParseTimeOfDay(in)
		if in == "12am" {
			if err == nil {
				t.Errorf("ParseTimeOfDay(%q) accepted an hour without minutes", in)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseTimeOfDay(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"13:00pm", "0:00am", "24:00", "10:60", "10:5", "a:bc", "123:00"} {
		if _, err := ParseTimeOfDay(bad); err == nil {
			t.Errorf("ParseTimeOfDay(%q) succeeded", bad)
		}
	}
}

func TestParseDatetime(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, inline, zoned string }{
		{"2026-07-09", "2026-07-09T00:00:00Z", "2026-07-09T00:00:00+00:00[UTC]"},
		{"2026-07-09T14:00Z", "2026-07-09T14:00:00Z", "2026-07-09T14:00:00+00:00[UTC]"},
		{"2026-07-09T14:00:30Z", "2026-07-09T14:00:30Z", ""},
		{"2026-07-09T14:00:30.120Z", "2026-07-09T14:00:30.12Z", "2026-07-09T14:00:30.12+00:00[UTC]"},
		{"2026-07-09T14:00+01:00", "2026-07-09T13:00:00Z", "2026-07-09T13:00:00+00:00[UTC]"},
		{"2026-07-09T14:00-02:30", "2026-07-09T16:30:00Z", ""},
		{"2026-07-09T14:00", "2026-07-09T14:00:00Z", ""},
	}
	for _, tc := range tests {
		d, err := ParseDatetime(tc.in)
		if err != nil {
			t.Errorf("ParseDatetime(%q): %v", tc.in, err)
			continue
		}
		if got := RenderInline(d); got != tc.inline {
			t.Errorf("ParseDatetime(%q) renders %s, want %s", tc.in, got, tc.inline)
		}
		if tc.zoned != "" {
			if got := FormatZoned(d.T); got != tc.zoned {
				t.Errorf("ParseDatetime(%q) zoned %s, want %s", tc.in, got, tc.zoned)
			}
		}
	}
	if d, err := ParseDatetime("2026-07-09T14:00Z[UTC]"); err != nil || FormatZoned(d.T) != "2026-07-09T14:00:00+00:00[UTC]" {
		t.Errorf("zone annotation: %v %v", d, err)
	}
	for _, bad := range []string{"", "2026-7-9", "2026-02-30", "2026-13-01", "2026-07-09T25:00Z", "2026-07-09T14:00Zjunk",
		"2026-07-09X14:00", "2026-07-09T14:00Z[Nowhere/Zone]", "2026-07-09T14:00Z[UTC", "2026-07-09T14:00:00.Z"} {
		if _, err := ParseDatetime(bad); err == nil {
			t.Errorf("ParseDatetime(%q) succeeded", bad)
		}
	}
}

func TestArgvString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    Value
		want string
		msg  string
	}{
		{Str("x y"), "x y", ""},
		{Path{"a\xffb"}, "a\xffb", ""},
		{Int(-3), "-3", ""},
		{Float(2.5), "2.5", ""},
		{Float(3), "3", ""},
		{Size(1000), "1000", ""},
		{Duration(250e6), "250000000", ""},
		{Bool(true), "true", ""},
		{&Secret{Name: "t"}, "", "secret cannot be placed in argv"},
		{&List{Items: []Value{Int(1)}}, "", "list cannot be passed as argv"},
		{rec(), "", "record cannot be passed as argv"},
		{Null{}, "", "null cannot be passed as argv"},
	}
	for _, tc := range tests {
		got, err := ArgvString(tc.v)
		if tc.msg != "" {
			if d := diag.As(err); d == nil || d.Code != diag.TypeError || d.Msg != tc.msg {
				t.Errorf("ArgvString(%s) error = %v, want %q", RenderInline(tc.v), err, tc.msg)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ArgvString(%s) = %q, %v; want %q", RenderInline(tc.v), got, err, tc.want)
		}
	}
}
