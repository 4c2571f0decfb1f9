package journal

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
)

// Failing writes batched with good ones are rolled back alone: every good write commits, and
// no seq is consumed by a failed append.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	var wg sync.WaitGroup
	const workers, each = 8, 50
	var mu sync.Mutex
	var good []int64
	for range workers {
		wg.Go(func() {
			for range each {
				id, err := j.Begin(ctx, ExecStart{Src: "ok"})
				if err != nil {
					t.Error(err)
					return
				}
				// Fails inside the writer's transaction (unknown entry).
				if err := j.Finish(ctx, id+1_000_000, ExecFinish{OK: true}); !errors.Is(err, ErrNotFound) {
					t.Errorf("finish of unknown id: %v", err)
				}
				// Fails inside the transaction (foreign key) after consuming a seq there.
				if _, err := j.AppendEvent(ctx, ChannelJournal, id+1_000_000, json.RawMessage(`{}`), 1); err == nil {
					t.Error("event for a missing entry accepted")
				}
				if err := j.Finish(ctx, id, ExecFinish{OK: true}); err != nil {
					t.Error(err)
				}
				if _, err := j.AppendEvent(ctx, ChannelJournal, id, json.RawMessage(`{}`), 1); err != nil {
					t.Error(err)
				}
				mu.Lock()
				good = append(good, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(good) != workers*each {
		t.Fatalf("%d good writes", len(good))
	}
	for _, id := range good {
		e, err := j.Get(ctx, id)
		if err != nil || e.OK == nil || !*e.OK {
			t.Fatalf("entry %d: %+v, %v", id, e, err)
		}
	}
	evs, _ := j.EventsSince(ctx, ChannelJournal, -1, 0)
	if len(evs) != workers*each {
		t.Fatalf("%d events, want %d", len(evs), workers*each)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i) {
			t.Fatalf("seq %d at %d: a failed append consumed a seq", ev.Seq, i)
		}
	}
}

func TestWritesAfterCloseFail(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	j.Close()
	if _, err := j.Begin(context.Background(), ExecStart{Src: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Begin after Close: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestWriteHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Begin(ctx, ExecStart{Src: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin with a cancelled context: %v", err)
	}
	if got, _ := j.Query(context.Background(), Filter{}); len(got) != 0 {
		t.Fatal("cancelled Begin wrote a row")
	}
}

// The end of a cancelled exec is still journaled: Finish, its outputs and its event ignore
// the cancellation.
func TestFinishAfterCancellation(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	id, err := j.Begin(ctx, ExecStart{Src: "sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	o, err := j.PutBytes(ctx, OutputStderr, []byte("killed"))
	if err != nil {
		t.Fatalf("PutBytes after cancel: %v", err)
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: false, Outputs: []Output{o}}); err != nil {
		t.Fatalf("Finish after cancel: %v", err)
	}
	if _, err := j.AppendEvent(ctx, ChannelJournal, id, json.RawMessage(`{}`), 1); err != nil {
		t.Fatalf("AppendEvent after cancel: %v", err)
	}
	e, _ := j.Get(context.Background(), id)
	if e.OK == nil || *e.OK || len(e.Outputs) != 1 {
		t.Fatalf("entry %+v", e)
	}
}

// QueueFinish stores the finish and the events in one write: a refused finish (unknown entry)
// still stores the events, a failing event rolls the whole write back without consuming a
// seq, and seqs follow queue order.
func TestQueueFinish(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	id, err := j.Begin(ctx, ExecStart{Src: "1 + 2"})
	if err != nil {
		t.Fatal(err)
	}
	ev := func(ch string, entry int64) EventAppend {
		return EventAppend{Channel: ch, EntryID: entry, Payload: json.RawMessage(`{"n":1}`)}
	}
	p, err := j.QueueFinish(ctx, id, &ExecFinish{OK: true}, []EventAppend{ev(ChannelJournal, id), ev(ChannelTranscript, id)})
	if err != nil {
		t.Fatal(err)
	}
	if seqs, err := p.Wait(); err != nil || len(seqs) != 2 || seqs[0] != 0 || seqs[1] != 0 {
		t.Fatalf("wait = %v, %v", seqs, err)
	}
	if e, err := j.Get(ctx, id); err != nil || e.OK == nil || !*e.OK {
		t.Fatalf("entry = %+v, %v", e, err)
	}
	if tr, ok, err := j.TranscriptEvent(ctx, id); err != nil || !ok || string(tr) != `{"n":1}` {
		t.Fatalf("transcript event = %s, %v, %v", tr, ok, err)
	}
	// Finishing again is refused; the event is stored all the same.
	p, _ = j.QueueFinish(ctx, id, &ExecFinish{OK: true}, []EventAppend{ev(ChannelJournal, id)})
	if seqs, err := p.Wait(); !errors.Is(err, ErrAlreadyFinished) || len(seqs) != 1 || seqs[0] != 1 {
		t.Fatalf("second finish: %v, %v", seqs, err)
	}
	// An event for a missing entry refuses the write: nothing of it is stored, no seq is used.
	id2, _ := j.Begin(ctx, ExecStart{Src: "x"})
	if _, err := j.QueueFinish(ctx, id2, &ExecFinish{OK: true}, []EventAppend{ev(ChannelJournal, id2), ev(ChannelJournal, id2+1000)}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("write with a dangling event: %v", err)
	}
	if e, _ := j.Get(ctx, id2); e.OK != nil {
		t.Fatal("finish of a failed write was stored")
	}
	// Writes queued in order get seqs in order, though they share commits.
	var ps []*Pending
	for range 20 {
		p, err := j.QueueFinish(ctx, 0, nil, []EventAppend{ev(ChannelJournal, 0)})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for i, p := range ps {
		if seqs, err := p.Wait(); err != nil || seqs[0] != int64(2+i) {
			t.Fatalf("write %d: %v, %v", i, seqs, err)
		}
	}
}
