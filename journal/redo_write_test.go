package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// appendRedo appends every byte, in order, by either path (raw for small records with more
// than one P, the usual write otherwise), and reports a failing write.
func TestAppendRedo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redo")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []byte
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{1, 900, quietWriteMax, quietWriteMax + 1, 1 << 20} {
			b := bytes.Repeat([]byte{byte(n), byte(procs)}, n/2+1)[:n]
			if err := appendRedo(f, f.Fd(), b); err != nil {
				t.Fatalf("GOMAXPROCS %d, %d bytes: %v", procs, n, err)
			}
			want = append(want, b...)
		}
		runtime.GOMAXPROCS(old)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("log holds %d bytes (%v), want %d", len(got), err, len(want))
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := appendRedo(ro, ro.Fd(), []byte("x")); err == nil {
		t.Fatal("append to a read-only descriptor succeeded")
	}
}
