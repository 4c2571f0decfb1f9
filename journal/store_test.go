package journal

import (
	"encoding/hex"
	"testing"
)

// An exec's output stored with StoreBytes gets its blob row with the finish that names it (a
// replay of that finish too), and its blob is flushed to disk before the finish commits.
func TestStoreBytesRecordedWithFinish(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	blobRow := func(j *Journal, hash string) (n int64, ok bool) {
		raw, _ := hex.DecodeString(hash)
		err := j.r.QueryRowContext(ctx, "SELECT stored_len FROM blob WHERE hash = ?", raw).Scan(&n)
		return n, err == nil
	}
	id, err := j.Begin(ctx, ExecStart{Src: "x"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := j.StoreBytes(OutputStdout, []byte("stored once"))
	if err != nil {
		t.Fatal(err)
	}
	if !j.Blobs().Pending() {
		t.Fatal("a new blob's fsync was not deferred")
	}
	if err := j.settle(); err != nil { // nothing logged yet names it: no row
		t.Fatal(err)
	}
	if _, ok := blobRow(j, o.Hash); ok {
		t.Fatal("StoreBytes wrote a blob row of its own")
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: true, Outputs: []Output{o}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Get(ctx, id); err != nil { // settles
		t.Fatal(err)
	}
	if n, ok := blobRow(j, o.Hash); !ok || n != int64(len("stored once")) {
		t.Fatalf("blob row after the finish: %d, %v", n, ok)
	}
	if j.Blobs().Pending() {
		t.Fatal("the commit did not flush the blob first")
	}

	// A finish only in the redo log (the kernel killed before the writer applied it) records
	// its blob when replayed.
	id2, _ := j.Begin(ctx, ExecStart{Src: "y"})
	o2, _ := j.StoreBytes(OutputValue, []byte(`{"$":"int","v":2}`))
	j.Get(ctx, id2) // the Begin applied; the finish below is logged after
	applied := j.appliedLSN.Load()
	j.Close()
	writeRedo(t, path, &redoRecord{LSN: applied + 1, ID: id2, Finish: &ExecFinish{OK: true, Outputs: []Output{o2}}})
	j2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if _, ok := blobRow(j2, o2.Hash); !ok {
		t.Fatal("replayed finish did not record its blob")
	}
	if b, err := j2.Blobs().Get(o2.Hash); err != nil || string(b) != `{"$":"int","v":2}` {
		t.Fatalf("blob after reopen: %q, %v", b, err)
	}
}
