package kernel_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Durable events of concurrent execs share journal commits but are still delivered in seq
// order, each once and with no gap, to a subscriber that replays from the journal while they
// are being published; and the stored history holds the same dense seqs.
func TestDurableEventsOrderedUnderConcurrency(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: t.TempDir()}})
	ctx := ctxT(t)
	const sessions, each = 4, 40
	var wg sync.WaitGroup
	for i := range sessions {
		c := k.Dial()
		k.AttachClient(c, fmt.Sprintf("s%d", i))
		wg.Go(func() {
			for n := range each {
				src := fmt.Sprintf("%d + %d", i, n)
				if _, err := c.Exec(ctx, proto.ExecParams{Src: &src}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// Subscribe mid-stream with a replay from the start.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		rd, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelJournal, Limit: ptr(1)})
		if err == nil && len(rd.Events) == 1 && rd.Events[0].Seq >= 20 {
			break
		}
	}
	sub := k.Dial()
	k.AttachClient(sub, "watcher")
	var mu sync.Mutex
	var got []uint64
	sub.SetOnEvent(func(ev proto.Event) {
		if ev.Channel == proto.ChannelJournal {
			mu.Lock()
			got = append(got, ev.Seq)
			mu.Unlock()
		}
	})
	if _, err := sub.EventsSubscribe(ctx, proto.EventsSubscribeParams{Channel: proto.ChannelJournal, Since: ptr(uint64(0))}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	want := sessions * each
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= want-1 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond) // a duplicate would arrive now
	mu.Lock()
	defer mu.Unlock()
	// since 0 is exclusive: seqs 1 … want-1, in order, each once.
	if len(got) != want-1 {
		t.Fatalf("%d journal events delivered, want %d: %v", len(got), want-1, got)
	}
	for i, seq := range got {
		if seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: %v", i, seq, got)
		}
	}
	for _, ch := range []string{proto.ChannelJournal} { // transcript events are only their session's
		rd, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: ch})
		if err != nil || len(rd.Events) != want {
			t.Fatalf("%s history: %d events, %v", ch, len(rd.Events), err)
		}
		for i, ev := range rd.Events {
			if ev.Seq != uint64(i) {
				t.Fatalf("%s history: event %d has seq %d", ch, i, ev.Seq)
			}
		}
	}
}
