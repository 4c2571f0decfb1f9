package kernel_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Scenario 16: durable channels continue across a restart; ring-only channels restart at 0.
func TestDurableChannelsAcrossRestart(t *testing.T) {
	t.Parallel()
	n := 1100
	if testing.Short() {
		n = 120
	}
	state := t.TempDir()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: state}})
	ctx := ctxT(t)
	for i := range n {
		mustExec(t, k, fmt.Sprintf("%d + 1", i))
	}
	if p, err := k.Client.EventsPublish(ctx, "user.x", 1); err != nil || p.Seq != 0 {
		t.Fatalf("publish = %+v, %v", p, err)
	}
	k.Close()

	k2 := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: state}})
	rd, err := k2.Client.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelJournal, Since: ptr(uint64(10))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Events) != n-11 || rd.Events[0].Seq != 11 || rd.Events[len(rd.Events)-1].Seq != uint64(n-1) {
		t.Fatalf("journal since 10: %d events, first %d", len(rd.Events), rd.Events[0].Seq)
	}
	mustExec(t, k2, "1 + 2")
	rd, err = k2.Client.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelJournal, Limit: ptr(1)})
	if err != nil || len(rd.Events) != 1 || rd.Events[0].Seq != uint64(n) {
		t.Fatalf("next journal event = %+v, %v", rd, err)
	}
	tr, err := k2.Client.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelTranscript, Limit: ptr(1)})
	if err != nil || len(tr.Events) != 1 || tr.Events[0].Seq != uint64(n) {
		t.Fatalf("next transcript event = %+v, %v", tr, err)
	}
	if p, err := k2.Client.EventsPublish(ctx, "user.x", 1); err != nil || p.Seq != 0 {
		t.Fatalf("user channel after restart = %+v, %v", p, err)
	}
	// Transcripts do not survive a restart; the journal does.
	_, err = k2.Client.ValueGet(ctx, proto.ValueGetParams{Ref: fmt.Sprintf("out:%d", n)})
	wantCode(t, err, proto.CodeUnknownRef)
	rows, err := k2.Client.JournalQuery(ctx, proto.JournalQueryParams{Head: ptr("5")})
	if err != nil || len(rows) != 1 || rows[0].Src != "5 + 1" || rows[0].OK == nil || !*rows[0].OK {
		t.Fatalf("journal row for 5 + 1 = %+v, %v", rows, err)
	}
	// Its value output is readable by hash.
	var valueHash string
	for _, o := range rows[0].Outputs {
		if o.Kind == "value" {
			valueHash = o.Hash
		}
	}
	blob, err := k2.Client.BlobGet(ctx, proto.BlobGetParams{Hash: valueHash})
	if err != nil || string(blob.Value) != `{"$":"int","v":6}` {
		t.Fatalf("blob.get = %s, %v", blob.Value, err)
	}
	_, err = k2.Client.BlobGet(ctx, proto.BlobGetParams{Hash: "../../etc/passwd"})
	wantCode(t, err, proto.CodeUnknownRef)
}

// journal.query applies every filter before the limit and returns newest first.
func TestJournalQueryFiltersBeforeLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		state bool
	}{{"memory", false}, {"sqlite", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ko := &kernel.Options{}
			if tc.state {
				ko.StateDir = t.TempDir()
			}
			k := newKernel(t, &kerneltest.Options{Kernel: ko})
			ctx := ctxT(t)
			mustExec(t, k, "let x = 1")
			for range 5 {
				mustExec(t, k, "1 + 1")
			}
			rows, err := k.Client.JournalQuery(ctx, proto.JournalQueryParams{Head: ptr("let"), Limit: 1})
			if err != nil || len(rows) != 1 || rows[0].Src != "let x = 1" {
				t.Fatalf("head let limit 1 = %+v, %v", rows, err)
			}
			rows, err = k.Client.JournalQuery(ctx, proto.JournalQueryParams{Limit: 2})
			if err != nil || len(rows) != 2 || rows[0].ID <= rows[1].ID {
				t.Fatalf("newest first = %+v, %v", rows, err)
			}
			_, err = exec(t, k, proto.ExecParams{Src: ptr("^false")})
			wantCode(t, err, proto.CodeRaised)
			rows, err = k.Client.JournalQuery(ctx, proto.JournalQueryParams{OK: ptr(false)})
			if err != nil || len(rows) != 1 || rows[0].Src != "^false" || rows[0].Status == nil || *rows[0].Status != 1 {
				t.Fatalf("ok:false = %+v, %v", rows, err)
			}
			all, err := k.Client.JournalQuery(ctx, proto.JournalQueryParams{})
			if err != nil || len(all) != 7 {
				t.Fatalf("all rows = %d, %v", len(all), err)
			}
		})
	}
}

// A clean shutdown finishes the journal rows of the evaluations it cancels.
func TestShutdownFinishesRows(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: state}})
	res, err := exec(t, k, proto.ExecParams{Src: ptr("sh { exec sleep 29.5 }"), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, k, res.Task, proto.TaskRunning)
	for deadline := time.Now().Add(10 * time.Second); findProc("sleep\x0029.5\x00") == 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never spawned")
		}
	}
	k.Close()
	k2 := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{StateDir: state}})
	rows, err := k2.Client.JournalQuery(ctxT(t), proto.JournalQueryParams{})
	if err != nil || len(rows) != 1 || rows[0].DurNs == nil || rows[0].OK == nil || *rows[0].OK {
		t.Fatalf("row after shutdown = %+v, %v", rows, err)
	}
}
