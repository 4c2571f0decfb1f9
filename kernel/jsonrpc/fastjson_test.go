package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

var fastJSONSeeds = []string{
	`{}`, `[]`, `null`, `true`, `0`, `-1.5e3`, `"x"`, `""`,
	`{"src":"1 + 2","mode":"run","timeout_ms":200,"elide":{"max_rows":5}}`,
	`{"a":1,"a":2}`, `{"k\u00e9y":"v\n\"q\"","\ud83d\ude00":[1,{"b":null}]}`,
	` { "a" : [ 1 , 2 ] , "b" : { } } `, `{"a":"\xff\u2028"}`, `[1,"two",{"3":[]}]`,
	`{"a":}`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `{"a":1} x`, `"\x01"`, `{"`, `01`, `1.`, `nul`,
}

func FuzzDecodeAnyMatchesDecoder(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeAny(b)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		werr := dec.Decode(&want)
		if werr == nil && dec.More() || werr == nil && !json.Valid(b) {
			werr = errors.New("trailing data")
		}
		if (err != nil) != (werr != nil) {
			t.Fatalf("DecodeAny(%q) error %v, decoder error %v", b, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeAny(%q) = %#v, want %#v", b, got, want)
		}
	})
}

func FuzzMembersMatchesMapDecode(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]string{}
		var order []string
		err := Members(b, func(k string, v json.RawMessage) error {
			got[k] = string(v)
			order = append(order, k)
			return nil
		})
		var want map[string]json.RawMessage
		werr := json.Unmarshal(b, &want)
		if werr == nil && want == nil { // null decodes into a nil map; Members wants an object
			werr = errNotObject
		}
		if (err != nil) != (werr != nil) {
			t.Fatalf("Members(%q) error %v, map decode error %v", b, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("Members(%q) = %v, want %v", b, got, want)
		}
		for k, v := range want {
			if got[k] != string(v) {
				t.Fatalf("Members(%q)[%q] = %s, want %s", b, k, got[k], v)
			}
		}
	})
}

func FuzzAppendStringMatchesEncoder(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\b\f\n\r\t\x00\x1f\x7f", "<&>", "\u2028\u2029", "\xff\xfe", "é😀", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(AppendString([]byte("x"), s)); got != "x"+want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

func TestStringDecodes(t *testing.T) {
	for raw, want := range map[string]string{`"a\nb"`: "a\nb", `null`: "", `"\u00e9"`: "é", `"é"`: "é"} {
		if got, ok := String(json.RawMessage(raw)); !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`1`, `{}`, `"a`, `"a"b"`, `true`, ``} {
		if _, ok := String(json.RawMessage(raw)); ok {
			t.Errorf("String(%s) ok, want failure", raw)
		}
	}
}

// A Call decoding into a json.RawMessage gets the result bytes as they came, and Members stops
// at the first error its callback returns.
func TestMembersStopsOnError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Members([]byte(`{"a":1,"b":2}`), func(string, json.RawMessage) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("Members = %v after %d calls", err, n)
	}
}
