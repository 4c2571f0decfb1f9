package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testTimeout bounds every wait; generous because CI is a 2-core machine under -race.
const testTimeout = 20 * time.Second

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testRouter is the method table used by the golden tests.
func testRouter() *Router {
	r := NewRouter()
	r.Register("echo", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Params == nil {
			return nil, nil
		}
		return req.Params, nil
	}))
	type addParams struct{ A, B int }
	r.Register("add", Typed(func(ctx context.Context, req *Request, p addParams) (int, error) {
		return p.A + p.B, nil
	}))
	r.Register("fail", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return nil, fmt.Errorf("wrapped: %w", NewError(-32004, "unknown value ref", map[string]string{"ref": "out:9"}))
	}))
	r.Register("oops", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return nil, errors.New("disk on fire")
	}))
	r.Register("panic", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		panic("boom")
	}))
	r.Register("typednil", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var e *Error // the classic typed-nil: a nil *Error inside a non-nil error
		return "fine", e
	}))
	r.Register("html", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return map[string]string{"render": "<a> & <b>"}, nil
	}))
	return r
}

// serveLines runs a connection over the given input until EOF and returns its output lines.
func serveLines(t *testing.T, input string, opts *Options) []string {
	t.Helper()
	var out bytes.Buffer
	if opts == nil {
		opts = &Options{}
	}
	if opts.Handler == nil {
		opts.Handler = testRouter()
	}
	opts.Logger = quietLogger()
	c := NewConn(strings.NewReader(input), &out, opts)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	_ = c.Run(ctx)
	s := strings.TrimSuffix(out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestGoldenFrames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string // nil: no reply at all
	}{
		{"id float verbatim", `{"jsonrpc":"2.0","id":1.5,"method":"echo","params":{"a":1}}`,
			[]string{`{"jsonrpc":"2.0","id":1.5,"result":{"a":1}}`}},
		{"id beyond int64 verbatim", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"echo","params":[1]}`,
			[]string{`{"jsonrpc":"2.0","id":12345678901234567890,"result":[1]}`}},
		{"id exponent verbatim", `{"jsonrpc":"2.0","id":1e3,"method":"add","params":{"a":1,"b":2}}`,
			[]string{`{"jsonrpc":"2.0","id":1e3,"result":3}`}},
		{"id string verbatim", `{"jsonrpc":"2.0","id":"x\u00e9","method":"add","params":{"a":1,"b":2}}`,
			[]string{`{"jsonrpc":"2.0","id":"x\u00e9","result":3}`}},
		{"id null is a request", `{"jsonrpc":"2.0","id":null,"method":"add"}`,
			[]string{`{"jsonrpc":"2.0","id":null,"result":0}`}},
		{"null result", `{"jsonrpc":"2.0","id":2,"method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"result":null}`}},
		{"notification never answered", `{"jsonrpc":"2.0","method":"echo","params":{}}`, nil},
		{"failing notification never answered", `{"jsonrpc":"2.0","method":"nope"}`, nil},
		{"malformed json", `{"jsonrpc":"2.0","id":1,`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"detail":"unexpected end of JSON input"}}}`}},
		{"bad version", `{"jsonrpc":"1.0","id":7,"method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid JSON-RPC version"}}`}},
		{"missing version", `{"id":"q","method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"message":"invalid JSON-RPC version"}}`}},
		{"numeric version", `{"jsonrpc":2.0,"id":8,"method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid JSON-RPC version"}}`}},
		{"non-string method", `{"jsonrpc":"2.0","id":3,"method":5}`,
			[]string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: method must be a string"}}`}},
		{"missing method", `{"jsonrpc":"2.0","id":4}`,
			[]string{`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request: missing method"}}`}},
		{"object id refused", `{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string, number or null"}}`}},
		{"batch refused", `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: frame is not a JSON object"}}`}},
		{"scalar refused", `42`,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: frame is not a JSON object"}}`}},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"nope"}`,
			[]string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found","data":{"method":"nope"}}}`}},
		{"invalid params", `{"jsonrpc":"2.0","id":6,"method":"add","params":{"a":"x"}}`,
			[]string{`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"invalid params: json: cannot unmarshal string into Go struct field addParams.A of type int"}}`}},
		{"unknown params fields ignored", `{"jsonrpc":"2.0","id":6,"method":"add","params":{"a":1,"zzz":true}}`,
			[]string{`{"jsonrpc":"2.0","id":6,"result":1}`}},
		{"wrapped app error keeps code and data", `{"jsonrpc":"2.0","id":9,"method":"fail"}`,
			[]string{`{"jsonrpc":"2.0","id":9,"error":{"code":-32004,"message":"unknown value ref","data":{"ref":"out:9"}}}`}},
		{"plain error is internal", `{"jsonrpc":"2.0","id":10,"method":"oops"}`,
			[]string{`{"jsonrpc":"2.0","id":10,"error":{"code":-32603,"message":"disk on fire"}}`}},
		{"panic is internal", `{"jsonrpc":"2.0","id":11,"method":"panic"}`,
			[]string{`{"jsonrpc":"2.0","id":11,"error":{"code":-32603,"message":"internal error"}}`}},
		{"typed nil error is success", `{"jsonrpc":"2.0","id":14,"method":"typednil"}`,
			[]string{`{"jsonrpc":"2.0","id":14,"result":"fine"}`}},
		{"no html escaping", `{"jsonrpc":"2.0","id":12,"method":"html"}`,
			[]string{`{"jsonrpc":"2.0","id":12,"result":{"render":"<a> & <b>"}}`}},
		{"crlf and blank lines", "\r\n\n  \n{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"add\"}\r\n",
			[]string{`{"jsonrpc":"2.0","id":13,"result":0}`}},
		{"member names are case-sensitive", `{"jsonrpc":"2.0","ID":1,"method":"add"}`, nil},
		{"misspelled method member", `{"jsonrpc":"2.0","id":1,"Method":"add"}`,
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: missing method"}}`}},
		{"stray response dropped", `{"jsonrpc":"2.0","id":99,"result":1}`, nil},
		{"broken response dropped", `{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"}}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := serveLines(t, tc.in+"\n", nil)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			for _, line := range got {
				if !json.Valid([]byte(line)) {
					t.Errorf("reply is not valid JSON: %s", line)
				}
			}
		})
	}
}

// Bad lines interleaved with good ones: every line is answered in order, nothing closes the
// connection, and the ids of the good lines come back untouched.
func TestBadLinesInterleaved(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":1}}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":2,"method":"add","params":{"a":2,"b":2}}`,
		`{"jsonrpc":"1.0","id":3,"method":"add"}`,
		`{"jsonrpc":"2.0","id":"four","method":"add","params":{"a":4}}`,
		`{"jsonrpc":"2.0","method":"add"}`,
		`{"jsonrpc":"2.0","id":5,"method":"missing"}`,
		`{"jsonrpc":"2.0","id":6,"method":"add","params":{"a":6}}`,
	}, "\n")
	got := serveLines(t, in, nil) // last line has no newline: still a frame
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":2}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":{"detail":"invalid character 'o' in literal null (expecting 'u')"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":4}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid JSON-RPC version"}}`,
		`{"jsonrpc":"2.0","id":"four","result":4}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found","data":{"method":"missing"}}}`,
		`{"jsonrpc":"2.0","id":6,"result":6}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

func TestOversizeFrameAnsweredThenClosed(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":1,"method":"add"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"echo","params":"` + strings.Repeat("a", 2000) + `"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"add"}` + "\n"
	got := serveLines(t, in, &Options{MaxFrame: 1024})
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":0}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"frame exceeds 1 KiB"}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// A frame of exactly the cap is accepted; one byte more is not.
func TestFrameCapBoundary(t *testing.T) {
	t.Parallel()
	prefix, suffix := `{"jsonrpc":"2.0","id":1,"method":"echo","params":"`, `"}`
	const max = 4096
	fill := max - len(prefix) - len(suffix)
	exact := prefix + strings.Repeat("b", fill) + suffix
	if got := serveLines(t, exact+"\n", &Options{MaxFrame: max}); len(got) != 1 || !strings.Contains(got[0], `"result":"bbb`) {
		t.Fatalf("frame of exactly the cap: got %.80q", got)
	}
	over := prefix + strings.Repeat("b", fill+1) + suffix
	got := serveLines(t, over+"\n", &Options{MaxFrame: max})
	if len(got) != 1 || !strings.Contains(got[0], `"message":"frame exceeds 4 KiB"`) {
		t.Fatalf("frame one byte over the cap: got %.200q", got)
	}
}

