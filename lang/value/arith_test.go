package value

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

func dt(t *testing.T, s string) Datetime {
	t.Helper()
	v, err := ParseDatetime(s)
	if err != nil {
		t.Fatalf("ParseDatetime(%q): %v", s, err)
	}
	return v
}

// checkResult compares a result with either a rendering or an error code
// (and message substring).
func checkResult(t *testing.T, got Value, err error, want, wantErr, wantMsg string) {
	t.Helper()
	if wantErr != "" {
		if code := diag.CodeOf(err); code != wantErr {
			t.Fatalf("got (%v, %v), want error %s", got, err, wantErr)
		}
		if wantMsg != "" && !strings.Contains(err.Error(), wantMsg) {
			t.Fatalf("error %q does not mention %q", err, wantMsg)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error %v", err)
	}
	if r := RenderInline(got); r != want {
		t.Fatalf("got %s, want %s", r, want)
	}
}

func TestBinary(t *testing.T) {
	t.Parallel()
	kb := func(n float64) Size { return Size(n * 1000) }
	sec := func(n float64) Duration { return Duration(n * 1e9) }
	list := func(xs ...Value) *List { return &List{Items: xs} }
	d14 := dt(t, "2026-07-09T14:00Z")
	tests := []struct {
		name    string
		op      string
		a, b    Value
		want    string
		wantErr string
		wantMsg string
	}{
		{"int add", "+", Int(2), Int(3), "5", "", ""},
		{"int add overflow", "+", Int(math.MaxInt64), Int(1), "", diag.Overflow, ""},
		{"int sub min", "-", Int(-math.MaxInt64), Int(1), "-9223372036854775808", "", ""},
		{"int sub overflow", "-", Int(math.MinInt64), Int(1), "", diag.Overflow, ""},
		{"int mul overflow", "*", Int(math.MaxInt64), Int(2), "", diag.Overflow, ""},
		{"int mul min by -1", "*", Int(math.MinInt64), Int(-1), "", diag.Overflow, ""},
		{"int div", "/", Int(8), Int(2), "4", "", ""},
		{"int div trunc", "/", Int(-7), Int(2), "-3", "", ""},
		{"int div neg divisor", "/", Int(5), Int(-2), "-2", "", ""},
		{"int div zero", "/", Int(1), Int(0), "", diag.DivZero, "division by zero"},
		{"int div min by -1", "/", Int(math.MinInt64), Int(-1), "", diag.Overflow, ""},
		{"int rem dividend sign", "%", Int(-7), Int(3), "-1", "", ""},
		{"int rem pos", "%", Int(7), Int(-3), "1", "", ""},
		{"int rem zero", "%", Int(5), Int(0), "", diag.DivZero, ""},
		{"float plus int", "+", Float(0.5), Int(2), "2.5", "", ""},
		{"int minus float", "-", Int(9), Float(0.5), "8.5", "", ""},
		{"int div float", "/", Int(5), Float(2), "2.5", "", ""},
		{"float div int", "/", Float(2), Int(5), "0.4", "", ""},
		{"float div zero", "/", Float(1), Float(0), "inf", "", ""},
		{"float neg div zero", "/", Float(-1), Float(0), "-inf", "", ""},
		{"float zero div zero", "/", Float(0), Float(0), "nan", "", ""},
		{"int rem float", "%", Int(5), Float(2), "1", "", ""},
		{"float rem int", "%", Float(5.5), Int(2), "1.5", "", ""},
		{"str concat", "+", Str("a"), Str("b"), `"ab"`, "", ""},
		{"list concat", "+", list(Int(1)), list(Int(2)), "[1, 2]", "", ""},
		{"size sum", "+", kb(1), kb(1), "2kb", "", ""},
		{"size sum rollover", "+", Size(500), Size(500), "1kb", "", ""},
		{"size sum overflow", "+", Size(math.MaxUint64), Size(1), "", diag.Overflow, "size overflow"},
		{"size diff", "-", kb(2), Size(500), "1.5kb", "", ""},
		{"size diff negative", "-", kb(1), kb(2), "", diag.TypeError, "size cannot go negative"},
		{"size ratio", "/", kb(10), kb(4), "2.5", "", ""},
		{"size ratio mb/kb", "/", kb(1000), kb(1), "1000", "", ""},
		{"size ratio zero", "/", kb(10), Size(0), "", diag.DivZero, ""},
		{"size times int", "*", kb(3), Int(4), "12kb", "", ""},
		{"int times size", "*", Int(4), kb(3), "12kb", "", ""},
		{"size times zero", "*", kb(1), Int(0), "0b", "", ""},
		{"size times negative", "*", kb(10), Int(-1), "", diag.TypeError, "negative"},
		{"size times overflow", "*", Size(math.MaxUint64), Int(2), "", diag.Overflow, "size overflow"},
		{"size div int", "/", kb(10), Int(4), "2.5kb", "", ""},
		{"size div int truncates", "/", kb(10), Int(3), "3.33kb", "", ""},
		{"size div zero", "/", kb(10), Int(0), "", diag.DivZero, ""},
		{"size div negative", "/", kb(10), Int(-1), "", diag.TypeError, "negative"},
		{"size times float", "*", kb(2), Float(1.5), "3kb", "", ""},
		{"float times size", "*", Float(1.5), kb(2), "3kb", "", ""},
		{"size times float overflow", "*", Size(9e18), Float(100), "", diag.Overflow, "size overflow"},
		{"size times nan", "*", Size(9), Float(math.NaN()), "", diag.Overflow, "size overflow"},
		{"size times negative float", "*", Size(1000), Float(-1), "", diag.TypeError, "negative"},
		{"float times size negative", "*", Float(-1), Size(1000), "", diag.TypeError, "negative"},
		{"size div float", "/", kb(10), Float(2), "", diag.TypeError, "cannot apply `/` to size and float"},
		{"size plus int", "+", Size(1), Int(1), "", diag.TypeError, "cannot apply `+` to size and int"},
		{"int plus size", "+", Int(1), Size(1), "", diag.TypeError, ""},
		{"size plus duration", "+", Size(1), sec(1), "", diag.TypeError, ""},
		{"size rem", "%", Size(1), Size(1), "", diag.TypeError, ""},
		{"dur sum", "+", sec(3600), sec(3600), "2h", "", ""},
		{"dur diff", "-", sec(7200), sec(1800), "1h30m", "", ""},
		{"dur sum overflow", "+", Duration(math.MaxInt64), Duration(1), "", diag.Overflow, "duration overflow"},
		{"dur diff overflow", "-", Duration(math.MinInt64), Duration(1), "", diag.Overflow, "duration overflow"},
		{"dur ratio", "/", sec(90), sec(60), "1.5", "", ""},
		{"dur ratio whole", "/", sec(90), sec(30), "3", "", ""},
		{"dur ratio zero", "/", sec(30), Duration(0), "", diag.DivZero, ""},
		{"dur times int", "*", sec(1800), Int(2), "1h", "", ""},
		{"int times dur", "*", Int(2), sec(1800), "1h", "", ""},
		{"dur times int overflow", "*", sec(999999 * 604800), Int(999999), "", diag.Overflow, ""},
		{"dur div int", "/", sec(90), Int(3), "30s", "", ""},
		{"dur div zero", "/", sec(30), Int(0), "", diag.DivZero, ""},
		{"int div dur", "/", Int(3), sec(1), "", diag.TypeError, ""},
		{"dur times float", "*", sec(30), Float(1.5), "45s", "", ""},
		{"float times dur", "*", Float(1.5), sec(30), "45s", "", ""},
		{"dur times negative float", "*", sec(5), Float(-1), "-5s", "", ""},
		{"dur times float overflow", "*", Duration(math.MaxInt64 / 2), Float(1000), "", diag.Overflow, "duration overflow"},
		{"dur plus int", "+", sec(1), Int(1), "", diag.TypeError, ""},
		{"datetime plus dur", "+", d14, sec(86400), "2026-07-10T14:00:00Z", "", ""},
		{"dur plus datetime", "+", sec(3600), d14, "2026-07-09T15:00:00Z", "", ""},
		{"datetime minus dur", "-", d14, sec(3600), "2026-07-09T13:00:00Z", "", ""},
		{"year rollover", "+", dt(t, "2026-12-31T23:00Z"), sec(7200), "2027-01-01T01:00:00Z", "", ""},
		{"datetime overflow", "+", Datetime{T: time.Date(9999, 6, 1, 0, 0, 0, 0, time.UTC)}, Duration(math.MaxInt64), "", diag.Overflow, ""},
		{"dur minus datetime", "-", sec(1), d14, "", diag.TypeError, ""},
		{"datetime diff", "-", d14, dt(t, "2026-07-09T12:30Z"), "1h30m", "", ""},
		{"datetime diff month", "-", dt(t, "2026-03-01T00:00Z"), dt(t, "2026-02-01T00:00Z"), "4w", "", ""},
		{"datetime diff overflow", "-", Datetime{T: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, Datetime{T: time.Date(-9999, 1, 1, 0, 0, 0, 0, time.UTC)}, "", diag.Overflow, ""},
		{"datetime plus datetime", "+", d14, d14, "", diag.TypeError, ""},
		{"datetime times int", "*", d14, Int(2), "", diag.TypeError, ""},
		{"list plus int", "+", list(Int(1)), Int(1), "", diag.TypeError, "cannot apply `+` to list and int"},
		{"bool plus bool", "+", Bool(true), Bool(false), "", diag.TypeError, "cannot apply `+` to bool and bool"},
		{"record plus record", "+", NewRecord(nil, nil), NewRecord(nil, nil), "", diag.TypeError, ""},
		{"str plus int", "+", Str("a"), Int(1), "", diag.TypeError, "cannot apply `+` to str and int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Binary(tc.op, tc.a, tc.b)
			checkResult(t, got, err, tc.want, tc.wantErr, tc.wantMsg)
		})
	}
}

func TestNeg(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v       Value
		want    string
		wantErr string
	}{
		{Int(5), "-5", ""},
		{Int(math.MinInt64), "", diag.Overflow},
		{Float(2.5), "-2.5", ""},
		{Duration(5 * time.Second), "-5s", ""},
		{Duration(math.MinInt64), "", diag.Overflow},
		{Size(5000), "", diag.TypeError},
		{Bool(true), "", diag.TypeError},
		{Str("a"), "", diag.TypeError},
	}
	for _, tc := range tests {
		got, err := Neg(tc.v)
		checkResult(t, got, err, tc.want, tc.wantErr, "")
	}
}

func TestNewRange(t *testing.T) {
	t.Parallel()
	r, err := NewRange(Int(1), Int(4), false)
	checkResult(t, r, err, "1..4", "", "")
	r, err = NewRange(Int(2), Int(7), true)
	checkResult(t, r, err, "2..=7", "", "")
	_, err = NewRange(Int(1), Float(5.5), false)
	checkResult(t, nil, err, "", diag.TypeError, "int")
	if n := (Range{Start: 5, End: 1}).Len(); n != 0 {
		t.Errorf("(5..1).len() = %d, want 0", n)
	}
	if n := (Range{Start: 1, End: 5, Inclusive: true}).Len(); n != 5 {
		t.Errorf("(1..=5).len() = %d, want 5", n)
	}
	if n := (Range{Start: math.MinInt64, End: math.MaxInt64, Inclusive: true}).Len(); n != math.MaxInt64 {
		t.Errorf("full range len = %d, want saturated", n)
	}
}
