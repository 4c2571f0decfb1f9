package journal

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/journal/cas"
)

// encodeAll frames recs one after another, as the log holds them.
func encodeAll(t *testing.T, recs ...*redoRecord) []byte {
	t.Helper()
	var all []byte
	for _, r := range recs {
		b, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// writeRedo appends framed records to the redo log of the (closed) journal at path.
func writeRedo(t *testing.T, path string, recs ...*redoRecord) []byte {
	t.Helper()
	all := encodeAll(t, recs...)
	f, err := os.OpenFile(path+redoSuffix, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(all); err != nil {
		t.Fatal(err)
	}
	return all
}

// Records a crash left in the redo log are applied by the next Open, exactly once: those at
// or below the recorded position are skipped, and a torn tail is ignored.
func TestRedoReplayAfterCrash(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	done, err := j.Begin(ctx, ExecStart{Src: "done"})
	if err != nil {
		t.Fatal(err)
	}
	out := Output{Kind: OutputValue, Hash: cas.Sum([]byte("3")), Len: 1}
	if err := j.Finish(ctx, done, ExecFinish{OK: true, Outputs: []Output{out}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Get(ctx, done); err != nil { // settles: everything is applied
		t.Fatal(err)
	}
	applied := j.appliedLSN.Load()
	if applied < 2 {
		t.Fatalf("applied LSN %d after two records", applied)
	}
	j.Close()

	// What a kill -9 could leave: an already applied record (replaying it would duplicate the
	// output row), two new ones, and half of a third.
	old := &redoRecord{LSN: applied, ID: done, Finish: &ExecFinish{OK: true, Outputs: []Output{out}}}
	begin := &redoRecord{LSN: applied + 1, Begin: &redoBegin{ID: done + 1, Kind: KindExec, Session: "s",
		Principal: "uid:1", TS: 7, Cwd: []byte("/tmp"), Src: "echo hi", Head: "echo", AST: "null", Effects: "[]"}}
	end := &redoRecord{LSN: applied + 2, ID: done + 1, Finish: &ExecFinish{OK: true, Status: new(int), Outputs: []Output{out}},
		Events: []redoEvent{{Channel: ChannelJournal, Seq: 0, EntryID: done + 1, TS: 8, Payload: json.RawMessage(`{"x":1}`)}}}
	writeRedo(t, path, old, begin, end)
	torn, _ := encodeRecord(&redoRecord{LSN: applied + 3, Begin: &redoBegin{ID: done + 2, Kind: KindExec, Src: "lost"}})
	f, _ := os.OpenFile(path+redoSuffix, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(torn[:len(torn)-3])
	f.Close()

	j2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if fi, err := os.Stat(path + redoSuffix); err != nil || fi.Size() != 0 {
		t.Fatalf("redo log after recovery: %v, %v", fi, err)
	}
	e, err := j2.Get(ctx, done)
	if err != nil || len(e.Outputs) != 1 {
		t.Fatalf("applied record replayed again: %+v, %v", e, err)
	}
	e, err = j2.Get(ctx, done+1)
	if err != nil || e.Src != "echo hi" || e.OK == nil || !*e.OK || len(e.Outputs) != 1 {
		t.Fatalf("replayed entry: %+v, %v", e, err)
	}
	if _, err := j2.Get(ctx, done+2); err == nil {
		t.Fatal("torn record applied")
	}
	evs, _ := j2.EventsSince(ctx, ChannelJournal, -1, 0)
	if len(evs) != 1 || evs[0].EntryID != done+1 {
		t.Fatalf("events %+v", evs)
	}
	// Numbering continues after the replayed rows and events.
	id, err := j2.Begin(ctx, ExecStart{Src: "next"})
	if err != nil || id != done+2 {
		t.Fatalf("next id %d, %v", id, err)
	}
	if seq, _ := j2.NextSeq(ctx, ChannelJournal); seq != 1 {
		t.Fatalf("next seq %d", seq)
	}
	if res, err := j2.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("integrity %q, %v", res, err)
	}
}

// A record that can no longer be applied (here: its entry row is gone from a copied database)
// is skipped, so the journal still opens.
func TestRedoReplaySkipsBadRecord(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	j.Close()
	writeRedo(t, path,
		&redoRecord{LSN: 1, Events: []redoEvent{{Channel: ChannelJournal, EntryID: 99, TS: 1, Payload: json.RawMessage(`{}`)}}},
		&redoRecord{LSN: 2, Events: []redoEvent{{Channel: ChannelJournal, TS: 1, Payload: json.RawMessage(`{"ok":1}`)}}})
	j2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	evs, _ := j2.EventsSince(t.Context(), ChannelJournal, -1, 0)
	if len(evs) != 1 || string(evs[0].Payload) != `{"ok":1}` {
		t.Fatalf("events %+v", evs)
	}
}

// Reads see every acknowledged write at once, though the writer applies them later, and the
// log is emptied once it has grown past redoTruncateAt and everything in it is applied.
func TestRedoReadYourWritesAndTruncate(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	big := strings.Repeat("x", 1<<20)
	for i := range 6 {
		id, err := j.Begin(ctx, ExecStart{Src: big})
		if err != nil {
			t.Fatal(err)
		}
		p, err := j.QueueFinish(ctx, id, &ExecFinish{OK: true}, []EventAppend{{Channel: ChannelJournal, EntryID: id, Payload: json.RawMessage(`{}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		e, err := j.Get(ctx, id)
		if err != nil || e.OK == nil || len(e.Src) != len(big) {
			t.Fatalf("read %d after write: %v", i, err)
		}
		if evs, _ := j.EventsSince(ctx, ChannelJournal, -1, 0); len(evs) != i+1 {
			t.Fatalf("%d events after %d writes", len(evs), i+1)
		}
	}
	fi, err := os.Stat(path + redoSuffix)
	if err != nil || fi.Size() > redoTruncateAt {
		t.Fatalf("redo log not emptied: %v, %v", fi, err)
	}
	if fi, err := os.Stat(path + redoSuffix); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("redo log mode: %v, %v", fi, err)
	}
}

// Every field survives the binary encoding, and any damage to a record (a flipped bit, a cut)
// ends the log there instead of producing a wrong record.
func TestRedoCodecRoundTrip(t *testing.T) {
	t.Parallel()
	st := 3
	recs := []*redoRecord{
		{LSN: 1, Begin: &redoBegin{ID: 7, Kind: KindStmt, ParentID: 6, Session: "s", Principal: "agent:x", TS: -5,
			Cwd: []byte{0xff, '/'}, EnvHash: "abc", Src: "ls | head", Head: "ls", AST: `{"t":1}`, Effects: `[]`}},
		{LSN: 2, ID: 7, Finish: &ExecFinish{Status: &st, OK: false, DurNs: 99, Opaque: true, Meta: json.RawMessage(`{"a":1}`),
			Outputs: []Output{{Kind: OutputStdout, Hash: cas.Sum([]byte("x")), Len: 1, Meta: json.RawMessage(`{}`)}, {Kind: OutputValue, Hash: cas.Sum(nil)}}},
			Events: []redoEvent{{Channel: ChannelJournal, Seq: 4, EntryID: 7, TS: 1, Payload: json.RawMessage(`{"x":[1]}`)}, {Channel: ChannelTranscript, Payload: json.RawMessage(`1`)}},
			Blobs:  []redoBlob{{Hash: cas.Sum([]byte("x")), Data: []byte("x")}}},
		{LSN: 3, Events: []redoEvent{{Channel: ChannelJournal, Seq: 5, Payload: json.RawMessage(`null`)}}},
	}
	all := encodeAll(t, recs...)
	got := decodeRecords(all)
	want, _ := json.Marshal(recs)
	if have, _ := json.Marshal(got); string(have) != string(want) {
		t.Fatalf("round trip:\n got %s\nwant %s", have, want)
	}
	for i := range all {
		damaged := append([]byte{}, all...)
		damaged[i] ^= 0x20
		if n := len(decodeRecords(damaged)); n > 3 {
			t.Fatalf("flip at %d: %d records", i, n)
		}
		for _, r := range decodeRecords(damaged) {
			if b, _ := json.Marshal(r); !strings.Contains(string(want), string(b)) {
				t.Fatalf("flip at %d produced a record that was never written: %s", i, b)
			}
		}
		if n := len(decodeRecords(all[:i])); n >= 3 {
			t.Fatalf("cut at %d: %d records", i, n)
		}
	}
}

// FuzzRedoDecode: no input makes the log reader panic or loop, and whatever it accepts
// re-encodes to the same bytes.
func FuzzRedoDecode(f *testing.F) {
	for _, r := range []*redoRecord{
		{LSN: 1, Begin: &redoBegin{ID: 1, Kind: KindExec, Src: "1 + 2", AST: "null", Effects: "[]"}},
		{LSN: 2, ID: 1, Finish: &ExecFinish{OK: true, Outputs: []Output{{Kind: OutputValue, Hash: cas.Sum(nil), Len: 1}}},
			Events: []redoEvent{{Channel: ChannelJournal, Payload: json.RawMessage(`{}`)}}},
	} {
		b, _ := encodeRecord(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var n int
		for _, r := range decodeRecords(data) {
			b, err := encodeRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if n+len(b) > len(data) || string(data[n:n+len(b)]) != string(b) {
				t.Fatalf("record %d does not re-encode to its bytes", r.LSN)
			}
			n += len(b)
		}
	})
}

// The end of an exec logged while its Begin still waits in the writer's queue is merged into
// that write (the row is inserted finished); anything queued in between prevents the merge.
func TestRedoMergesBeginAndEnd(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, &Options{ApplyDelay: time.Hour})
	ctx := t.Context()
	out := Output{Kind: OutputValue, Hash: cas.Sum([]byte("3")), Len: 1}
	queued := func() []*writeOp {
		j.qmu.Lock()
		defer j.qmu.Unlock()
		return append([]*writeOp(nil), j.queue...)
	}
	id, _ := j.Begin(ctx, ExecStart{Src: "1 + 2"})
	p, err := j.QueueFinish(ctx, id, &ExecFinish{OK: true, Status: new(int), DurNs: 5, Outputs: []Output{out}},
		[]EventAppend{{Channel: ChannelJournal, EntryID: id, Payload: json.RawMessage(`{"a":1}`)}})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if q := queued(); len(q) != 1 || q[0].end == nil || q[0].lsn != j.lastLSN {
		t.Fatalf("queue after Begin+QueueFinish: %d ops", len(q))
	}
	// Another Begin, then a plain write, then its end: no merge.
	id2, _ := j.Begin(ctx, ExecStart{Src: "x"})
	pinned := make(chan error, 1)
	go func() { pinned <- j.Pin(ctx, cas.Sum(nil)) }() // waits for the writer: it applies everything
	if err := <-pinned; err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		id   int64
		ok   bool
		outs int
	}{{id, true, 1}, {id2, false, 0}} {
		e, err := j.Get(ctx, want.id)
		if err != nil || (e.OK != nil) != want.ok || len(e.Outputs) != want.outs {
			t.Fatalf("entry %d: %+v, %v", want.id, e, err)
		}
		if want.ok && (*e.DurNs != 5 || *e.Status != 0) {
			t.Fatalf("merged row: %+v", e)
		}
	}
	evs, _ := j.EventsSince(ctx, ChannelJournal, -1, 0)
	if len(evs) != 1 || evs[0].EntryID != id {
		t.Fatalf("events %+v", evs)
	}
	id3, _ := j.Begin(ctx, ExecStart{Src: "y"})
	j.push(&writeOp{fn: func(*sql.Tx) error { return nil }}) // a write queued between Begin and Finish
	if err := j.Finish(ctx, id3, ExecFinish{OK: true}); err != nil {
		t.Fatal(err)
	}
	for _, op := range queued() {
		if op.end != nil {
			t.Fatal("merged across a plain write")
		}
	}
	if e, err := j.Get(ctx, id3); err != nil || e.OK == nil {
		t.Fatalf("entry %d: %+v, %v", id3, e, err)
	}
}

// A lazy Begin is held back and written together with the next record (normally its exec's
// end), so a quick exec costs one write(2); any other Begin is written at once. A Begin the
// writer applies while still held back is durable through its SQLite commit: a copy of the
// files taken then (what kill -9 would leave) opens with the row present and unfinished.
func TestRedoBeginSharesEndWrite(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, &Options{ApplyDelay: time.Hour})
	ctx := t.Context()
	logged := func() []*redoRecord {
		t.Helper()
		data, err := os.ReadFile(path + redoSuffix)
		if err != nil {
			t.Fatal(err)
		}
		return decodeRecords(data)
	}
	eager, err := j.Begin(ctx, ExecStart{Src: "rm x"})
	if err != nil {
		t.Fatal(err)
	}
	if recs := logged(); len(recs) != 1 || recs[0].Begin == nil || recs[0].Begin.ID != eager {
		t.Fatalf("a Begin that is not lazy is not written at once: %+v", recs)
	}
	if err := os.Truncate(path+redoSuffix, 0); err != nil {
		t.Fatal(err)
	}
	id, err := j.Begin(ctx, ExecStart{Src: "1 + 2", Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if recs := logged(); len(recs) != 0 {
		t.Fatalf("Begin written on its own: %d records", len(recs))
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: true, Status: new(int)}); err != nil {
		t.Fatal(err)
	}
	recs := logged()
	if len(recs) != 2 || recs[0].Begin == nil || recs[0].Begin.ID != id || recs[1].Finish == nil ||
		recs[1].ID != id || recs[1].LSN != recs[0].LSN+1 {
		t.Fatalf("log after Finish: %+v", recs)
	}

	held, err := j.Begin(ctx, ExecStart{Src: "x", Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := j.Get(ctx, held); err != nil || e.OK != nil { // settles: the writer applies it
		t.Fatalf("running entry: %+v, %v", e, err)
	}
	if n := len(logged()); n != 2 {
		t.Fatalf("held Begin written by the writer: %d records", n)
	}
	crash := filepath.Join(t.TempDir(), "journal.db")
	for _, suffix := range []string{"", "-wal", redoSuffix} {
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crash+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	j2, err := Open(crash, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	for _, want := range []struct {
		id       int64
		finished bool
	}{{id, true}, {held, false}} {
		e, err := j2.Get(ctx, want.id)
		if err != nil || (e.OK != nil) != want.finished {
			t.Fatalf("after the crash copy, entry %d: %+v, %v", want.id, e, err)
		}
	}
}

// encodeRecord frames one record as the log holds it.
func encodeRecord(rec *redoRecord) ([]byte, error) {
	return appendRecord(make([]byte, 0, 256), rec)
}