// socketPair returns two connected Unix stream sockets.
func socketPair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(fd int, name string) net.Conn {
		f := os.NewFile(uintptr(fd), name)
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := mk(fds[0], "a"), mk(fds[1], "b")
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// startConn runs c in the background and fails the test if Run does not return by cleanup.
// readLines reads n frames, trimmed, failing the test on a read error.
func readLines(t *testing.T, br *bufio.Reader, n int) []string {
	t.Helper()
	var got []string
	for range n {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimSpace(line))
	}
	return got
}

func startConn(t testing.TB, c *Conn) {
	t.Helper()
	go func() { _ = c.Run(context.Background()) }()
	t.Cleanup(func() {
		c.Close()
		select {
		case <-c.Done():
		case <-time.After(testTimeout):
			t.Errorf("connection did not stop")
		}
	})
}

// Many goroutines write notifications while requests are answered: every frame arrives whole.
func TestConcurrentWritersFramesStayWhole(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	const writers, each = 8, 200
	r := NewRouter()
	r.Register("burst", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		conn := ConnFromContext(ctx)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					payload := map[string]any{"w": w, "i": i, "pad": strings.Repeat("x", 100*(i%7))}
					if err := conn.Notify("event", payload); err != nil {
						t.Errorf("notify: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		return "done", nil
	}))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)

	if _, err := io.WriteString(b, `{"jsonrpc":"2.0","id":"b","method":"burst"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	b.SetReadDeadline(time.Now().Add(testTimeout))
	sc := bufio.NewScanner(b)
	sc.Buffer(nil, 1<<20)
	seen := map[[2]int]bool{}
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage
			Method string
			Result string
			Params struct{ W, I int }
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("torn frame %q: %v", sc.Text(), err)
		}
		if m.Method == "event" {
			seen[[2]int{m.Params.W, m.Params.I}] = true
			continue
		}
		if string(m.ID) != `"b"` || m.Result != "done" {
			t.Fatalf("unexpected frame %s", sc.Text())
		}
		break
	}
	if len(seen) != writers*each {
		t.Fatalf("got %d distinct notifications before the response, want %d (scan err %v)", len(seen), writers*each, sc.Err())
	}
}

// A client Call demultiplexes responses by id while the server interleaves notifications, and
// the notifications reach the client's handler.
func TestClientCallDemux(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	r := NewRouter()
	type sq struct{ N int }
	r.Register("square", Typed(func(ctx context.Context, req *Request, p sq) (int, error) {
		conn := ConnFromContext(ctx)
		for i := range 3 {
			if err := conn.Notify("progress", map[string]int{"n": p.N, "step": i}); err != nil {
				return 0, err
			}
		}
		// Later calls finish first, so responses arrive out of order.
		time.Sleep(time.Duration(50-p.N) * 100 * time.Microsecond)
		return p.N * p.N, nil
	}))
	r.Register("bad", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return nil, NewError(CodeInvalidParams, "nope", map[string]int{"x": 1})
	}))
	server := NewConn(a, a, &Options{Handler: r, Mode: ModeConcurrent, Logger: quietLogger()})
	startConn(t, server)

	var mu sync.Mutex
	notes := map[int]int{}
	client := NewConn(b, b, &Options{Logger: quietLogger(), Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p struct{ N, Step int }
		if err := json.Unmarshal(req.Params, &p); err != nil || req.Method != "progress" || !req.IsNotification() {
			t.Errorf("unexpected incoming %s %s", req.Method, req.Params)
		}
		mu.Lock()
		notes[p.N]++
		mu.Unlock()
		return nil, nil
	})})
	startConn(t, client)

	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for n := range 50 {
		wg.Go(func() {
			var got int
			if err := client.Call(ctx, "square", sq{N: n}, &got); err != nil {
				t.Errorf("call %d: %v", n, err)
				return
			}
			if got != n*n {
				t.Errorf("call %d got %d, want %d", n, got, n*n)
			}
		})
	}
	wg.Wait()

	err := client.Call(ctx, "bad", nil, nil)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeInvalidParams || string(rpcErr.Data) != `{"x":1}` {
		t.Fatalf("error call: got %v", err)
	}
	err = client.Call(ctx, "nope", nil, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeMethodNotFound {
		t.Fatalf("unknown method call: got %v", err)
	}

	// Each notification was read before its call's response, but the client handles them on
	// its worker goroutine, so wait (bounded) for that worker to catch up.
	deadline := time.Now().Add(testTimeout)
	for {
		mu.Lock()
		total := 0
		for _, v := range notes {
			total += v
		}
		mu.Unlock()
		if total == 150 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("client saw %d notifications, want 150", total)
		}
		time.Sleep(time.Millisecond)
	}
}

// In-order mode: a second request waits for the first, but Notify still flows meanwhile.
func TestInOrderMode(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	release := make(chan struct{})
	r := NewRouter()
	r.Register("block", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if err := ConnFromContext(ctx).Notify("event", "blocked"); err != nil {
			return nil, err
		}
		<-release
		return "unblocked", nil
	}))
	r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "pong", nil }))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)

	io.WriteString(b, `{"jsonrpc":"2.0","id":1,"method":"block"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	line, err := br.ReadString('\n')
	if err != nil || line != `{"jsonrpc":"2.0","method":"event","params":"blocked"}`+"\n" {
		t.Fatalf("first frame %q, %v", line, err)
	}
	// Nothing else may arrive while block runs: ping is queued behind it.
	b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if line, err := br.ReadString('\n'); err == nil {
		t.Fatalf("ping answered before block finished: %q", line)
	}
	close(release)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	got := readLines(t, br, 2)
	want := []string{`{"jsonrpc":"2.0","id":1,"result":"unblocked"}`, `{"jsonrpc":"2.0","id":2,"result":"pong"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Concurrent mode: a cancellation notification reaches a running call, and other calls are
// answered while it runs.
func TestConcurrentModeCancel(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	started := make(chan struct{})
	r := NewRouter()
	r.Register("tools/call", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return "cancelled: " + ctx.Err().Error(), nil
	}))
	r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return map[string]any{}, nil }))
	r.Register("notifications/cancelled", Typed(func(ctx context.Context, req *Request, p struct {
		RequestID json.RawMessage `json:"requestId"`
	}) (any, error) {
		if !ConnFromContext(ctx).CancelRequest(p.RequestID) {
			t.Errorf("request %s not found", p.RequestID)
		}
		return nil, nil
	}))
	server := NewConn(a, a, &Options{Handler: r, Mode: ModeConcurrent, Logger: quietLogger()})
	startConn(t, server)

	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	io.WriteString(b, `{"jsonrpc":"2.0","id":"call-1","method":"tools/call"}`+"\n")
	select {
	case <-started:
	case <-time.After(testTimeout):
		t.Fatal("call did not start")
	}
	io.WriteString(b, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	line, _ := br.ReadString('\n')
	if strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("ping during a running call: %q", line)
	}
	io.WriteString(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-1"}}`+"\n")
	line, _ = br.ReadString('\n')
	if strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":"call-1","result":"cancelled: context canceled"}` {
		t.Fatalf("cancelled call: %q", line)
	}
}

