package value

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

func intp(i int) *int { return &i }

// tenth is not a constant, so 0.1+0.2 is not folded exactly at compile time.
func tenth() float64 { return 0.1 }

func TestRenderInline(t *testing.T) {
	t.Parallel()
	utc := func(s string) Datetime {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return Datetime{T: tm}
	}
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"null", Null{}, "null"},
		{"nil", nil, "null"},
		{"true", Bool(true), "true"},
		{"false", Bool(false), "false"},
		{"int neg", Int(-7), "-7"},
		{"int max", Int(math.MaxInt64), "9223372036854775807"},
		{"int min", Int(math.MinInt64), "-9223372036854775808"},
		{"float half", Float(2.5), "2.5"},
		{"float integral", Float(4), "4"},
		{"float 1e9", Float(1e9), "1000000000"},
		{"float tenths", Float(tenth() + 2*tenth()), "0.30000000000000004"},
		{"float third", Float(10.0 / 3), "3.3333333333333335"},
		{"float tiny", Float(1e-7), "0.0000001"},
		{"nan", Float(math.NaN()), "nan"},
		{"inf", Float(math.Inf(1)), "inf"},
		{"-inf", Float(math.Inf(-1)), "-inf"},
		{"str escapes", Str("a\"b\\c\nd\te\rf\x00g"), `"a\"b\\c\nd\te\rf\0g"`},
		{"str unicode", Str("🦀"), `"🦀"`},
		{"str empty", Str(""), `""`},
		{"path plain", Path{"a.txt"}, "a.txt"},
		{"path space", Path{"my file.txt"}, `"my file.txt"`},
		{"path quote not escaped", Path{`a "b" c`}, `"a "b" c"`},
		{"path invalid utf8", Path{"a\xffb"}, "a\uFFFDb"},
		{"glob", Glob{Pattern: "*.rs"}, "*.rs"},
		{"regex", Regex{Src: `\d+`}, `re"\d+"`},
		{"size 0", Size(0), "0b"},
		{"size 237", Size(237), "237b"},
		{"size 999", Size(999), "999b"},
		{"size 1000", Size(1000), "1kb"},
		{"size 1020", Size(1020), "1.02kb"},
		{"size 1kib", Size(1024), "1.02kb"},
		{"size 4kib", Size(4096), "4.1kb"},
		{"size 1.5mb", Size(1_500_000), "1.5mb"},
		{"size 4mib", Size(4 << 20), "4.19mb"},
		{"size 10kb/3", Size(3333), "3.33kb"},
		{"size 1500mb", Size(1_500_000_000), "1.5gb"},
		{"size tib", Size(1099511627776), "1.1tb"},
		{"size rounds up a unit", Size(999_999), "1mb"},
		{"size max", Size(math.MaxUint64), "18446744.07tb"},
		{"dur 0", Duration(0), "0s"},
		{"dur 250ms", Duration(250 * time.Millisecond), "250ms"},
		{"dur 1m30s", Duration(90 * time.Second), "1m30s"},
		{"dur 30d", Duration(30 * 24 * time.Hour), "4w2d"},
		{"dur 90000s", Duration(90000 * time.Second), "1d1h"},
		{"dur 1.5s", Duration(1500 * time.Millisecond), "1s500ms"},
		{"dur -5s", Duration(-5 * time.Second), "-5s"},
		{"dur 1ms500us", Duration(1500 * time.Microsecond), "1ms500us"},
		{"dur ns", Duration(1001), "1us1ns"},
		{"dur min", Duration(math.MinInt64), "-15250w1d23h47m16s854ms775us808ns"},
		{"datetime", utc("2026-07-09T14:00:00Z"), "2026-07-09T14:00:00Z"},
		{"datetime offset to utc", utc("2026-07-09T14:00:00+01:00"), "2026-07-09T13:00:00Z"},
		{"datetime fraction trimmed", utc("2026-07-09T14:00:00.250Z"), "2026-07-09T14:00:00.25Z"},
		{"time", Time{9, 5, 0}, "09:05"},
		{"time seconds", Time{22, 30, 15}, "22:30:15"},
		{"time midnight", Time{}, "00:00"},
		{"bytes", &Bytes{Data: []byte("hi")}, "bytes(2b)"},
		{"bytes lazy", &Bytes{Ref: "val:blake3:ab12", Len: 2048}, "bytes(2.05kb val:blake3:ab12)"},
		{"list nested", &List{Items: []Value{Int(1), &List{Items: []Value{Int(2), Str("a")}}}}, `[1, [2, "a"]]`},
		{"list empty", &List{}, "[]"},
		{"table", &Table{Rows: []*Record{NewRecord([]string{"a"}, []Value{Int(1)})}}, "[{a: 1}]"},
		{"record", NewRecord([]string{"a", "content-type"}, []Value{Int(1), Str("x")}), `{a: 1, "content-type": "x"}`},
		{"record empty", NewRecord(nil, nil), "{}"},
		{"record digit key", NewRecord([]string{"1a", "_b2"}, []Value{Null{}, Null{}}), `{"1a": null, _b2: null}`},
		{"range", Range{Start: 1, End: 4}, "1..4"},
		{"range inclusive", Range{Start: 2, End: 7, Inclusive: true}, "2..=7"},
		{"stream", &Stream{Label: "value"}, "stream<value>"},
		{"error", &ErrorVal{Err: diag.New(diag.DivZero, "division by zero")}, "error(div_zero: division by zero)"},
		{"outcome", &Outcome{Status: intp(0), OK: true}, "outcome(status: 0, ok: true)"},
		{"outcome no status", &Outcome{}, "outcome(status: -1, ok: false)"},
		{"outcome signal", &Outcome{Signal: "SIGTERM"}, "outcome(signal: SIGTERM, ok: false)"},
		{"task", &Task{ID: 3}, "task(3)"},
		{"fn", &Closure{Name: "f", Params: []string{"a", "b"}, Rest: "rest"}, "fn f(a, b, ...rest)"},
		{"fn only rest", &Closure{Name: "g", Rest: "xs"}, "fn g(...xs)"},
		{"closure", &Closure{Params: []string{"a", "b"}}, "closure(a, b)"},
		{"closure no params", &Closure{}, "closure()"},
		{"command", &Command{Head: "git"}, "command(git)"},
		{"secret", &Secret{Name: "tok", Content: []byte("hunter2")}, "secret(tok)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := RenderInline(tc.v); got != tc.want {
				t.Errorf("RenderInline = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    Value
		want string
	}{
		{Str("a b"), "a b"},
		{Path{"my file"}, "my file"},
		{Null{}, ""},
		{nil, ""},
		{Int(3), "3"},
		{&List{Items: []Value{Str("x")}}, `["x"]`},
		{Duration(time.Second), "1s"},
	}
	for _, tc := range tests {
		if got := Display(tc.v); got != tc.want {
			t.Errorf("Display(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func FuzzRenderInline(f *testing.F) {
	f.Add("a\x00b", 1.5, int64(-3), uint64(1024))
	f.Add("", math.NaN(), int64(math.MinInt64), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, s string, fl float64, i int64, u uint64) {
		vals := []Value{Str(s), Path{s}, Float(fl), Int(i), Size(u), Duration(i),
			NewRecord([]string{s}, []Value{Str(s)}), Datetime{T: time.Unix(i%1e11, 0)}}
		for _, v := range vals {
			_ = RenderInline(v) // must not panic
		}
		q := RenderInline(Str(s))
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			t.Errorf("string rendering %q is not quoted", q)
		}
		if !math.IsNaN(fl) && !math.IsInf(fl, 0) {
			back, err := strconv.ParseFloat(RenderInline(Float(fl)), 64)
			if err != nil || back != fl {
				t.Errorf("float %v renders as %q, which reads back as %v (%v)", fl, RenderInline(Float(fl)), back, err)
			}
		}
	})
}

func BenchmarkRenderInline(b *testing.B) {
	row := NewRecord([]string{"id", "name", "size"}, []Value{Int(42), Str("file-42.txt"), Size(523_456)})
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = RenderInline(row)
		}
	})
	b.Run("int", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = RenderInline(Int(123456))
		}
	})
	b.Run("size", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = AppendInline(buf[:0], Size(523_456))
		}
	})
}
