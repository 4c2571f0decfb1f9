package kernel_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Scenario 14: publish rules, seq from 0, since exclusive, live delivery to a subscriber.
func TestEventsPublishSubscribe(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	_, err := k.Client.EventsPublish(ctx, "journal", map[string]int{"x": 1})
	e := wantCode(t, err, jsonrpc.CodeInvalidParams)
	if d := obj(t, e.Data); d["channel"] != "journal" {
		t.Errorf("data = %s", e.Data)
	}
	pub, err := k.Client.EventsPublish(ctx, "user.x", map[string]int{"n": 1})
	if err != nil || pub.Seq != 0 || pub.Channel != "user.x" || pub.Ts == 0 {
		t.Fatalf("publish = %+v, %v", pub, err)
	}
	rd, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "user.x", Since: ptr(uint64(0))})
	if err != nil || len(rd.Events) != 0 {
		t.Fatalf("read since 0 = %+v, %v", rd, err)
	}
	got := make(chan proto.Event, 4)
	c2 := k.Dial()
	c2.SetOnEvent(func(ev proto.Event) { got <- ev })
	k.AttachClient(c2, "default")
	sub, err := c2.EventsSubscribe(ctx, proto.EventsSubscribeParams{Channel: "user.x"})
	if err != nil || !sub.Subscribed {
		t.Fatalf("subscribe = %+v, %v", sub, err)
	}
	if _, err := k.Client.EventsPublish(ctx, "user.x", json.RawMessage(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Seq != 1 || ev.Channel != "user.x" || string(ev.Payload) != `{"n":2}` {
			t.Fatalf("pushed event = %+v %s", ev, ev.Payload)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event pushed")
	}
	// Unsubscribe stops delivery; another session's user.x is a different channel.
	if r, err := c2.EventsUnsubscribe(ctx, "user.x"); err != nil || r.Subscribed {
		t.Fatalf("unsubscribe = %+v, %v", r, err)
	}
	k.Client.EventsPublish(ctx, "user.x", 3)
	c3 := k.Dial()
	k.AttachClient(c3, "elsewhere")
	rd, err = c3.EventsRead(ctx, proto.EventsReadParams{Channel: "user.x"})
	if err != nil || len(rd.Events) != 0 {
		t.Fatalf("other session sees %+v, %v", rd, err)
	}
	select {
	case ev := <-got:
		t.Fatalf("event after unsubscribe: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	// limit keeps the newest.
	rd, err = k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "user.x", Limit: ptr(1)})
	if err != nil || len(rd.Events) != 1 || rd.Events[0].Seq != 2 {
		t.Fatalf("limit 1 = %+v, %v", rd, err)
	}
}

// Scenario 15: a subscriber that stops reading never slows the publisher; it later receives
// at most 256 queued events and then one gap event.
func TestStalledSubscriber(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	var mu sync.Mutex
	release := make(chan struct{})
	var seen []proto.Event
	stalled := k.Dial()
	stalled.SetOnEvent(func(ev proto.Event) {
		<-release // the client's reader blocks: the kernel's writes to it back up
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
	})
	k.AttachClient(stalled, "default")
	if _, err := stalled.EventsSubscribe(ctx, proto.EventsSubscribeParams{Channel: "user.flood"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var slowest time.Duration
	for i := range 2000 {
		t0 := time.Now()
		if _, err := k.Client.EventsPublish(ctx, "user.flood", i); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(t0))
	}
	total := time.Since(start)
	if slowest > time.Second {
		t.Errorf("a publish took %v with a stalled subscriber", slowest)
	}
	t.Logf("2000 publishes in %v (slowest %v)", total, slowest)
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		var last proto.Event
		if n > 0 {
			last = seen[n-1]
		}
		mu.Unlock()
		var gap proto.GapPayload
		if n > 0 && json.Unmarshal(last.Payload, &gap) == nil && gap.Dropped > 0 {
			// The kernel holds at most 256; the rest were already in flight: one in the
			// kernel's blocked write, and one in the pipe, the client reader's read-ahead of 64 and the one its handler holds.
			if n-1 > proto.SubscriberQueue+64+4 {
				t.Errorf("got %d events before the gap, want ≤ 256 + in-flight", n-1)
			}
			if gap.LatestSeq != 1999 || last.Seq != 1999 || uint64(n-1)+gap.Dropped != 2000 {
				t.Errorf("gap = %+v seq %d after %d events", gap, last.Seq, n-1)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no gap event; got %d events", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var _ = client.Options{}
