package kernel_test

import (
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// stream.pull pages through a stored stream value.
func TestStreamPull(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("(0..5).stream()"), Position: "value"})
	if err != nil {
		t.Fatal(err)
	}
	if v := obj(t, res.Value); v["$"] != "stream" {
		t.Fatalf("value = %s", res.Value)
	}
	var first, rest proto.StreamPullResult
	if err := k.Client.Call(ctx, proto.MethodStreamPull, proto.StreamPullParams{Ref: res.Ref, MaxItems: ptr(2)}, &first); err != nil {
		t.Fatal(err)
	}
	if len(first.Items) != 2 || string(first.Items[1]) != `{"$":"int","v":1}` || first.Done {
		t.Fatalf("first pull = %+v", first)
	}
	if err := k.Client.Call(ctx, proto.MethodStreamPull, proto.StreamPullParams{Ref: "it", MaxItems: ptr(10)}, &rest); err != nil {
		t.Fatal(err)
	}
	if len(rest.Items) != 3 || !rest.Done || string(rest.Items[0]) != `{"$":"int","v":2}` {
		t.Fatalf("second pull = %+v", rest)
	}
	mustExec(t, k, "1")
	err = k.Client.Call(ctx, proto.MethodStreamPull, proto.StreamPullParams{Ref: "it"}, &rest)
	wantCode(t, err, proto.CodeBadPathOrSlice)
}

// Subscribing with since replays durable history first, then goes live.
func TestSubscribeReplay(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: t.TempDir()}})
	ctx := ctxT(t)
	for range 3 {
		mustExec(t, k, "1 + 1")
	}
	got := make(chan proto.Event, 16)
	c := k.Dial()
	c.SetOnEvent(func(ev proto.Event) { got <- ev })
	k.AttachClient(c, "default")
	if _, err := c.EventsSubscribe(ctx, proto.EventsSubscribeParams{Channel: proto.ChannelJournal, Since: ptr(uint64(0))}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, k, "2 + 2")
	for want := uint64(1); want <= 3; want++ {
		select {
		case ev := <-got:
			if ev.Seq != want || ev.Channel != proto.ChannelJournal {
				t.Fatalf("event %d = %+v", want, ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("missing event %d", want)
		}
	}
	// Blob ranges page through any output.
	rows, _ := k.Client.JournalQuery(ctx, proto.JournalQueryParams{Limit: 1})
	h := rows[0].Outputs[0].Hash
	b, err := k.Client.BlobGet(ctx, proto.BlobGetParams{Hash: h, Offset: ptr(int64(1)), Length: ptr(int64(3))})
	if err != nil {
		t.Fatal(err)
	}
	if v := obj(t, b.Value); v["$"] != "bytes" || v["offset"] != float64(1) || v["v"] != "IiQi" {
		t.Fatalf("blob range = %s", b.Value)
	}
}
