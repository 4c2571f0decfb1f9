package kernel_test

import (
	"fmt"
	"testing"

	"github.com/shoal-sh/shoal/kernel/proto"
)

// Every task publishes on its own task.N channel; the channel lives as long as the task is
// retained (events.read works) and goes when the task is evicted, so 10,000 tasks do not
// leave 10,000 channels behind.
func TestTaskChannelsEvicted(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	n := 10_000
	if raceEnabled || testing.Short() {
		n = 1_500
	}
	base := k.Server.ChannelCount()
	var last string
	for i := range n {
		p := proto.ExecParams{Src: ptr("1"), TimeoutMs: ptr(int64(10_000))}
		if i%2 == 1 {
			p = proto.ExecParams{Src: ptr("1"), Async: true}
		}
		res, err := exec(t, k, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Task != "" {
			last = res.Task
			if _, err := k.Client.TaskAwait(ctx, res.Task, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The newest task is retained: its started and end events are still readable.
	r, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "task." + last[len("task:"):]})
	if err != nil || len(r.Events) != 2 {
		t.Fatalf("events.read of retained %s = %+v, %v", last, r, err)
	}
	// Reading an unknown ring channel does not create it.
	for i := range 100 {
		if _, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: fmt.Sprintf("task.%d", 1_000_000+i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got, limit := k.Server.ChannelCount(), base+2*256+16; got > limit {
		t.Fatalf("%d channels after %d tasks (base %d): task.N channels are not removed on eviction", got, n, base)
	}
	if list, err := k.Client.TaskList(ctx); err != nil || len(list) != 256 {
		t.Fatalf("task.list: %d, %v", len(list), err)
	}
	if got, limit := k.Server.ChannelCount(), base+256+16; got > limit {
		t.Fatalf("%d channels after task.list pruned to 256 tasks (base %d)", got, base)
	}
}
