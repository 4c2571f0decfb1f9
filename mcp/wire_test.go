package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodeStd is how the connection encoded results before they wrote their own JSON.
func encodeStd(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func TestWireMatchesEncodingJSON(t *testing.T) {
	results := []*callResult{
		toolResult(json.RawMessage(`{"ref":"out:1","uri":"shoal://out/1","value":{"$":"int","v":3},"render":"3","elapsed_ms":0}`)),
		toolResult(json.RawMessage(`{"ref":"out:2","value":{"$":"str","v":"<a & b>\n\u2028"},"render":"a\tb \"q\" \\ \u0001 é"}`)),
		toolResult(json.RawMessage(`{"task":"task:1","events":"task.1","timed_out":true}`)),
		toolResult(json.RawMessage(`{ "spaced" : [ 1 , 2 ] }`)),
		errorResult(&connError{err: json.Unmarshal([]byte("x"), new(int))}),
		{Content: []any{textContent{Type: "text", Text: ""}}},
	}
	for _, r := range results {
		if got, want := string(r.AppendJSON(nil)), encodeStd(t, r); got != want {
			t.Errorf("callResult:\n got %s\nwant %s", got, want)
		}
	}
	calls := []*execCall{
		{Src: "1 + 2", Mode: "run", Position: "value", TimeoutMs: int64(200)},
		{Src: "ls\n\"x\"", Mode: "plan", Position: "stmt", Background: true, TimeoutMs: json.Number("1500"),
			Elide: map[string]any{"max_rows": json.Number("5"), "max_depth": json.Number("2")}},
		{Src: nil, Mode: "run", Position: "value", Background: false},
	}
	for _, c := range calls {
		if got, want := string(c.AppendJSON(nil)), encodeStd(t, c); got != want {
			t.Errorf("execCall:\n got %s\nwant %s", got, want)
		}
	}
}

func FuzzCallResultMatchesEncoder(f *testing.F) {
	f.Add("3", `{"v":1}`)
	f.Add("a\x00<&>\u2028\xff", `[ 1, "x" ]`)
	f.Fuzz(func(t *testing.T, text, structured string) {
		r := &callResult{Content: []any{textContent{Type: "text", Text: text}, linkContent{Type: "resource_link", URI: text, Name: text, MimeType: "application/json"}}}
		if json.Valid([]byte(structured)) {
			r.StructuredContent = json.RawMessage(structured)
		}
		if got, want := string(r.AppendJSON(nil)), encodeStd(t, r); got != want {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// tools/call params decode as the struct decode they replace did, for the shapes clients send.
func TestDecodeCallParams(t *testing.T) {
	p, err := decodeCallParams(json.RawMessage(`{"name":"shoal_exec","arguments":{"src":"1"},"_meta":{"progressToken":7},"extra":[1]}`))
	if err != nil || p.name != "shoal_exec" || string(p.arguments) != `{"src":"1"}` || string(p.progressToken) != "7" {
		t.Fatalf("got %+v, %v", p, err)
	}
	if p, err := decodeCallParams(json.RawMessage(`{"name":"a","name":"b","_meta":null}`)); err != nil || p.name != "b" || p.progressToken != nil {
		t.Fatalf("repeated name: %+v, %v", p, err)
	}
	for _, bad := range []string{`{"name":1}`, `[1]`, `"x"`, `{"_meta":3}`} {
		if _, err := decodeCallParams(json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "invalid params") {
			t.Errorf("%s: error %v, want invalid params", bad, err)
		}
	}
}
