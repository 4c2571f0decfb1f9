package journal

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/journal/cas"
)

// BenchmarkBeginFinish measures sustained Begin+Finish pairs (with one output row each) from
// 4 goroutines, the kernel's write pattern. Target: >= 5,000 pairs/s.
func BenchmarkBeginFinish(b *testing.B) {
	j, _ := openJournal(b, &Options{NoSyncBlobs: true})
	ctx := context.Background()
	out := Output{Kind: OutputValue, Hash: cas.Sum([]byte("42")), Len: 2}
	start := ExecStart{Session: "s", Principal: "uid:0", Src: "echo hi", AST: json.RawMessage(`{"t":"cmd"}`),
		Cwd: []byte("/tmp"), Effects: json.RawMessage(`[{"kind":"proc_spawn","argv0":"echo"}]`)}
	inParallel(b, "pairs/s", func() error {
		id, err := j.Begin(ctx, start)
		if err != nil {
			return err
		}
		return j.Finish(ctx, id, ExecFinish{OK: true, Status: new(int), DurNs: 1, Outputs: []Output{out}})
	})
}

// BenchmarkAppendEvent measures durable event appends from one goroutine.
func BenchmarkAppendEvent(b *testing.B) {
	j, _ := openJournal(b, nil)
	ctx := context.Background()
	payload := json.RawMessage(`{"entry_id":1,"head":"echo","ok":true,"principal":"uid:0"}`)
	for b.Loop() {
		if _, err := j.AppendEvent(ctx, ChannelJournal, 0, payload, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBeginQueueFinish is the kernel's exec pattern since the combined write: Begin, then
// one QueueFinish with two output rows and the journal and session.transcript events, from 4
// goroutines. Target: >= 5,000 execs/s with room for the kernel's own work.
func BenchmarkBeginQueueFinish(b *testing.B) {
	j, _ := openJournal(b, &Options{NoSyncBlobs: true})
	ctx := context.Background()
	outs := []Output{{Kind: OutputValue, Hash: cas.Sum([]byte("3")), Len: 1}, {Kind: OutputRender, Hash: cas.Sum([]byte("3\n")), Len: 2}}
	start := ExecStart{Session: "s", Principal: "uid:0", Src: "1 + 2", AST: json.RawMessage(`{"t":"bin"}`), Cwd: []byte("/tmp")}
	jp := json.RawMessage(`{"entry_id":1,"head":"1","ok":true,"principal":"uid:0"}`)
	tp := json.RawMessage(`{"n":1,"ref":"out:1","summary":{"type":"int"}}`)
	inParallel(b, "execs/s", func() error {
		id, err := j.Begin(ctx, start)
		if err != nil {
			return err
		}
		p, err := j.QueueFinish(ctx, id, &ExecFinish{OK: true, Status: new(int), DurNs: 1, Outputs: outs},
			[]EventAppend{{Channel: ChannelJournal, EntryID: id, Payload: jp}, {Channel: ChannelTranscript, EntryID: id, Payload: tp}})
		if err == nil {
			_, err = p.Wait()
		}
		return err
	})
}

// inParallel runs b.N calls of one from 4 goroutines (the kernel's write pattern) and reports
// their rate as unit.
func inParallel(b *testing.B, unit string, one func() error) {
	const goroutines = 4
	b.ResetTimer()
	t0 := time.Now()
	var wg sync.WaitGroup
	per := b.N/goroutines + 1
	for range goroutines {
		wg.Go(func() {
			for range per {
				if err := one(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(per*goroutines)/time.Since(t0).Seconds(), unit)
}
