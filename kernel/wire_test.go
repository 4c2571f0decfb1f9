package kernel

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

func TestWireEncodingAndRoundTrip(t *testing.T) {
	t.Parallel()
	st := 3
	stderr := "bad\n"
	ts := time.Date(2025, 6, 15, 10, 2, 3, 500000000, time.UTC)
	for _, tc := range []struct {
		name string
		v    value.Value
		want string
	}{
		{"null", value.Null{}, `{"$":"null"}`},
		{"bool", value.Bool(true), `{"$":"bool","v":true}`},
		{"int", value.Int(-7), `{"$":"int","v":-7}`},
		{"float", value.Float(1.5), `{"$":"float","v":1.5}`},
		{"nan", value.Float(math.Inf(-1)), `{"$":"float","v":"-inf"}`},
		{"str", value.Str("a\"<b>"), `{"$":"str","v":"a\"<b>"}`},
		{"size", value.Size(1024), `{"$":"size","v":1024}`},
		{"duration", value.Duration(1500), `{"$":"duration","v":1500}`},
		{"bytes", &value.Bytes{Data: []byte("hi")}, `{"$":"bytes","v":"aGk="}`},
		{"path", value.Path{P: "/tmp/x"}, `{"$":"path","v":"/tmp/x"}`},
		{"path-raw", value.Path{P: "/tmp/\xff"}, `{"$":"path","v":"/tmp/�","raw":"L3RtcC//"}`},
		{"list", &value.List{Items: []value.Value{value.Int(1), value.Str("a")}}, `{"$":"list","v":[{"$":"int","v":1},{"$":"str","v":"a"}]}`},
		{"record-sorted", value.NewRecord([]string{"a", "b"}, []value.Value{value.Int(1), value.Int(2)}), `{"$":"record","v":{"a":{"$":"int","v":1},"b":{"$":"int","v":2}}}`},
		{"record-order", value.NewRecord([]string{"z", "a"}, []value.Value{value.Int(1), value.Int(2)}), `{"$":"record","v":{"a":{"$":"int","v":2},"z":{"$":"int","v":1}},"order":["z","a"]}`},
		{"table-missing-cell", &value.Table{Rows: []*value.Record{
			value.NewRecord([]string{"n", "s"}, []value.Value{value.Int(1), value.Str("x")}),
			value.NewRecord([]string{"n"}, []value.Value{value.Int(2)}),
		}}, `{"$":"table","cols":{"n":[{"$":"int","v":1},{"$":"int","v":2}],"s":[{"$":"str","v":"x"},{"$":"null"}]},"n":2}`},
		{"datetime", value.Datetime{T: ts}, `{"$":"datetime","v":"2025-06-15T10:02:03.5Z"}`},
		{"time", value.Time{H: 9, M: 5, S: 0}, `{"$":"time","v":"09:05:00"}`},
		{"glob", value.Glob{Pattern: "*.go"}, `{"$":"glob","v":"*.go"}`},
		{"regex", value.Regex{Src: "a+"}, `{"$":"regex","v":"a+"}`},
		{"range", value.Range{Start: 1, End: 5, Inclusive: true}, `{"$":"range","start":1,"end":5,"inclusive":true}`},
		{"error", &value.ErrorVal{Err: &diag.Error{Code: "cmd_failed", Msg: "boom", Hint: "h", Span: diag.Span{Start: 1, End: 4}, Stderr: &stderr, Status: &st}},
			`{"$":"error","code":"cmd_failed","msg":"boom","span":{"start":1,"end":4},"hint":"h","stderr":"bad\n","status":3}`},
		{"outcome", &value.Outcome{Status: &st, OK: false, Cmd: "false", Pid: 9, Dur: 5, Stdout: []byte("out\n"), Stderr: []byte("e")},
			`{"$":"outcome","status":3,"ok":false,"signal":null,"out":{"$":"str","v":"out"},"err":"e","dur_ns":5,"pid":9,"cmd":"false"}`},
		{"secret", &value.Secret{Name: "tok", Content: []byte("hunter2")}, `{"$":"secret","name":"tok"}`},
		{"closure", &value.Closure{Name: "f", Params: []string{"a", "b"}}, `{"$":"closure","repr":"fn f(a, b)"}`},
		{"cmd", &value.Command{Head: "ls"}, `{"$":"cmd","repr":"command(ls)"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(EncodeWire(tc.v))
			if got != tc.want {
				t.Fatalf("encode:\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("invalid JSON %s", got)
			}
			back, err := DecodeWire(json.RawMessage(got))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if again := string(EncodeWire(back)); again != got {
				t.Fatalf("round trip:\n got %s\nwant %s", again, got)
			}
			// A missing table cell travels as null (the columnar form has no hole).
			if value.RenderInline(back) != value.RenderInline(tc.v) && tc.name != "table-missing-cell" {
				t.Errorf("render after round trip = %q, want %q", value.RenderInline(back), value.RenderInline(tc.v))
			}
		})
	}
	if strings.Contains(string(EncodeWire(&value.Secret{Name: "t", Content: []byte("hunter2")})), "hunter2") {
		t.Fatal("secret material encoded")
	}
	for _, bad := range []string{`{"$":"ref","uri":"x"}`, `{"$":"nope"}`, `[]`, `{"$":"int","v":"x"}`, `{"$":"table","cols":{"a":[]},"n":3}`} {
		if _, err := DecodeWire(json.RawMessage(bad)); err == nil {
			t.Errorf("DecodeWire(%s) succeeded", bad)
		}
	}
}

func FuzzDecodeWire(f *testing.F) {
	f.Add(`{"$":"list","v":[{"$":"int","v":1}]}`)
	f.Add(`{"$":"table","cols":{"a":[{"$":"null"}]},"n":1}`)
	f.Add(`{"$":"record","v":{"a":{"$":"null"}},"order":["b"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		DecodeWire(json.RawMessage(s)) // must not panic
	})
}

func TestElideRules(t *testing.T) {
	t.Parallel()
	b := budgetFor(nil)
	// Bytes over the raw threshold and CAS-backed bytes are always elided.
	big := &value.Bytes{Data: make([]byte, 5000)}
	if got := obj(t, elide(big, "shoal://out/1", b)); got["$"] != "ref" || got["of"] != "bytes" || got["n"] != float64(5000) {
		t.Errorf("bytes = %v", got)
	}
	cas := &value.Bytes{Ref: "val:blake3:ab", Len: 10}
	if got := obj(t, elide(cas, "u", b)); got["$"] != "ref" || got["n"] != float64(10) || got["preview"] != nil {
		t.Errorf("cas bytes = %v", got)
	}
	// A record elides to its first five keys with null values.
	keys := make([]string, 2000)
	vals := make([]value.Value, 2000)
	for i := range keys {
		keys[i] = "k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		vals[i] = value.Int(i)
	}
	rec := value.NewRecord(keys, vals)
	got := obj(t, elide(rec, "u", b))
	p := got["preview"].(map[string]any)["v"].(map[string]any)
	if got["of"] != "record" || got["n"] != float64(2000) || len(p) != 5 {
		t.Errorf("record = %v", got)
	}
	// A successful outcome keeps its shape; only .out is elided, with a path URI.
	o := &value.Outcome{OK: true, Status: new(int), Cmd: "cat", Stdout: []byte(strings.Repeat("z", 20000))}
	og := obj(t, elide(o, "shoal://out/3", b))
	out := og["out"].(map[string]any)
	if og["$"] != "outcome" || out["$"] != "ref" || out["uri"] != "shoal://out/3?path=out" {
		t.Errorf("outcome = %v", og)
	}
	// A per-call max_bytes is clamped to the hard cap.
	if bb := budgetFor(&proto.Elide{MaxBytes: ptr(1 << 30)}); bb.maxBytes != 65536 || bb.rawBytes != 65536 {
		t.Errorf("clamped budget = %+v", bb)
	}
}

func TestBoundRender(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString("line ")
		sb.WriteString(strings.Repeat("x", i%40))
		sb.WriteString("\n")
	}
	got := boundRender("\x1b[31m"+sb.String(), false, "shoal://out/4")
	if len(got) > 65536 || !strings.HasSuffix(got, "more lines, fetch via shoal://out/4)") || strings.Contains(got, "\x1b") {
		t.Fatalf("bounded render: len %d, tail %q", len(got), got[len(got)-60:])
	}
	// The kept part is whole lines.
	kept := got[:strings.LastIndex(got, "\n…(")]
	if !strings.HasSuffix(kept, "x") && !strings.HasSuffix(kept, "line ") {
		t.Errorf("kept part ends mid-line: %q", kept[len(kept)-20:])
	}
	one := strings.Repeat("é", 40000) // a single line too long: hard cut on a rune boundary
	got = proto.BoundText(one, "u")
	if len(got) > 65536 || !strings.Contains(got, "(1 more lines, fetch via u)") || !strings.HasPrefix(got, "é") {
		t.Fatalf("hard cut: len %d", len(got))
	}
	if tty := boundRender("\x1b[1mx\x1b[0m", true, "u"); tty != "\x1b[1mx\x1b[0m" {
		t.Errorf("tty render stripped: %q", tty)
	}
}

func TestCompleteSnapsCursor(t *testing.T) {
	t.Parallel()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src := "let wörld = 1\nlet wide = 2\nw"
	for _, cur := range []int{len(src), 1000, -5, strings.Index(src, "ö") + 1} {
		res, err := s.handleComplete(t.Context(), nil, proto.CompleteParams{Src: src, Cursor: &cur})
		if err != nil {
			t.Fatalf("cursor %d: %v", cur, err)
		}
		if cur == len(src) || cur == 1000 {
			if strings.Join(res.Candidates, ",") != "which,while,wide,with,wörld" {
				t.Errorf("cursor %d: %v", cur, res.Candidates)
			}
		}
	}
}

func obj(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

func ptr[T any](v T) *T { return &v }
