package value

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shoal-sh/shoal/lang/diag"
)

func TestParsePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []PathStep
	}{
		{"", nil},
		{"a", []PathStep{{Kind: StepField, Name: "a"}}},
		{".a.b", []PathStep{{Kind: StepField, Name: "a"}, {Kind: StepField, Name: "b"}}},
		{"rows[0].name", []PathStep{{Kind: StepField, Name: "rows"}, {Kind: StepIndex, Index: 0}, {Kind: StepField, Name: "name"}}},
		{"[2..5]", []PathStep{{Kind: StepSlice, Lo: 2, Hi: 5, HasLo: true, HasHi: true}}},
		{"[..5]", []PathStep{{Kind: StepSlice, Hi: 5, HasHi: true}}},
		{"[3..]", []PathStep{{Kind: StepSlice, Lo: 3, HasLo: true}}},
		{"content-type", []PathStep{{Kind: StepField, Name: "content-type"}}},
		{"[1][2]", []PathStep{{Kind: StepIndex, Index: 1}, {Kind: StepIndex, Index: 2}}},
	}
	for _, tc := range tests {
		got, err := ParsePath(tc.in)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParsePath(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{".", "a..b", "[", "[-1]", "[x]", "[1+1]", "[0]x", "a[", "[1..2..3]", "[+1]"} {
		if _, err := ParsePath(bad); diag.CodeOf(err) != diag.ArgError {
			t.Errorf("ParsePath(%q) error = %v, want arg_error", bad, err)
		}
	}
}

type doneTask struct{ TaskHandle }

func (doneTask) Done() bool { return true }

func TestApplyPath(t *testing.T) {
	t.Parallel()
	table := &Table{Rows: []*Record{rec("name", Str("a"), "n", Int(1)), rec("name", Str("b")), rec("name", Str("c"), "n", Int(3))}}
	status := 1
	stderr := "boom"
	root := rec(
		"t", table,
		"l", &List{Items: []Value{Int(10), Int(20), Int(30)}},
		"o", &Outcome{Status: &status, OK: false, Dur: 1500 * time.Millisecond, Pid: 42, Cmd: "x y", Stdout: []byte(`{"size": 5}`), Stderr: []byte("e")},
		"e", &ErrorVal{Err: &diag.Error{Code: "cmd_failed", Msg: "m", Stderr: &stderr, Status: &status}},
		"r", Range{Start: 1, End: 4},
		"k", &Task{ID: 7, Handle: doneTask{}},
	)
	tests := []struct {
		path, want, wantErr string
	}{
		{"t", `[{name: "a", n: 1}, {name: "b"}, {name: "c", n: 3}]`, ""},
		{"t.rows[1]", `{name: "b"}`, ""},
		{"t.n", "[1, null, 3]", ""},
		{"t[2].name", `"c"`, ""},
		{"t[1..9]", `[{name: "b"}, {name: "c", n: 3}]`, ""},
		{"t[3]", "", diag.IndexRange},
		{"l[0]", "10", ""},
		{"l[1..2]", "[20]", ""},
		{"l[2..1]", "[]", ""},
		{"l[5..9]", "[]", ""},
		{"l[3]", "", diag.IndexRange},
		{"l.x", "", diag.FieldMissing},
		{"o.status", "1", ""},
		{"o.ok", "false", ""},
		{"o.signal", "null", ""},
		{"o.dur_ns", "1500000000", ""},
		{"o.pid", "42", ""},
		{"o.cmd", `"x y"`, ""},
		{"o.stdout", "bytes(11b)", ""},
		{"o.stderr", "bytes(1b)", ""},
		{"o.out", "{size: 5}", ""},
		{"o.size", "5", ""},
		{"o.nope", "", diag.FieldMissing},
		{"o[0]", "", diag.TypeError},
		{"e.code", `"cmd_failed"`, ""},
		{"e.hint", "null", ""},
		{"e.stderr", `"boom"`, ""},
		{"e.status", "1", ""},
		{"e.span", "", diag.FieldMissing},
		{"r.start", "1", ""},
		{"r.end", "4", ""},
		{"r.inclusive", "false", ""},
		{"r[0]", "", diag.TypeError},
		{"k.id", "7", ""},
		{"k.done", "true", ""},
		{"missing", "", diag.FieldMissing},
		{"[0]", "", diag.TypeError},
	}
	for _, tc := range tests {
		steps, err := ParsePath(tc.path)
		if err != nil {
			t.Fatalf("ParsePath(%q): %v", tc.path, err)
		}
		got, err := ApplyPath(root, steps)
		if tc.wantErr != "" {
			if diag.CodeOf(err) != tc.wantErr {
				t.Errorf("ApplyPath(%q) = %v, %v; want %s", tc.path, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || RenderInline(got) != tc.want {
			t.Errorf("ApplyPath(%q) = %v, %v; want %s", tc.path, got, err, tc.want)
			continue
		}
	}
	if v, _ := ApplyPath(root, []PathStep{{Kind: StepField, Name: "t"}, {Kind: StepSlice, Lo: 0, Hi: 1, HasHi: true}}); v.Kind() != KTable {
		t.Errorf("slicing a table gave a %s, want table", v.Kind())
	}
}

func TestSlice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v       Value
		a, b    int64
		want    string
		wantErr string
	}{
		{Str("héllo"), 1, 3, `"él"`, ""},
		{Str("héllo"), 3, 99, `"lo"`, ""},
		{Str("héllo"), -5, 2, `"hé"`, ""},
		{Str("abc"), 2, 1, `""`, ""},
		{Str("abc"), 3, 3, `""`, ""},
		{&Bytes{Data: []byte("abcdef")}, 2, 4, "bytes(2b)", ""},
		{&List{Items: []Value{Int(1), Int(2), Int(3)}}, 1, 99, "[2, 3]", ""},
		{&Table{Rows: []*Record{rec("a", Int(1)), rec("a", Int(2))}}, 1, 2, "[{a: 2}]", ""},
		{Int(3), 0, 1, "", diag.TypeError},
		{rec(), 0, 1, "", diag.TypeError},
		{&Bytes{Ref: "val:blake3:x", Len: 3, Load: func(context.Context) ([]byte, error) { return nil, errors.New("gone") }}, 0, 1, "", diag.IOError},
	}
	for _, tc := range tests {
		got, err := Slice(tc.v, tc.a, tc.b)
		checkResult(t, got, err, tc.want, tc.wantErr, "")
	}
	_, err := Slice(Int(1), 0, 1)
	if d := diag.As(err); d == nil || d.Msg != "cannot slice a int" {
		t.Errorf("slice message = %v", err)
	}
	lazy := &Bytes{Ref: "val:blake3:x", Len: 6, Load: func(context.Context) ([]byte, error) { return []byte("abcdef"), nil }}
	got, err := Slice(lazy, 4, 6)
	if err != nil || string(got.(*Bytes).Data) != "ef" {
		t.Errorf("lazy slice = %v, %v", got, err)
	}
}

func TestRenderBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"str raw", Str("a\nb"), "a\nb"},
		{"null", Null{}, ""},
		{"int", Int(3), "3"},
		{"list", &List{Items: []Value{Str("a"), Int(2), &List{}}}, "a\n2\n[]"},
		{"record", rec("name", Str("shoal"), "n", Int(2), "tags", &List{Items: []Value{Int(1)}}),
			"name  shoal\nn     2\ntags  [1]"},
		{"table", &Table{Rows: []*Record{rec("name", Str("a.txt"), "size", Size(1500)), rec("name", Str("bb"), "size", Size(3))}},
			"name   size\na.txt  1.5kb\nbb     3b"},
		{"list of records", &List{Items: []Value{rec("a", Int(1)), rec("b", Str("x y"))}}, "a  b\n1\n   x y"},
		{"outcome stdout", &Outcome{Stdout: []byte("hi\n")}, "hi"},
		{"outcome out", &Outcome{Stdout: []byte("ignored"), Out: rec("k", Int(1))}, "k  1"},
	}
	for _, tc := range tests {
		if got := RenderBlock(tc.v, 0); got != tc.want {
			t.Errorf("%s: RenderBlock =\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
	wide := &List{Items: []Value{Str("abcdefghij")}}
	if got := RenderBlock(wide, 5); got != "abcd…" {
		t.Errorf("cut = %q", got)
	}
}
