package value

import (
	"math"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

func rec(kv ...any) *Record {
	var b RecordBuilder
	for i := 0; i < len(kv); i += 2 {
		b.Add(kv[i].(string), kv[i+1].(Value))
	}
	return b.Record()
}

func TestEqual(t *testing.T) {
	t.Parallel()
	out := &Outcome{Status: intp(0), OK: true}
	st := NewStream("value", nil)
	cl := &Closure{Name: "f"}
	paris := time.FixedZone("", 3600)
	tests := []struct {
		name string
		a, b Value
		want bool
	}{
		{"int int", Int(5), Int(5), true},
		{"int float", Int(5), Float(5), true},
		{"float int", Float(5), Int(5), true},
		{"int float frac", Int(5), Float(5.5), false},
		{"big int vs float", Int(1<<53 + 1), Float(1 << 53), false},
		{"nan", Float(math.NaN()), Float(math.NaN()), false},
		{"int str", Int(1), Str("1"), false},
		{"bool int", Bool(true), Int(1), false},
		{"int size", Int(5), Size(5000), false},
		{"null null", Null{}, nil, true},
		{"null false", Null{}, Bool(false), false},
		{"path str", Path{"a.txt"}, Str("a.txt"), true},
		{"str path", Str("a.txt"), Path{"a.txt"}, true},
		{"path path", Path{"a.txt"}, Path{"b.txt"}, false},
		{"datetime by instant", Datetime{T: time.Date(2026, 7, 9, 14, 0, 0, 0, paris)}, Datetime{T: time.Date(2026, 7, 9, 13, 0, 0, 0, time.UTC)}, true},
		{"datetime vs str", Datetime{T: time.Date(2026, 7, 9, 0, 0, 0, 0, time.UTC)}, Str("2026-07-09"), false},
		{"duration units", Duration(5e9), Duration(5000e6), true},
		{"size", Size(1000), Size(1024), false},
		{"time", Time{10, 0, 0}, Time{10, 0, 0}, true},
		{"glob", Glob{Pattern: "*.rs", Cwd: "/a"}, Glob{Pattern: "*.rs", Cwd: "/b"}, true},
		{"regex", Regex{Src: "a"}, Regex{Src: "a"}, true},
		{"bytes", &Bytes{Data: []byte("x")}, &Bytes{Data: []byte("x")}, true},
		{"bytes refs", &Bytes{Ref: "val:blake3:1", Len: 3}, &Bytes{Ref: "val:blake3:2", Len: 3}, false},
		{"list", &List{Items: []Value{Int(1), Str("a")}}, &List{Items: []Value{Float(1), Str("a")}}, true},
		{"list len", &List{Items: []Value{Int(1)}}, &List{}, false},
		{"record order ignored", rec("a", Int(1), "b", Int(2)), rec("b", Int(2), "a", Int(1)), true},
		{"record value", rec("a", Int(1)), rec("a", Int(2)), false},
		{"record keys", rec("a", Int(1)), rec("b", Int(1)), false},
		{"table vs list", &Table{Rows: []*Record{rec("a", Int(1))}}, &List{Items: []Value{rec("a", Int(1))}}, true},
		{"list vs table", &List{Items: []Value{rec("a", Int(1))}}, &Table{Rows: []*Record{rec("a", Int(2))}}, false},
		{"range", Range{1, 3, false}, Range{1, 3, false}, true},
		{"range incl", Range{1, 3, false}, Range{1, 3, true}, false},
		{"error", &ErrorVal{Err: diag.New("x", "m")}, &ErrorVal{Err: diag.New("x", "m")}, true},
		{"error msg", &ErrorVal{Err: diag.New("x", "m")}, &ErrorVal{Err: diag.New("x", "n")}, false},
		{"outcome identity", out, out, true},
		{"outcome other", out, &Outcome{Status: intp(0), OK: true}, false},
		{"stream identity", st, st, true},
		{"closure identity", cl, cl, true},
		{"closure other", cl, &Closure{Name: "f"}, false},
		{"command", &Command{Head: "git"}, &Command{Head: "git"}, true},
		{"secret", &Secret{Name: "a", Content: []byte("x")}, &Secret{Name: "a", Content: []byte("y")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Equal(tc.a, tc.b)
			if err != nil || got != tc.want {
				t.Errorf("Equal = (%v, %v), want %v", got, err, tc.want)
			}
		})
	}
}

func TestEqualStreamMismatch(t *testing.T) {
	t.Parallel()
	st := NewStream("value", nil)
	for _, v := range []Value{Int(1), Null{}, &List{}} {
		if _, err := Equal(st, v); diag.CodeOf(err) != diag.TypeError {
			t.Errorf("Equal(stream, %s) error = %v, want type_error", TypeName(v), err)
		}
		if _, err := Equal(v, st); diag.CodeOf(err) != diag.TypeError {
			t.Errorf("Equal(%s, stream) error = %v, want type_error", TypeName(v), err)
		}
	}
	// Inside a collection the error surfaces too.
	if _, err := Equal(&List{Items: []Value{st}}, &List{Items: []Value{Int(1)}}); err == nil {
		t.Error("nested stream comparison did not fail")
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		a, b    Value
		want    int
		wantErr string
	}{
		{"int", Int(1), Int(2), -1, ""},
		{"int float", Int(2), Float(1.5), 1, ""},
		{"float int", Float(1.5), Int(2), -1, ""},
		{"int float equal", Int(2), Float(2), 0, ""},
		{"big int float", Int(math.MaxInt64), Float(1 << 63), -1, ""},
		{"neg frac", Float(-2.5), Int(-2), -1, ""},
		{"str bytewise", Str("Z"), Str("a"), -1, ""},
		{"path", Path{"a.txt"}, Path{"b.txt"}, -1, ""},
		{"size", Size(5), Size(4), 1, ""},
		{"duration", Duration(5e9), Duration(10e9), -1, ""},
		{"datetime", Datetime{T: time.Unix(10, 0)}, Datetime{T: time.Unix(5, 0).In(time.FixedZone("", 3600))}, 1, ""},
		{"time", Time{10, 0, 0}, Time{10, 1, 0}, -1, ""},
		{"time seconds", Time{10, 1, 2}, Time{10, 1, 1}, 1, ""},
		{"bool", Bool(false), Bool(true), -1, ""},
		{"nan", Float(math.NaN()), Float(1), 0, diag.TypeError},
		{"nan right", Int(1), Float(math.NaN()), 0, diag.TypeError},
		{"str int", Str("a"), Int(1), 0, diag.TypeError},
		{"lists", &List{Items: []Value{Int(1)}}, &List{Items: []Value{Int(2)}}, 0, diag.TypeError},
		{"records", rec(), rec(), 0, diag.TypeError},
		{"str path", Str("a"), Path{"a"}, 0, diag.TypeError},
		{"null", Null{}, Null{}, 0, diag.TypeError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compare(tc.a, tc.b)
			if tc.wantErr != "" {
				if diag.CodeOf(err) != tc.wantErr {
					t.Fatalf("Compare error = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Compare = (%d, %v), want %d", got, err, tc.want)
			}
		})
	}
	_, err := Compare(Int(1), Str("a"))
	if err == nil || err.Error() != "type_error: cannot compare int with str" {
		t.Errorf("message = %v", err)
	}
}

func TestCond(t *testing.T) {
	t.Parallel()
	if ok, err := Cond(Bool(true)); !ok || err != nil {
		t.Errorf("Cond(true) = %v, %v", ok, err)
	}
	if ok, err := Cond(&Outcome{OK: false}); ok || err != nil {
		t.Errorf("Cond(failed outcome) = %v, %v", ok, err)
	}
	_, err := Cond(&List{Items: []Value{Int(1)}})
	d := diag.As(err)
	if d == nil || d.Code != diag.TypeError || d.Msg != "expected bool in condition, found list" ||
		d.Hint != "shoal has no truthiness — try .is_empty(), .is_some(), or != null" {
		t.Errorf("Cond(list) error = %#v", d)
	}
}

func TestIn(t *testing.T) {
	t.Parallel()
	list := &List{Items: []Value{Int(1), Int(2), Int(3)}}
	tests := []struct {
		name         string
		needle, hay  Value
		want         bool
		wantErr, msg string
	}{
		{"list hit", Int(2), list, true, "", ""},
		{"list miss", Int(9), list, false, "", ""},
		{"list not sublist", &List{Items: []Value{Int(1), Int(2)}}, list, false, "", ""},
		{"table row", rec("a", Int(1)), &Table{Rows: []*Record{rec("a", Int(1))}}, true, "", ""},
		{"table non-record", Int(1), &Table{Rows: []*Record{rec("a", Int(1))}}, false, diag.TypeError, ""},
		{"substring", Str("ell"), Str("hello"), true, "", ""},
		{"record key", Str("a"), rec("a", Int(1), "b", Int(2)), true, "", ""},
		{"record missing key", Str("c"), rec("a", Int(1)), false, "", ""},
		{"range inside", Int(3), Range{1, 5, false}, true, "", ""},
		{"range end exclusive", Int(5), Range{1, 5, false}, false, "", ""},
		{"range end inclusive", Int(5), Range{1, 5, true}, true, "", ""},
		{"int in int", Int(1), Int(1), false, diag.TypeError, "cannot test int membership in int"},
		{"int in str", Int(1), Str("1"), false, diag.TypeError, "cannot test int membership in str"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := In(tc.needle, tc.hay)
			if tc.wantErr != "" {
				if diag.CodeOf(err) != tc.wantErr || (tc.msg != "" && diag.As(err).Msg != tc.msg) {
					t.Fatalf("In error = %v, want %s %q", err, tc.wantErr, tc.msg)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("In = (%v, %v), want %v", got, err, tc.want)
			}
		})
	}
}

func TestScalarOpsDoNotAllocate(t *testing.T) {
	pairs := [][2]Value{{Int(1), Int(2)}, {Str("abc"), Str("abd")}, {Size(1), Size(2)},
		{Float(1), Int(2)}, {Duration(1), Duration(2)}}
	for _, p := range pairs {
		if n := testing.AllocsPerRun(100, func() { _, _ = Compare(p[0], p[1]) }); n != 0 {
			t.Errorf("Compare(%s) allocates %v times", TypeName(p[0]), n)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = Equal(p[0], p[1]) }); n != 0 {
			t.Errorf("Equal(%s) allocates %v times", TypeName(p[0]), n)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	b.Run("int", func(b *testing.B) {
		x, y := Value(Int(1)), Value(Int(2))
		for b.Loop() {
			_, _ = Compare(x, y)
		}
	})
	b.Run("str", func(b *testing.B) {
		x, y := Value(Str("file-000123.txt")), Value(Str("file-000124.txt"))
		for b.Loop() {
			_, _ = Compare(x, y)
		}
	})
	b.Run("size", func(b *testing.B) {
		x, y := Value(Size(523_456)), Value(Size(500_000))
		for b.Loop() {
			_, _ = Compare(x, y)
		}
	})
	b.Run("equal-record", func(b *testing.B) {
		shape := NewShape([]string{"id", "name", "size"})
		x := &Record{Shape: shape, Vals: []Value{Int(1), Str("a"), Size(3)}}
		y := &Record{Shape: shape, Vals: []Value{Int(1), Str("a"), Size(3)}}
		for b.Loop() {
			_, _ = Equal(x, y)
		}
	})
}
