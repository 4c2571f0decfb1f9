package kernel_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
)

// A client publish on user.* reaches the session's language channel (latest, take, events,
// on) without echo; a language emit on user.* is published on the kernel channel as the wire
// value; other language channels stay session-local.
func TestEventsLanguageBridge(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	mustExec(t, k, `let seen = channel("user.seen")
let h = on(channel("user.in"), ev => seen.emit(ev.payload.n * 10))`)

	if _, err := k.Client.EventsPublish(ctx, "user.in", map[string]int{"n": 4}); err != nil {
		t.Fatal(err)
	}
	v, err := k.Run(`channel("user.in").latest()`)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := v.(*value.Record); !ok || value.Display(r) != value.Display(value.NewRecord([]string{"n"}, []value.Value{value.Int(4)})) {
		t.Fatalf("latest = %v", value.Display(v))
	}
	// No echo: the kernel channel holds only the client's event.
	rd, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "user.in"})
	if err != nil || len(rd.Events) != 1 {
		t.Fatalf("user.in = %+v, %v", rd, err)
	}
	// The on handler's emit on user.seen went to the kernel as a wire int.
	deadline := time.Now().Add(10 * time.Second)
	for {
		rd, err = k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "user.seen"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rd.Events) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("user.seen = %+v", rd.Events)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if w, err := kernel.DecodeWire(rd.Events[0].Payload); err != nil || value.Display(w) != "40" {
		t.Fatalf("user.seen payload = %s", rd.Events[0].Payload)
	}

	// take(timeout:) sees a publish made while it waits (from a second connection).
	c2 := k.Dial()
	k.AttachClient(c2, "default")
	done := make(chan error, 1)
	var got proto.ExecResult
	go func() {
		src := `channel("user.go").take(timeout: 5s)`
		var err error
		got, err = k.Client.Exec(ctx, proto.ExecParams{Src: &src})
		done <- err
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			break wait
		case <-tick.C:
			if _, err := c2.EventsPublish(ctx, "user.go", json.RawMessage(`"go"`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w, err := kernel.DecodeWire(got.Value); err != nil || value.Display(w) != "go" {
		t.Fatalf("take = %s", got.Value)
	}
	v, err = k.Run(`channel("user.go").events().take(1).map(e => e.payload).collect()`)
	if err != nil || value.Display(v) != `["go"]` {
		t.Fatalf("events = %v, %v", v, err)
	}

	// Language emit: records travel as their wire value; local channels never leave.
	mustExec(t, k, `channel("user.out").emit({a: 1, b: [true]}); channel("local").emit(1)`)
	rd, err = k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "user.out"})
	if err != nil || len(rd.Events) != 1 {
		t.Fatalf("user.out = %+v, %v", rd, err)
	}
	if w, err := kernel.DecodeWire(rd.Events[0].Payload); err != nil || value.Display(w.(*value.Record).Vals[0]) != "1" {
		t.Fatalf("user.out payload = %s", rd.Events[0].Payload)
	}
	rd, err = k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "local"})
	if err == nil && len(rd.Events) != 0 {
		t.Fatalf("local channel leaked: %+v", rd.Events)
	}
	// The emitter's own language channel has it once (no echo back from the kernel).
	v, err = k.Run(`channel("user.out").latest().a`)
	if err != nil || value.Display(v) != "1" {
		t.Fatalf("own latest = %v, %v", v, err)
	}
}
