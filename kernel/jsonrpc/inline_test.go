package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// In-order requests stay strictly one after the other when a long one (served on the reader
// until another goroutine takes over reading) is followed by quick ones read meanwhile.
func TestInOrderAcrossReaderTakeover(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	var mu sync.Mutex
	var log []string
	running := 0
	step := func(name string, d time.Duration) (any, error) {
		mu.Lock()
		running++
		if running > 1 {
			t.Errorf("%s overlaps another request", name)
		}
		log = append(log, name)
		mu.Unlock()
		time.Sleep(d)
		mu.Lock()
		running--
		mu.Unlock()
		return name, nil
	}
	r := NewRouter()
	r.Register("slow", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return step("slow"+string(req.ID), 10*takeoverAfter)
	}))
	r.Register("quick", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return step("quick"+string(req.ID), 0)
	}))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)

	var in strings.Builder
	methods := []string{"slow", "quick", "quick", "slow", "quick", "quick"}
	for i, m := range methods {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":%q}`+"\n", i, m)
	}
	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(testTimeout))
	for round := range 2 { // the second round starts on an idle connection again
		io.WriteString(b, in.String())
		for i, m := range methods {
			line, err := br.ReadString('\n')
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s%d"}`, i, m, i)
			if err != nil || strings.TrimSpace(line) != want {
				t.Fatalf("round %d reply %d = %q, %v; want %s", round, i, line, err, want)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(log) != 2*len(methods) {
		t.Fatalf("ran %v", log)
	}
}

// A handler served on the reader that calls its peer gets the reply: calling hands the reading
// on at once instead of waiting for the takeover timer.
func TestInOrderHandlerCallsPeer(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	sr := NewRouter()
	sr.Register("ask", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var answer string
		start := time.Now()
		if err := ConnFromContext(ctx).Call(ctx, "question", nil, &answer); err != nil {
			return nil, err
		}
		if d := time.Since(start); d > testTimeout {
			return nil, fmt.Errorf("reply took %v", d)
		}
		return "peer said " + answer, nil
	}))
	server := NewConn(a, a, &Options{Handler: sr, Logger: quietLogger()})
	startConn(t, server)
	cr := NewRouter()
	cr.Register("question", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "42", nil }))
	client := NewConn(b, b, &Options{Handler: cr, Logger: quietLogger()})
	startConn(t, client)
	for range 3 {
		var got string
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		err := client.Call(ctx, "ask", nil, &got)
		cancel()
		if err != nil || got != "peer said 42" {
			t.Fatalf("ask = %q, %v", got, err)
		}
	}
}

// BenchmarkInOrderRoundTrip is one request and its reply over a socket pair on an in-order
// connection (the kernel's shape): the reader serves it without a hand-over.
func BenchmarkInOrderRoundTrip(b *testing.B) {
	sa, sb := socketPair(b)
	r := NewRouter()
	r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "pong", nil }))
	startConn(b, NewConn(sa, sa, &Options{Handler: r, Logger: quietLogger()}))
	client := NewConn(sb, sb, &Options{Logger: quietLogger()})
	startConn(b, client)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if err := client.Call(ctx, "ping", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
