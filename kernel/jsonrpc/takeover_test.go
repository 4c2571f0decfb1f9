package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Back-to-back quick requests do not arm the takeover timer one by one: it is armed about
// once per takeoverAfter while they flow (each arming can wake an idle thread).
func TestTakeoverTimerNotArmedPerRequest(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	r := NewRouter()
	r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "pong", nil }))
	server := NewConn(a, a, &Options{Handler: r, Logger: quietLogger()})
	startConn(t, server)
	client := NewConn(b, b, &Options{Logger: quietLogger()})
	startConn(t, client)
	const n = 400
	start := time.Now()
	for range n {
		if err := client.Call(t.Context(), "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	limit := int64(elapsed/takeoverAfter) + 2
	if arms := server.arms.Load(); arms > limit || arms > n/4 {
		t.Fatalf("takeover armed %d times for %d requests in %v (want at most %d)", arms, n, elapsed, min(limit, n/4))
	}
}

// A long request is still taken over by the timer right after a burst of quick ones (the
// timer armed by the burst) and after an idle spell (the timer unarmed): the end of input
// behind it is read, which cancels it.
func TestTakeoverAfterBurstAndIdle(t *testing.T) {
	t.Parallel()
	for _, pause := range []time.Duration{0, 20 * takeoverAfter} {
		a, b := socketPair(t)
		r := NewRouter()
		r.Register("ping", HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "pong", nil }))
		r.Register("wait", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			select {
			case <-ctx.Done():
				return "cancelled", nil
			case <-time.After(testTimeout):
				return "timed out", nil
			}
		}))
		startConn(t, NewConn(a, a, &Options{Handler: r, CancelOnEOF: true, Logger: quietLogger()}))
		br := bufio.NewReader(b)
		b.SetReadDeadline(time.Now().Add(testTimeout))
		var in strings.Builder
		for i := range 50 {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		}
		io.WriteString(b, in.String())
		readLines(t, br, 50)
		time.Sleep(pause)
		io.WriteString(b, `{"jsonrpc":"2.0","id":"w","method":"wait"}`+"\n")
		b.(*net.UnixConn).CloseWrite() // seen only by a reader that is not serving "wait"
		if got := readLines(t, br, 1)[0]; got != `{"jsonrpc":"2.0","id":"w","result":"cancelled"}` {
			t.Fatalf("pause %v: long request ended %s", pause, got)
		}
	}
}

// AnswerAfter answers a request still running after d, from the reader's takeover for a
// request the reader serves, and at once for d under takeoverAfter; a handler that returns
// first answers itself and no second frame follows.
func TestAnswerAfter(t *testing.T) {
	t.Parallel()
	if stop := AnswerAfter(context.Background(), 0, 1); stop == nil {
		t.Fatal("AnswerAfter outside a request returned nil")
	} else {
		stop()
	}
	a, b := socketPair(t)
	release := make(chan struct{})
	r := NewRouter()
	r.Register("slow", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var d time.Duration
		fmt.Sscan(strings.Trim(string(req.Params), "[]"), &d)
		stop := AnswerAfter(ctx, d, "handle")
		defer stop()
		<-release
		return "result", nil
	}))
	r.Register("quick", HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		stop := AnswerAfter(ctx, 5*takeoverAfter, "handle")
		stop()
		return "result", nil
	}))
	startConn(t, NewConn(a, a, &Options{Handler: r, Logger: quietLogger()}))
	br := bufio.NewReader(b)
	for _, d := range []time.Duration{0, takeoverAfter / 2, 10 * takeoverAfter, 50 * takeoverAfter} {
		b.SetReadDeadline(time.Now().Add(testTimeout))
		start := time.Now()
		fmt.Fprintf(b, `{"jsonrpc":"2.0","id":1,"method":"slow","params":[%d]}`+"\n", d)
		line, err := br.ReadString('\n')
		took := time.Since(start)
		if err != nil || strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":1,"result":"handle"}` {
			t.Fatalf("d=%v: %q, %v", d, line, err)
		}
		if took < d {
			t.Fatalf("d=%v: answered after %v", d, took)
		}
		release <- struct{}{} // the handler returns; its result is discarded
	}
	for range 20 {
		fmt.Fprintf(b, `{"jsonrpc":"2.0","id":2,"method":"quick"}`+"\n")
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != `{"jsonrpc":"2.0","id":2,"result":"result"}` {
			t.Fatalf("quick: %q, %v", line, err)
		}
	}
	b.SetReadDeadline(time.Now().Add(10 * takeoverAfter))
	if line, err := br.ReadString('\n'); err == nil {
		t.Fatalf("unexpected frame %q", line)
	}
}