// The connection context ends when the peer goes away, reaching a running handler.
func TestDisconnectCancelsContext(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	started, ended := make(chan struct{}), make(chan error, 1)
	r := NewRouter()
	r.Register("wait", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}))
	server := NewConn(a, a, &Options{Handler: r, CancelOnEOF: true, Logger: quietLogger()})
	startConn(t, server)
	io.WriteString(b, `{"jsonrpc":"2.0","id":1,"method":"wait"}`+"\n")
	select {
	case <-started:
	case <-time.After(testTimeout):
		t.Fatal("handler did not start")
	}
	b.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler context ended with %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("handler context not cancelled on disconnect")
	}
	select {
	case <-server.Done():
	case <-time.After(testTimeout):
		t.Fatal("Run did not return after disconnect")
	}
	if server.Context().Err() == nil {
		t.Fatal("connection context still live")
	}
}

// Without CancelOnEOF, requests read before a half-close are still answered.
func TestHalfCloseDrains(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	server := NewConn(a, a, &Options{Handler: testRouter(), Logger: quietLogger()})
	startConn(t, server)
	for i := range 3 {
		fmt.Fprintf(b, `{"jsonrpc":"2.0","id":%d,"method":"add","params":{"a":%d}}`+"\n", i, i)
	}
	b.(*net.UnixConn).CloseWrite()
	b.SetReadDeadline(time.Now().Add(testTimeout))
	out, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":0,"result":0}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":1}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":2}` + "\n"
	if string(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// Pending Calls fail with ErrClosed when the peer disappears instead of hanging.
func TestCallFailsWhenPeerCloses(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	client := NewConn(b, b, &Options{Logger: quietLogger()})
	startConn(t, client)
	errc := make(chan error, 1)
	go func() { errc <- client.Call(t.Context(), "never", nil, nil) }()
	br := bufio.NewReader(a)
	a.SetReadDeadline(time.Now().Add(testTimeout))
	if line, err := br.ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","id":1,"method":"never"}`+"\n" {
		t.Fatalf("request frame %q, %v", line, err)
	}
	a.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("got %v, want ErrClosed", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Call hung after peer closed")
	}
	if err := client.Call(t.Context(), "late", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after close: %v", err)
	}
}

