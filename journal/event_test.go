package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func seqs(evs []Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func TestEventsDenseAndContinueAcrossRestart(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	for i := range 5 {
		seq, err := j.AppendEvent(ctx, ChannelJournal, 0, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), int64(100+i))
		if err != nil || seq != int64(i) {
			t.Fatalf("append %d: seq %d, %v", i, seq, err)
		}
	}
	// Channels are numbered independently.
	if seq, err := j.AppendEvent(ctx, ChannelTranscript, 0, json.RawMessage(`{}`), 1); err != nil || seq != 0 {
		t.Fatalf("first transcript event: %d, %v", seq, err)
	}
	j.Close()

	j, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if next, err := j.NextSeq(ctx, ChannelJournal); err != nil || next != 5 {
		t.Fatalf("NextSeq after restart %d, %v", next, err)
	}
	if seq, err := j.AppendEvent(ctx, ChannelJournal, 0, json.RawMessage(`{"n":5}`), 105); err != nil || seq != 5 {
		t.Fatalf("append after restart: %d, %v", seq, err)
	}
	all, err := j.EventsSince(ctx, ChannelJournal, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{0, 1, 2, 3, 4, 5}, seqs(all)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	got, _ := json.Marshal(all[2])
	if string(got) != `{"channel":"journal","seq":2,"ts":102,"payload":{"n":2}}` {
		t.Fatalf("envelope %s", got)
	}
	// since is exclusive; limit keeps the newest matches.
	since, _ := j.EventsSince(ctx, ChannelJournal, 2, 0)
	if diff := cmp.Diff([]int64{3, 4, 5}, seqs(since)); diff != "" {
		t.Fatalf("since 2 (-want +got):\n%s", diff)
	}
	newest, _ := j.EventsSince(ctx, ChannelJournal, 0, 2)
	if diff := cmp.Diff([]int64{4, 5}, seqs(newest)); diff != "" {
		t.Fatalf("since 0 limit 2 (-want +got):\n%s", diff)
	}
	none, err := j.EventsSince(ctx, "session.transcript", 0, 0)
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("nothing after the only event must be an empty list: %#v, %v", none, err)
	}
	if next, _ := j.NextSeq(ctx, "user.x"); next != 0 {
		t.Fatalf("unknown channel next seq %d", next)
	}
}

func TestAppendEventRejects(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	if _, err := j.AppendEvent(ctx, "user.x", 0, json.RawMessage(`{}`), 1); err == nil {
		t.Fatal("non-durable channel accepted")
	}
	if _, err := j.AppendEvent(ctx, ChannelJournal, 0, json.RawMessage(`{nope`), 1); err == nil {
		t.Fatal("invalid payload accepted")
	}
	if _, err := j.EventsSince(ctx, ChannelJournal, 0, -1); err == nil {
		t.Fatal("negative limit accepted")
	}
	// A rejected append must not consume a seq.
	if seq, err := j.AppendEvent(ctx, ChannelJournal, 0, json.RawMessage(`1`), 1); err != nil || seq != 0 {
		t.Fatalf("first valid append: %d, %v", seq, err)
	}
}

func TestTranscriptEventKeptPerEntry(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	id, _ := j.Begin(ctx, ExecStart{Src: "1 + 2", Session: "work", Principal: "agent:r"})
	payload := json.RawMessage(`{"n":1,"ref":"out:1","summary":{"type":"int"}}`)
	seq, err := j.AppendEvent(ctx, ChannelTranscript, id, payload, 7)
	if err != nil || seq != 0 {
		t.Fatalf("append: %d, %v", seq, err)
	}
	got, ok, err := j.TranscriptEvent(ctx, id)
	if err != nil || !ok || !bytes.Equal(got, payload) {
		t.Fatalf("transcript event %s %v %v", got, ok, err)
	}
	evs, _ := j.EventsSince(ctx, ChannelTranscript, -1, 0)
	if len(evs) != 1 || evs[0].EntryID != id || evs[0].Session != "work" || evs[0].Principal != "agent:r" {
		t.Fatalf("events %+v", evs)
	}
	// With a limit too, and the owner fields stay out of the wire envelope.
	evs, _ = j.EventsSince(ctx, ChannelTranscript, -1, 5)
	if len(evs) != 1 || evs[0].Principal != "agent:r" {
		t.Fatalf("limited events %+v", evs)
	}
	if b, _ := json.Marshal(evs[0]); string(b) != `{"channel":"session.transcript","seq":0,"ts":7,"payload":{"n":1,"ref":"out:1","summary":{"type":"int"}}}` {
		t.Fatalf("envelope %s", b)
	}
	if _, ok, _ := j.TranscriptEvent(ctx, id+1); ok {
		t.Fatal("transcript event for an entry without one")
	}
}

