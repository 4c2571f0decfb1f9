package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const (
	benchRequest  = `{"jsonrpc":"2.0","id":17,"method":"exec","params":{"src":"1 + 2","mode":"run","position":"value","background":false,"timeout_ms":200,"elide":null}}`
	benchResponse = `{"jsonrpc":"2.0","id":17,"result":{"ref":"out:5","uri":"shoal://out/5","value":{"$":"int","v":3},"render":"3","elapsed_ms":0}}`
)

// bigResponse is a response whose result is a ~64 KiB string-heavy object, like a large render.
func bigResponse() string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":18,"result":{"ref":"out:6","render":"`)
	for b.Len() < 64<<10 {
		b.WriteString(`line \"quoted\" \\ and \u00e9 text 0123456789\n`)
	}
	b.WriteString(`","items":[1,2.5,-3e4,true,false,null,{"k":[[]]}],"elapsed_ms":12}}`)
	return b.String()
}

func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct{ name, frame string }{
		{"request", benchRequest},
		{"response", benchResponse},
		{"response64KiB", bigResponse()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := []byte(bc.frame)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, derr := decode(line); derr != nil {
					b.Fatal(derr.err)
				}
			}
		})
	}
}

// decodeSeeds are the frames every decode fuzz target starts from: malformed frames, the
// benchmark frames and the corners of the envelope scanner.
var decodeSeeds = []string{
	// Malformed and odd frames.
	`{"jsonrpc":"2.0","id":1.5,"method":"x","params":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","id":"a","result":null}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m","data":[1]}}`,
	`{"jsonrpc":"1.0","method":5}`,
	`[1,2]`, `{`, `null`, `{"id":{}}`,
	// Typical traffic.
	benchRequest, benchResponse,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"event","params":[1,"two",{"three":[3]}]}`,
	`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"exec","arguments":{"src":"x <- 1"}}}`,
	// Escaped keys and values.
	`{"jsonrpc":"2.0","id":1,"meth\u006fd":"x"}`,
	`{"json\u0072pc":"2.0","\u0069d":2,"method":"\u0078","par\u0061ms":[]}`,
	`{"jsonrpc":"\u0032.0","id":1,"method":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"}`,
	`{"jsonrpc":"2.0","id":"\u0000","result":"\\"}`,
	`{"jsonrpc":"2.0","id":1,"method":"\ud800"}`,
	`{"jsonrpc":"2.0","id":1,"method":"` + "\xff\xfe" + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"` + "\xed\xa0\x80" + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"é"}`,
	`{"jsonrpc":"2.0","id":1,"` + "method\xff" + `":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method\u":"x"}`,
	// Case and duplicates.
	`{"jsonrpc":"2.0","ID":1,"Method":"x"}`,
	`{"JSONRPC":"2.0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","method":"y","id":2,"params":1,"params":[2]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","method":5}`,
	`{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"result":1,"result":2}`,
	`{"jsonrpc":"2.0","id":{},"id":1,"method":"x"}`,
	// Whitespace everywhere.
	" \t\r\n{ \t\r\n\"jsonrpc\" \t\r\n: \t\r\n\"2.0\" \t\r\n, \"id\" : 7 , \"method\" : \"m\" , \"params\" : { \"a\" : [ 1 , 2 ] } } \t\r\n",
	`{ }`, `{}`, ` [ ] `, `""`, `0`, `-0.5e+10`, `true`, `false`,
	// Ids of every kind.
	`{"jsonrpc":"2.0","id":-1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
	`{"jsonrpc":"2.0","id":"","method":""}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	// Versions and methods that are not plain strings.
	`{"jsonrpc":2.0,"id":1,"method":"x"}`,
	`{"jsonrpc":null,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.00","id":1,"method":"x"}`,
	`{"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":["x"]}`,
	`{"jsonrpc":"2.0","id":1,"method":{"x":1}}`,
	// Responses.
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"result":null,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":[]}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"CODE":7,"Message":"m","DATA":{"a":null}}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":"` + "\xff" + `"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","result":1}`,
	// Deep and malformed.
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[[[[{"a":[{"b":{}}]}]]]]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x",}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} x`,
	`{"jsonrpc":"2.0","id":01,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1.,"method":"x"}`,
	`{"jsonrpc":"2.0","id":-,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e,"method":"x"}`,
	`{"jsonrpc":"2.0","id":tru,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{1:2}}`,
	`{"jsonrpc":"2.0","id":1,"method":"` + "\x01" + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"\x"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\x00",
	"\xef\xbb\xbf{}",
	``, ` `, `{"a":1 "b":2}`, `{"a" 1}`, `[1 2]`, `"abc`, `"\u12"`,
}