// A Call whose context ends returns at once; the late response is dropped harmlessly.
func TestCallContextCancelled(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	release := make(chan struct{})
	r := NewRouter()
	r.Register("slow", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { <-release; return 1, nil }))
	r.Register("fast", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return 2, nil }))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)
	client := NewConn(b, b, &Options{Logger: quietLogger()})
	startConn(t, client)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := client.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	close(release)
	var got int
	if err := client.Call(t.Context(), "fast", nil, &got); err != nil || got != 2 {
		t.Fatalf("next call after a dropped response: %d, %v", got, err)
	}
}

func TestRouterRegisterTwicePanics(t *testing.T) {
	t.Parallel()
	r := NewRouter()
	r.Register("a", testRouter())
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate registration did not panic")
		}
	}()
	r.Register("a", testRouter())
}

func TestRouterFallbackAndMethods(t *testing.T) {
	t.Parallel()
	r := NewRouter()
	r.Register("b", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "b", nil }))
	r.Register("a", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "a", nil }))
	if diff := cmp.Diff([]string{"a", "b"}, r.Methods()); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	r.Fallback(HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "fallback:" + req.Method, nil }))
	got := serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"zzz"}`+"\n", &Options{Handler: r})
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","id":1,"result":"fallback:zzz"}`}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Concurrent mode runs at most MaxConcurrent requests at once; the rest wait to be read.
func TestConcurrentModeBounded(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	var mu sync.Mutex
	running, peak := 0, 0
	release := make(chan struct{})
	r := NewRouter()
	r.Register("work", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return "ok", nil
	}))
	server := NewConn(a, a, &Options{Handler: r, Mode: ModeConcurrent, MaxConcurrent: 3, Logger: quietLogger()})
	startConn(t, server)
	for i := range 10 {
		fmt.Fprintf(b, `{"jsonrpc":"2.0","id":%d,"method":"work"}`+"\n", i)
	}
	deadline := time.Now().Add(testTimeout)
	for {
		mu.Lock()
		n := running
		mu.Unlock()
		if n == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a fourth request, if the bound were broken, would start now
	close(release)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	br := bufio.NewReader(b)
	for range 10 {
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != 3 {
		t.Fatalf("peak concurrency %d, want 3", peak)
	}
}

// AnswerEarly on an in-order connection: the early result is the response, the requests behind
// it are served while the handler goes on, its own return is dropped, and Run does not wait
// for it once the input ends.
func TestAnswerEarlyInOrder(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	release := make(chan struct{})
	returned := make(chan bool, 1)
	r := NewRouter()
	r.Register("long", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if !AnswerEarly(ctx, "handed off") {
			t.Error("AnswerEarly = false while the handler runs")
		}
		if AnswerEarly(ctx, "twice") {
			t.Error("AnswerEarly answered twice")
		}
		<-release
		returned <- true
		return "late", nil
	}))
	r.Register("quick", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return "done", nil
	}))
	r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "pong", nil }))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)

	io.WriteString(b, `{"jsonrpc":"2.0","id":1,"method":"long"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	got := readLines(t, br, 2)
	want := []string{`{"jsonrpc":"2.0","id":1,"result":"handed off"}`, `{"jsonrpc":"2.0","id":2,"result":"pong"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	close(release)
	<-returned
	io.WriteString(b, `{"jsonrpc":"2.0","id":3,"method":"quick"}`+"\n")
	line, err := br.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":3,"result":"done"}` {
		t.Fatalf("after the early answer: %q, %v", line, err)
	}
	// The handler's late return was not written.
	b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if line, err := br.ReadString('\n'); err == nil {
		t.Fatalf("unexpected frame %q", line)
	}
}

// AnswerEarly after the handler returned, or outside a request, does nothing.
func TestAnswerEarlyAfterReturn(t *testing.T) {
	t.Parallel()
	if AnswerEarly(context.Background(), 1) {
		t.Fatal("AnswerEarly outside a request = true")
	}
	a, b := socketPair(t)
	ctxs := make(chan context.Context, 1)
	r := NewRouter()
	r.Register("quick", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		ctxs <- ctx
		return "done", nil
	}))
	startConn(t, NewConn(a, a, &Options{Handler: r, Logger: quietLogger()}))
	io.WriteString(b, `{"jsonrpc":"2.0","id":1,"method":"quick"}`+"\n")
	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	line, err := br.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":1,"result":"done"}` {
		t.Fatalf("%q, %v", line, err)
	}
	if AnswerEarly(<-ctxs, "late") {
		t.Fatal("AnswerEarly after the handler returned = true")
	}
}
