package cas

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// blobFiles lists the stored blob files (not temporaries).
func blobFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == tmpDir {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestPutGetLayoutAndFormat(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	data := bytes.Repeat([]byte("shoal journal output line\n"), 1000)
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(data)
	if want := strings.ToLower(string(hexOf(sum[:]))); h != want {
		t.Fatalf("hash %s, want BLAKE3 %s", h, want)
	}
	if !ValidHash(h) {
		t.Fatalf("hash %q is not 64 lowercase hex", h)
	}
	files := blobFiles(t, s.Root())
	want := filepath.Join(h[0:2], h[2:4], h+".zst")
	if len(files) != 1 || files[0] != want {
		t.Fatalf("files %v, want [%s]", files, want)
	}
	// The file is a plain zstd frame of the uncompressed bytes, and it is compressed.
	raw, err := os.ReadFile(filepath.Join(s.Root(), want))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) >= len(data)/10 {
		t.Fatalf("stored %d bytes for %d highly repetitive bytes", len(raw), len(data))
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	plain, err := dec.DecodeAll(raw, nil)
	if err != nil || !bytes.Equal(plain, data) {
		t.Fatalf("file does not decode to the content: %v", err)
	}
	got, err := s.Get(h)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get: %v", err)
	}
	if n, err := s.Len(h); err != nil || n != int64(len(data)) {
		t.Fatalf("Len = %d, %v; want %d", n, err, len(data))
	}
	if !s.Has(h) {
		t.Fatal("Has = false after Put")
	}
}

func hexOf(b []byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return out
}

func TestEmptyBlob(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	h, err := s.Put(nil)
	if err != nil {
		t.Fatal(err)
	}
	if h != Sum([]byte{}) {
		t.Fatalf("hash %s", h)
	}
	got, err := s.Get(h)
	if err != nil || len(got) != 0 {
		t.Fatalf("Get empty: %q, %v", got, err)
	}
	if n, err := s.Len(h); err != nil || n != 0 {
		t.Fatalf("Len empty = %d, %v", n, err)
	}
}

func TestDedup(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	a, _ := s.Put([]byte("same"))
	info1, err := os.Stat(s.path(a))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Put([]byte("same"))
	c, _, err := s.PutReader(strings.NewReader("same"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a != c {
		t.Fatalf("hashes differ: %s %s %s", a, b, c)
	}
	info2, _ := os.Stat(s.path(a))
	if !os.SameFile(info1, info2) {
		t.Fatal("second Put rewrote the blob")
	}
	if files := blobFiles(t, s.Root()); len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	d, _ := s.Put([]byte("different"))
	if d == a || len(blobFiles(t, s.Root())) != 2 {
		t.Fatal("different content not stored separately")
	}
}

func TestMalformedHashesNeverReachTheFilesystem(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	h, _ := s.Put([]byte("x"))
	bad := []string{
		"", "abc", strings.ToUpper(h), h[:63], h + "0", "../../../../etc/passwd",
		strings.Repeat("g", 64), "blake3:" + h, h[:62] + "/.", strings.Repeat(".", 64),
	}
	for _, b := range bad {
		if ValidHash(b) {
			t.Errorf("ValidHash(%q) = true", b)
		}
		if _, err := s.Get(b); !errors.Is(err, ErrInvalidHash) {
			t.Errorf("Get(%q) = %v, want ErrInvalidHash", b, err)
		}
		if _, _, err := s.Open(b); !errors.Is(err, ErrInvalidHash) {
			t.Errorf("Open(%q) = %v", b, err)
		}
		if _, err := s.ReadAt(b, 0, 1); !errors.Is(err, ErrInvalidHash) {
			t.Errorf("ReadAt(%q) = %v", b, err)
		}
		if _, err := s.Len(b); !errors.Is(err, ErrInvalidHash) {
			t.Errorf("Len(%q) = %v", b, err)
		}
		if err := s.Remove(b); !errors.Is(err, ErrInvalidHash) {
			t.Errorf("Remove(%q) = %v", b, err)
		}
		if s.Has(b) {
			t.Errorf("Has(%q) = true", b)
		}
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	h := Sum([]byte("never stored"))
	if _, err := s.Get(h); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get: %v", err)
	}
	if _, _, err := s.Open(h); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s.Len(h); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Len: %v", err)
	}
	if s.Has(h) {
		t.Fatal("Has")
	}
	if err := s.Remove(h); err != nil {
		t.Fatalf("Remove absent: %v", err)
	}
}

func TestCorruptionDetected(t *testing.T) {
	t.Parallel()
	data := randomBytes(200_000, 1)
	enc, _ := zstd.NewWriter(nil)
	other := enc.EncodeAll(randomBytes(200_000, 2), nil) // valid zstd, wrong content, same size
	enc.Close()
	damage := map[string]func(path string) error{
		"swapped content": func(p string) error { return os.WriteFile(p, other, 0o600) },
		"garbage":         func(p string) error { return os.WriteFile(p, []byte("not zstd at all"), 0o600) },
		"truncated": func(p string) error {
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, b[:len(b)/2], 0o600)
		},
		"bit flip": func(p string) error {
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x40
			return os.WriteFile(p, b, 0o600)
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t)
			h, err := s.Put(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := f(s.path(h)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(h); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get: %v, want ErrCorrupt", err)
			}
			if _, err := s.ReadAt(h, 0, 10); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadAt: %v, want ErrCorrupt", err)
			}
			if r, _, err := s.Open(h); err == nil {
				_, err = io.ReadAll(r)
				r.Close()
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("Open+ReadAll: %v, want ErrCorrupt", err)
				}
			} else if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open: %v", err)
			}
			// Putting the content again heals the blob.
			if _, err := s.Put(data); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Get(h); err != nil || !bytes.Equal(got, data) {
				t.Errorf("after re-Put: %v", err)
			}
		})
	}
}