// sameRaw compares raw values including nil-ness, which decides notification vs null id.
func sameRaw(a, b json.RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func sameError(a, b *Error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Code == b.Code && a.Message == b.Message && sameRaw(a.Data, b.Data)
}

// diffDecode returns how decode's result differs from refDecode's, or "".
func diffDecode(line []byte) string {
	want, wantErr := refDecode(bytes.Clone(line))
	// decode gets a buffer that is scribbled over afterwards, as the FrameReader's is, so any
	// aliasing shows up as a difference.
	buf := bytes.Clone(line)
	got, gotErr := decode(buf)
	for i := range buf {
		buf[i] = '#'
	}
	switch {
	case (gotErr == nil) != (wantErr == nil):
		return fmt.Sprintf("error %+v, want %+v", gotErr, wantErr)
	case gotErr != nil:
		if !sameRaw(gotErr.id, wantErr.id) || !sameError(gotErr.err, wantErr.err) || gotErr.noReply != wantErr.noReply {
			return fmt.Sprintf("error id=%q err=%+v data=%q noReply=%v, want id=%q err=%+v data=%q noReply=%v",
				gotErr.id, gotErr.err, gotErr.err.Data, gotErr.noReply, wantErr.id, wantErr.err, wantErr.err.Data, wantErr.noReply)
		}
		if got.req != nil || got.resp != nil {
			return "a message alongside the error"
		}
		return ""
	case (got.req == nil) != (want.req == nil) || (got.resp == nil) != (want.resp == nil):
		return fmt.Sprintf("decoded %+v, want %+v", got, want)
	case got.req != nil:
		g, w := got.req, want.req
		if !sameRaw(g.ID, w.ID) || g.Method != w.Method || !sameRaw(g.Params, w.Params) {
			return fmt.Sprintf("request id=%q method=%q params=%q, want id=%q method=%q params=%q",
				g.ID, g.Method, g.Params, w.ID, w.Method, w.Params)
		}
	case got.resp != nil:
		g, w := got.resp, want.resp
		if !sameRaw(g.ID, w.ID) || !sameRaw(g.Result, w.Result) || !sameError(g.Error, w.Error) {
			return fmt.Sprintf("response id=%q result=%q error=%+v, want id=%q result=%q error=%+v",
				g.ID, g.Result, g.Error, w.ID, w.Result, w.Error)
		}
	}
	return ""
}

func TestDecodeMatchesReference(t *testing.T) {
	for _, s := range append(decodeSeeds, bigResponse()) {
		if d := diffDecode([]byte(s)); d != "" {
			t.Errorf("%.200q: %s", s, d)
		}
	}
}

func FuzzDecodeMatchesReference(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := diffDecode(line); d != "" {
			t.Fatal(d)
		}
	})
}

// FuzzScanMatchesValid holds the envelope scanner's verdict to json.Valid's on any input, and
// its member slices to what a map decode captures.
func FuzzScanMatchesValid(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, kind := scanEnvelope(b)
		if valid := json.Valid(b); valid != (kind != scanInvalid) {
			t.Fatalf("scan says %v, json.Valid says %v", kind, valid)
		}
		if kind == scanInvalid {
			return
		}
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		if isObject := trimmed[0] == '{'; isObject != (kind == scanObject) {
			t.Fatalf("scan says %v for an object: %v", kind, isObject)
		}
		if kind != scanObject {
			return
		}
		want, err := refParseEnvelope(b)
		if err != nil {
			t.Fatalf("map decode of a valid object: %v", err)
		}
		for _, m := range []struct {
			name      string
			got, want json.RawMessage
		}{
			{"jsonrpc", env.JSONRPC, want.JSONRPC}, {"id", env.ID, want.ID},
			{"method", env.Method, want.Method}, {"params", env.Params, want.Params},
			{"result", env.Result, want.Result}, {"error", env.Error, want.Error},
		} {
			if !sameRaw(m.got, m.want) {
				t.Fatalf("member %s = %q, want %q", m.name, m.got, m.want)
			}
		}
	})
}

// TestScanNestingLimit checks the depth limit against json.Valid's at the boundary, for the
// top-level value and for a member value (whose object counts as one level).
func TestScanNestingLimit(t *testing.T) {
	nest := func(n int, open, close, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, n := range []int{maxNestingDepth - 2, maxNestingDepth - 1, maxNestingDepth, maxNestingDepth + 1} {
		for _, s := range []string{
			nest(n, "[", "]", ""),
			nest(n, "[", "]", "1"),
			nest(n, `{"a":`, "}", "{}"),
			`{"jsonrpc":"2.0","id":1,"method":"x","params":` + nest(n, "[", "]", "") + "}",
			`{"jsonrpc":"2.0","id":1,"method":"x","params":` + nest(n-1, `{"a":`, "}", "[]") + "}",
		} {
			_, kind := scanEnvelope([]byte(s))
			if want := json.Valid([]byte(s)); want != (kind != scanInvalid) {
				t.Errorf("depth %d, %.20s…: scan %v, json.Valid %v", n, s, kind, want)
			}
			if d := diffDecode([]byte(s)); d != "" {
				t.Errorf("depth %d, %.20s…: %.300s", n, s, d)
			}
		}
	}
}

// TestDecodeDoesNotAlias checks that a decoded message survives the frame buffer being reused
// and that appending to the raw id cannot overwrite the params or result stored after it.
func TestDecodeDoesNotAlias(t *testing.T) {
	for _, frame := range []string{benchRequest, benchResponse} {
		want, _ := refDecode([]byte(frame))
		line := []byte(frame)
		msg, derr := decode(line)
		if derr != nil {
			t.Fatal(derr.err)
		}
		for i := range line {
			line[i] = 'x'
		}
		var id, body, wantBody json.RawMessage
		if msg.req != nil {
			id, body, wantBody = msg.req.ID, msg.req.Params, want.req.Params
		} else {
			id, body, wantBody = msg.resp.ID, msg.resp.Result, want.resp.Result
		}
		_ = append(id, "garbage"...)
		if string(id) != "17" || !bytes.Equal(body, wantBody) {
			t.Fatalf("id %q body %q after the frame buffer was reused and the id appended to", id, body)
		}
	}
}

func TestDecodeAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, bc := range []struct {
		frame string
		max   float64
	}{{benchRequest, 3}, {benchResponse, 2}} {
		line := []byte(bc.frame)
		if n := testing.AllocsPerRun(100, func() { decode(line) }); n > bc.max {
			t.Errorf("decode %.30s…: %v allocs, want at most %v", bc.frame, n, bc.max)
		}
	}
}
