package value

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shoal-sh/shoal/lang/diag"
)

func TestToOrderedKinds(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		v    Value
		want any
	}{
		{"null", Null{}, nil},
		{"bool", Bool(true), true},
		{"int", Int(-2), int64(-2)},
		{"float", Float(1.5), 1.5},
		{"str", Str("s"), "s"},
		{"path", Path{"a\xff"}, "a\uFFFD"},
		{"glob", Glob{Pattern: "*.go"}, "*.go"},
		{"regex", Regex{Src: "x+"}, "x+"},
		{"time", Time{7, 5, 0}, "07:05:00"},
		{"size", Size(1500), int64(1500)},
		{"huge size", Size(math.MaxUint64), uint64(math.MaxUint64)},
		{"duration", Duration(-3), int64(-3)},
		{"datetime", Datetime{T: when}, when},
		{"bytes", &Bytes{Data: []byte("hi")}, "hi"},
		{"list", &List{Items: []Value{Int(1), Null{}}}, []any{int64(1), nil}},
		{"range", Range{1, 3, false}, []any{int64(1), int64(2)}},
		{"table", &Table{Rows: []*Record{rec("a", Int(1))}}, []any{Ordered{{"a", int64(1)}}}},
		{"outcome", &Outcome{Status: intp(3), Stdout: []byte("[1]"), Stderr: []byte("e")},
			Ordered{{"status", int64(3)}, {"ok", false}, {"out", []any{int64(1)}}, {"err", "e"}}},
		{"signalled outcome", &Outcome{Signal: "SIGKILL"}, Ordered{{"status", nil}, {"ok", false}, {"out", ""}, {"err", ""}}},
		{"error", &ErrorVal{Err: diag.New(diag.Custom, "m")}, Ordered{{"code", "custom"}, {"msg", "m"}}},
		{"secret", &Secret{Name: "k", Content: []byte("x")}, "secret(k)"},
		{"command", &Command{Head: "ls"}, "command(ls)"},
	}
	for _, tc := range tests {
		got, err := ToOrdered(tc.v)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: ToOrdered (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestFromOrderedScalars(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{uint64(math.MaxUint64), "18446744073709552000"},
		{uint64(7), "7"},
		{int32(-4), "-4"},
		{float32(0.5), "0.5"},
		{[]byte("ab"), "bytes(2b)"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05Z"},
		{Int(9), "9"},
		{[]any{}, "[]"},
	}
	for _, tc := range tests {
		v, err := FromOrdered(tc.in)
		if err != nil || RenderInline(v) != tc.want {
			t.Errorf("FromOrdered(%#v) = %v, %v; want %s", tc.in, v, err, tc.want)
		}
	}
}

type sameImpl struct{ id int }

func (s sameImpl) EqualImpl(o any) bool { x, ok := o.(sameImpl); return ok && x.id == s.id }

func TestCommandEquality(t *testing.T) {
	t.Parallel()
	a := &Command{Head: "git", Impl: sameImpl{1}}
	if eq, _ := Equal(a, &Command{Head: "git", Impl: sameImpl{1}}); !eq {
		t.Error("structurally equal aliases differ")
	}
	if eq, _ := Equal(a, &Command{Head: "git", Impl: sameImpl{2}}); eq {
		t.Error("different stored calls are equal")
	}
	if eq, _ := Equal(a, &Command{Head: "gh", Impl: sameImpl{1}}); eq {
		t.Error("different heads are equal")
	}
}