func TestPutOutputTruncates(t *testing.T) {
	t.Parallel()
	now := time.Unix(100, 0)
	j, _ := openJournal(t, &Options{MaxOutput: 1000, Now: func() time.Time { return now }})
	ctx := t.Context()
	data := strings.Repeat("0123456789", 500) // 5000 bytes
	o, err := j.PutOutput(ctx, OutputStdout, strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := data[:1000] + TruncationMarker
	if o.Len != int64(len(want)) {
		t.Fatalf("len %d, want %d", o.Len, len(want))
	}
	if string(o.Meta) != fmt.Sprintf(`{"truncated":true,"original_len":5000,"stored_len":%d}`, len(want)) {
		t.Fatalf("meta %s", o.Meta)
	}
	stored, err := j.Blobs().Get(o.Hash)
	if err != nil || string(stored) != want {
		t.Fatalf("stored %d bytes, %v", len(stored), err)
	}
	// The in-memory path truncates the same way.
	o2, err := j.PutBytes(ctx, OutputStdout, []byte(data))
	if err != nil || o2.Hash != o.Hash || string(o2.Meta) != string(o.Meta) {
		t.Fatalf("PutBytes: %+v, %v", o2, err)
	}
	// Exactly at the cap: kept whole, no meta.
	o3, err := j.PutOutput(ctx, OutputStdout, strings.NewReader(data[:1000]))
	if err != nil || o3.Len != 1000 || o3.Meta != nil {
		t.Fatalf("at the cap: %+v, %v", o3, err)
	}
	// The finished row carries the meta through to queries.
	id, _ := j.Begin(ctx, ExecStart{Src: "yes"})
	j.Finish(ctx, id, ExecFinish{OK: true, Outputs: []Output{o}})
	e, _ := j.Get(ctx, id)
	if len(e.Outputs) != 1 || string(e.Outputs[0].Meta) != string(o.Meta) {
		t.Fatalf("outputs %+v", e.Outputs)
	}
	var n, created int64
	raw := mustHex(o.Hash)
	if err := j.r.QueryRowContext(ctx, "SELECT stored_len, created_ns FROM blob WHERE hash = ?", raw).Scan(&n, &created); err != nil {
		t.Fatal(err)
	}
	if n != o.Len || created != now.UnixNano() {
		t.Fatalf("blob row stored_len %d created %d", n, created)
	}
}

func TestPinsAndUndo(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	o, _ := j.PutBytes(ctx, OutputValue, []byte("keep"))
	if err := j.Pin(ctx, o.Hash); err != nil {
		t.Fatal(err)
	}
	if err := j.Pin(ctx, o.Hash); err != nil {
		t.Fatalf("pin twice: %v", err)
	}
	if p, _ := j.Pinned(ctx, o.Hash); !p {
		t.Fatal("not pinned")
	}
	if err := j.Unpin(ctx, o.Hash); err != nil {
		t.Fatal(err)
	}
	if p, _ := j.Pinned(ctx, o.Hash); p {
		t.Fatal("still pinned")
	}
	if err := j.Pin(ctx, "nope"); err == nil {
		t.Fatal("bad hash pinned")
	}
	if err := j.TouchBlob(ctx, o.Hash); err != nil {
		t.Fatal(err)
	}

	id, _ := j.Begin(ctx, ExecStart{Src: "rm a"})
	undos := []Undo{
		{Op: "TrashMove", Inverse: json.RawMessage(`{"from":"/t/1","to":"/p/a"}`)},
		{Op: "RestoreBytes", Inverse: json.RawMessage(`{"path":"/p/b","hash":"00"}`)},
	}
	for _, u := range undos {
		if err := j.AddUndo(ctx, id, u); err != nil {
			t.Fatal(err)
		}
	}
	got, err := j.Undos(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(undos, got, cmpopts.IgnoreFields(Undo{}, "ID")); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// The newest entry of the session with a pending record is the undo target; marking its
	// records undone moves the target back.
	if last, err := j.LastUndoable(ctx, "", ""); err != nil || last != id {
		t.Fatalf("last undoable = %d, %v; want %d", last, err, id)
	}
	if err := j.MarkUndone(ctx, []int64{got[0].ID, got[1].ID}, 42); err != nil {
		t.Fatal(err)
	}
	if again, _ := j.Undos(ctx, id); again[0].UndoneNs != 42 || again[1].UndoneNs != 42 {
		t.Fatalf("undone_ns not recorded: %+v", again)
	}
	if last, _ := j.LastUndoable(ctx, "", ""); last != 0 {
		t.Fatalf("last undoable after undo = %d", last)
	}
	if err := j.AddUndo(ctx, id, Undo{Op: "x", Inverse: json.RawMessage(`{`)}); err == nil {
		t.Fatal("invalid inverse accepted")
	}
	if err := j.AddUndo(ctx, 9999, Undo{Op: "x", Inverse: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("undo for a missing entry accepted (foreign key)")
	}
}

func mustHex(h string) []byte {
	out := make([]byte, len(h)/2)
	for i := range out {
		fmt.Sscanf(h[2*i:2*i+2], "%02x", &out[i])
	}
	return out
}
