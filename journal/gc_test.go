package journal

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shoal-sh/shoal/journal/cas"
)

func TestGC(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	j, _ := openJournal(t, &Options{Now: clock})
	ctx := t.Context()
	put := func(s string, at time.Time) string {
		now = at
		o, err := j.PutBytes(ctx, OutputStdout, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return o.Hash
	}
	old := put("old-old", time.Unix(100, 0))    // 7 bytes
	pinned := put("pinned!", time.Unix(50, 0))  // 7 bytes, oldest but pinned
	mid := put("middle!", time.Unix(500, 0))    // 7 bytes
	fresh := put("fresh!!", time.Unix(2000, 0)) // 7 bytes
	if err := j.Pin(ctx, pinned); err != nil {
		t.Fatal(err)
	}
	now = time.Unix(2000, 0)

	// Dry run by default: reported, nothing deleted.
	rep, err := j.GC(ctx, GCOptions{OlderThan: 1000 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(GCReport{Hashes: []string{old, mid}, Bytes: 14, DryRun: true}, rep); diff != "" {
		t.Fatalf("dry run (-want +got):\n%s", diff)
	}
	if !j.Blobs().Has(old) {
		t.Fatal("dry run deleted a blob")
	}

	// Budget: 28 bytes recorded (pinned ones count), keep at most 21 => only the oldest
	// unpinned blob goes.
	rep, err = j.GC(ctx, GCOptions{MaxBytes: 21, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{old}, rep.Hashes); diff != "" || rep.DryRun {
		t.Fatalf("budget run (-want +got):\n%s", diff)
	}
	if _, err := j.Blobs().Get(old); !errors.Is(err, cas.ErrNotFound) {
		t.Fatalf("collected blob still readable: %v", err)
	}
	// Age: everything unpinned older than 1000 s.
	rep, err = j.GC(ctx, GCOptions{OlderThan: 1000 * time.Second, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{mid}, rep.Hashes); diff != "" {
		t.Fatalf("age run (-want +got):\n%s", diff)
	}
	for _, h := range []string{pinned, fresh} {
		if _, err := j.Blobs().Get(h); err != nil {
			t.Fatalf("kept blob %s: %v", h, err)
		}
	}
}

func TestDatabaseFilesArePrivate(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	if _, err := j.Begin(t.Context(), ExecStart{Src: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + redoSuffix} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, info.Mode().Perm())
		}
	}
}