func TestPutReaderStreamsLargeInput(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	data := append(randomBytes(3<<20, 3), bytes.Repeat([]byte("z"), 5<<20)...)
	h, n, err := s.PutReader(io.MultiReader(bytes.NewReader(data[:1000]), bytes.NewReader(data[1000:])))
	if err != nil {
		t.Fatal(err)
	}
	if h != Sum(data) || n != int64(len(data)) {
		t.Fatalf("PutReader = %s, %d; want %s, %d", h, n, Sum(data), len(data))
	}
	if size, err := s.Len(h); err != nil || size != n {
		t.Fatalf("Len = %d, %v", size, err)
	}
	r, size, err := s.Open(h)
	if err != nil || size != n {
		t.Fatalf("Open: %d, %v", size, err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("streamed content differs: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(s.Root(), tmpDir)); len(entries) != 0 {
		t.Fatalf("temporaries left behind: %v", entries)
	}
}

func TestReadAtRanges(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	data := randomBytes(100_000, 4)
	h, _ := s.Put(data)
	cases := []struct {
		off, n int64
		want   []byte
	}{
		{0, 10, data[:10]},
		{99_990, 100, data[99_990:]},
		{50_000, 65536, data[50_000:]},
		{100_000, 5, []byte{}},
		{200_000, 5, []byte{}},
		{7, 0, []byte{}},
	}
	for _, c := range cases {
		got, err := s.ReadAt(h, c.off, c.n)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("ReadAt(%d, %d) = %d bytes, %v; want %d bytes", c.off, c.n, len(got), err, len(c.want))
		}
	}
	if _, err := s.ReadAt(h, -1, 5); err == nil {
		t.Error("negative offset accepted")
	}
}

func TestConcurrentPutsOfSameContent(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	data := randomBytes(1<<20, 5)
	want := Sum(data)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var h string
			var err error
			if i%2 == 0 {
				h, err = s.Put(data)
			} else {
				h, _, err = s.PutReader(bytes.NewReader(data))
			}
			if err != nil || h != want {
				t.Errorf("put %d: %s, %v", i, h, err)
			}
			if got, err := s.Get(want); err != nil || !bytes.Equal(got, data) {
				t.Errorf("get during concurrent puts: %v", err)
			}
		})
	}
	wg.Wait()
	if files := blobFiles(t, s.Root()); len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	if entries, _ := os.ReadDir(filepath.Join(s.Root(), tmpDir)); len(entries) != 0 {
		t.Fatalf("temporaries left behind: %d", len(entries))
	}
}

func TestOpenSweepsStaleTemporaries(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "cas")
	s, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	stale := filepath.Join(root, tmpDir, "blob-crashed")
	fresh := filepath.Join(root, tmpDir, "blob-live")
	os.WriteFile(stale, []byte("half"), 0o600)
	os.WriteFile(fresh, []byte("half"), 0o600)
	old := time.Now().Add(-2 * staleTmp)
	os.Chtimes(stale, old, old)
	s, err = Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temporary kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("recent temporary removed: %v", err)
	}
	if info, err := os.Stat(root); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("root mode %v, %v", info.Mode(), err)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	h, _ := s.Put([]byte("gone soon"))
	if err := s.Remove(h); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(h); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Remove: %v", err)
	}
}

func BenchmarkPut64KiB(b *testing.B) {
	s := openStore(b)
	data := randomBytes(64<<10, 6)
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		data[0], data[1] = byte(i), byte(i>>8) // new content each time: no dedup shortcut
		i++
		if _, err := s.Put(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet64KiB(b *testing.B) {
	s := openStore(b)
	data := randomBytes(64<<10, 7)
	h, _ := s.Put(data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Get(h); err != nil {
			b.Fatal(err)
		}
	}
}

// With DeferSync a Put leaves its fsyncs to Flush: the blob is readable at once, Flush (or
// Close) syncs what is pending, and a blob removed meanwhile is skipped.
func TestDeferSyncFlush(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir(), &Options{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Put([]byte("alpha"))
	b, _ := s.Put([]byte("beta"))
	if !s.Pending() {
		t.Fatal("nothing pending after two new blobs")
	}
	if got, err := s.Get(a); err != nil || string(got) != "alpha" {
		t.Fatalf("read before flush: %q, %v", got, err)
	}
	if err := s.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil || s.Pending() {
		t.Fatalf("flush: %v, pending %v", err, s.Pending())
	}
	s.Put([]byte("alpha")) // present already: nothing new to sync
	if s.Pending() {
		t.Fatal("storing present content left a sync pending")
	}
	s.Put([]byte("gamma"))
	if err := s.Close(); err != nil || s.Pending() {
		t.Fatalf("close: %v, pending %v", err, s.Pending())
	}
	plain, _ := Open(t.TempDir(), nil)
	defer plain.Close()
	plain.Put([]byte("synced at once"))
	if plain.Pending() {
		t.Fatal("a store without DeferSync deferred a sync")
	}
}
