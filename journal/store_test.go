package journal

import (
	"bytes"
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
	// Held, not written yet, and readable.
	if j.Blobs().Has(o.Hash) {
		t.Fatal("a small new output was written before its finish")
	}
	if b, err := j.Blob(o.Hash); err != nil || string(b) != "stored once" {
		t.Fatalf("held blob: %q, %v", b, err)
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
	if j.Blobs().Pending() || !j.Blobs().Has(o.Hash) {
		t.Fatal("the finish's commit did not install and flush its blob")
	}
	if b, err := j.Blobs().Get(o.Hash); err != nil || string(b) != "stored once" {
		t.Fatalf("installed blob: %q, %v", b, err)
	}

	// A finish only in the redo log (the kernel killed before the writer applied it) installs
	// the blob it carries and records it when replayed.
	id2, _ := j.Begin(ctx, ExecStart{Src: "y"})
	data2 := []byte(`{"$":"int","v":2}`)
	o2, _ := j.StoreBytes(OutputValue, data2)
	j.Get(ctx, id2) // the Begin applied; the finish below is logged after
	applied := j.appliedLSN.Load()
	j.hmu.Lock()
	delete(j.heldBlobs, o2.Hash) // as after a kill -9: only the redo record has the bytes
	j.hmu.Unlock()
	j.Close()
	if j.Blobs().Has(o2.Hash) {
		t.Fatal("blob on disk before the replay")
	}
	writeRedo(t, path, &redoRecord{LSN: applied + 1, ID: id2, Finish: &ExecFinish{OK: true, Outputs: []Output{o2}},
		Blobs: []redoBlob{{Hash: o2.Hash, Data: data2}}})
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

// A held output that no finish named is still written when the journal closes.
func TestCloseInstallsHeldBlobs(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	o, err := j.StoreBytes(OutputStdout, []byte("orphan"))
	if err != nil {
		t.Fatal(err)
	}
	j2 := reopen(t, j, path)
	if b, err := j2.Blob(o.Hash); err != nil || string(b) != "orphan" {
		t.Fatalf("after close: %q, %v", b, err)
	}
}

// An output larger than holdMax is stored and recorded at once, as PutBytes does, and one over
// the size cap is cut as PutBytes cuts it.
func TestStoreBytesLargeAndCapped(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, &Options{MaxOutput: 200 << 10})
	big := bytes.Repeat([]byte("0123456789abcdef"), (holdMax/16)+1)
	o, err := j.StoreBytes(OutputStdout, big)
	if err != nil || !j.Blobs().Has(o.Hash) || o.Len != int64(len(big)) {
		t.Fatalf("large output: %+v, %v, on disk %v", o, err, j.Blobs().Has(o.Hash))
	}
	raw, _ := hex.DecodeString(o.Hash)
	var n int64
	if err := j.r.QueryRowContext(t.Context(), "SELECT stored_len FROM blob WHERE hash = ?", raw).Scan(&n); err != nil || n != int64(len(big)) {
		t.Fatalf("large output's blob row: %d, %v", n, err)
	}
	huge := bytes.Repeat([]byte("x"), 300<<10)
	o, err = j.StoreBytes(OutputStdout, huge)
	if err != nil || o.Len != int64(200<<10)+int64(len(TruncationMarker)) || len(o.Meta) == 0 {
		t.Fatalf("capped output: %+v, %v", o, err)
	}
}
