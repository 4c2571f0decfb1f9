// Package cas is Shoal's content-addressed blob store: each blob is stored once, zstd-compressed,
// under the BLAKE3-256 hash of its uncompressed bytes, at <root>/<h[0:2]>/<h[2:4]>/<h>.zst.
//
// Writes go to a temporary file that is fsynced and renamed into place, so a crash (even
// kill -9 or power loss after the directory sync) never leaves a torn blob under a real name.
// With DeferSync the two fsyncs are left to the next Flush instead (the journal flushes before
// each commit): a process crash still loses nothing, as the bytes are in the page cache, and a
// power loss before the Flush can leave a blob missing or torn under its name. Every read
// re-hashes the content and refuses a mismatch, storing the same content again heals it, and
// a malformed hash is rejected before any path is built from it.
//
// Imports: the standard library, github.com/zeebo/blake3 and github.com/klauspost/compress/zstd.
// This package is a leaf.
package cas

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"
)

var (
	// ErrNotFound means no blob is stored under the hash.
	ErrNotFound = errors.New("blob not found")
	// ErrInvalidHash means the string is not 64 lowercase hex digits.
	ErrInvalidHash = errors.New("invalid blob hash")
	// ErrCorrupt means the stored bytes no longer hash to their address (or do not decompress).
	ErrCorrupt = errors.New("blob corrupt")
)

// HashLen is the length of a hash string: 64 lowercase hex digits of BLAKE3-256.
const HashLen = 64

// tmpDir holds spools and half-written blobs; it lives inside the root so renames stay on one
// filesystem.
const tmpDir = "tmp"

// staleTmp is how old a temporary file must be before Open deletes it as a crash leftover; a
// live writer of another Store on the same root never takes that long.
const staleTmp = time.Hour

// maxDecoded bounds what one decode may allocate; journal outputs are capped at 256 MiB.
const maxDecoded = 1 << 30

// Options configures a [Store]; nil means defaults.
type Options struct {
	// NoSync skips fsync of blobs and directories. Only for benchmarks and tests that do not
	// care about crash safety.
	NoSync bool
	// DeferSync leaves the fsyncs of a new blob and its directory to the next [Store.Flush]
	// (or Close), so that a Put costs no disk flush: about a millisecond per blob on the CI
	// machine, on the path of every exec that stores a new output.
	DeferSync bool
}

// Store is a blob store rooted at one directory. It is safe for concurrent use, including
// concurrent Puts of the same content.
type Store struct {
	root      string
	sync      bool
	deferSync bool
	enc       *zstd.Encoder // EncodeAll is safe for concurrent use
	dec       *zstd.Decoder // DecodeAll is safe for concurrent use

	pmu     sync.Mutex
	pending []string // DeferSync: blobs renamed into place but not yet synced
}

// Open opens (creating with mode 0700 if needed) the store rooted at dir and removes stale
// temporary files left by a crash.
func Open(dir string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o700); err != nil {
		return nil, fmt.Errorf("open cas %s: %w", dir, err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)))
	if err != nil {
		return nil, fmt.Errorf("open cas %s: zstd encoder: %w", dir, err)
	}
	// The cap guards DecodeAll against a damaged header claiming an absurd size.
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded))
	if err != nil {
		return nil, fmt.Errorf("open cas %s: zstd decoder: %w", dir, err)
	}
	s := &Store{root: dir, sync: !o.NoSync, deferSync: !o.NoSync && o.DeferSync, enc: enc, dec: dec}
	s.sweepTmp()
	return s, nil
}

// Close flushes deferred syncs and releases the compressor state. Blobs already written stay
// valid.
func (s *Store) Close() error {
	ferr := s.Flush()
	s.dec.Close()
	return errors.Join(ferr, s.enc.Close())
}

// Pending reports whether blobs wait for a Flush.
func (s *Store) Pending() bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return len(s.pending) > 0
}

// Flush makes the blobs stored since the last Flush durable: each file, then each directory
// that received one. A blob removed meanwhile is skipped; one that fails stays pending, for
// the next Flush to retry.
func (s *Store) Flush() error {
	s.pmu.Lock()
	paths := s.pending
	s.pending = nil
	s.pmu.Unlock()
	var errs []error
	var failed []string
	dirs := map[string][]string{} // directory -> its blobs
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cas flush %s: %w", filepath.Base(p), err))
			failed = append(failed, p)
			continue
		}
		dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
	}
	for d, ps := range dirs {
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cas flush %s: %w", d, err))
			failed = append(failed, ps...)
		}
	}
	if len(failed) > 0 {
		s.pmu.Lock()
		s.pending = append(s.pending, failed...)
		s.pmu.Unlock()
	}
	return errors.Join(errs...)
}

// Root returns the directory the store lives in.
func (s *Store) Root() string { return s.root }

// sweepTmp deletes crash leftovers. Failure is harmless (the files only waste space), so
// errors are ignored on purpose.
func (s *Store) sweepTmp() {
	entries, err := os.ReadDir(filepath.Join(s.root, tmpDir))
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTmp {
			_ = os.Remove(filepath.Join(s.root, tmpDir, e.Name()))
		}
	}
}

// Sum returns the address of data: lowercase hex BLAKE3-256.
func Sum(data []byte) string {
	h := blake3.Sum256(data)
	return hex.EncodeToString(h[:])
}

// ValidHash reports whether h is 64 lowercase hex digits, the only strings that may name a blob.
func ValidHash(h string) bool {
	if len(h) != HashLen {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// path maps a validated hash to its file.
func (s *Store) path(h string) string {
	return filepath.Join(s.root, h[0:2], h[2:4], h+".zst")
}

func (s *Store) check(h string) error {
	if !ValidHash(h) {
		return fmt.Errorf("%w: %.80q", ErrInvalidHash, h)
	}
	return nil
}

// Put stores data and returns its hash. Storing content that is already present writes
// nothing.
func (s *Store) Put(data []byte) (string, error) {
	h := Sum(data)
	if s.present(h, int64(len(data))) {
		return h, nil
	}
	compressed := s.enc.EncodeAll(data, make([]byte, 0, len(data)/2+64))
	if err := s.install(h, func(f *os.File) error {
		_, err := f.Write(compressed)
		return err
	}); err != nil {
		return "", err
	}
	return h, nil
}

// PutReader stores everything r yields without holding it in memory and returns its hash and
// length. The input is spooled to a temporary file first, because the address is only known
// at the end and the frame header records the size.
func (s *Store) PutReader(r io.Reader) (string, int64, error) {
	spool, err := os.CreateTemp(filepath.Join(s.root, tmpDir), "spool-*")
	if err != nil {
		return "", 0, fmt.Errorf("cas spool: %w", err)
	}
	defer func() {
		spool.Close()
		os.Remove(spool.Name())
	}()
	hasher := blake3.New()
	n, err := io.Copy(io.MultiWriter(spool, hasher), r)
	if err != nil {
		return "", 0, fmt.Errorf("cas spool: %w", err)
	}
	h := hex.EncodeToString(hasher.Sum(nil))
	if s.present(h, n) {
		return h, n, nil
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return "", 0, fmt.Errorf("cas spool: %w", err)
	}
	err = s.install(h, func(f *os.File) error {
		zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		zw.ResetContentSize(f, n)
		if _, err := io.Copy(zw, spool); err != nil {
			zw.Close()
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return "", 0, err
	}
	return h, n, nil
}

// present reports whether an intact blob with this hash and size is already stored. The
// existing file is fully verified (decompressed and re-hashed, in bounded memory), so storing
// content again heals a damaged blob instead of trusting it forever; that costs about as much
// as the hashing Put has already done.
func (s *Store) present(h string, size int64) bool {
	r, got, err := s.Open(h)
	if err != nil {
		return false
	}
	defer r.Close()
	if got != size {
		return false
	}
	n, err := io.Copy(io.Discard, r)
	return err == nil && n == size
}

// install writes a blob through a temporary file: write, fsync, rename, fsync the directory
// (with DeferSync: write, rename, and both fsyncs at the next Flush).
// Concurrent installs of the same hash are harmless: rename is atomic and both files hold the
// same bytes.
func (s *Store) install(h string, write func(*os.File) error) (err error) {
	dir := filepath.Dir(s.path(h))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cas put %s: %w", h, err)
	}
	tmp, err := os.CreateTemp(filepath.Join(s.root, tmpDir), "blob-*")
	if err != nil {
		return fmt.Errorf("cas put %s: %w", h, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("cas put %s: write: %w", h, err)
	}
	if s.sync && !s.deferSync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("cas put %s: sync: %w", h, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cas put %s: close: %w", h, err)
	}
	if err := os.Rename(tmp.Name(), s.path(h)); err != nil {
		return fmt.Errorf("cas put %s: rename: %w", h, err)
	}
	switch {
	case s.deferSync:
		s.pmu.Lock()
		s.pending = append(s.pending, s.path(h))
		s.pmu.Unlock()
	case s.sync:
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("cas put %s: sync dir: %w", h, err)
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Has reports whether a blob is stored under h. A malformed hash is simply absent. It does not
// verify the content; reads do.
func (s *Store) Has(h string) bool {
	if !ValidHash(h) {
		return false
	}
	_, err := os.Stat(s.path(h))
	return err == nil
}

// Len returns the uncompressed length of a blob, read from the zstd frame header without
// decompressing (or by counting, for a frame that lacks the size).
func (s *Store) Len(h string) (int64, error) {
	f, err := s.openFile(h)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var head [zstd.HeaderMaxSize]byte
	n, _ := io.ReadFull(f, head[:])
	var zh zstd.Header
	if err := zh.Decode(head[:n]); err != nil {
		return 0, fmt.Errorf("%w: %s: header: %v", ErrCorrupt, h, err)
	}
	if zh.HasFCS {
		return int64(zh.FrameContentSize), nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("cas len %s: %w", h, err)
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecoded))
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrCorrupt, h, err)
	}
	defer zr.Close()
	size, err := io.Copy(io.Discard, zr)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrCorrupt, h, err)
	}
	return size, nil
}

func (s *Store) openFile(h string) (*os.File, error) {
	if err := s.check(h); err != nil {
		return nil, err
	}
	f, err := os.Open(s.path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, h)
	}
	if err != nil {
		return nil, fmt.Errorf("cas open %s: %w", h, err)
	}
	return f, nil
}

// Get returns the whole blob after checking that it hashes to h.
func (s *Store) Get(h string) ([]byte, error) {
	if err := s.check(h); err != nil {
		return nil, err
	}
	compressed, err := os.ReadFile(s.path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, h)
	}
	if err != nil {
		return nil, fmt.Errorf("cas get %s: %w", h, err)
	}
	data, err := s.dec.DecodeAll(compressed, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, h, err)
	}
	if got := Sum(data); got != h {
		return nil, fmt.Errorf("%w: %s hashes to %s", ErrCorrupt, h, got)
	}
	return data, nil
}

// Open streams a blob and returns its uncompressed length. The reader hashes what it yields and,
// instead of io.EOF, returns an [ErrCorrupt] error if the content turns out not to match h, so a
// caller that reads to the end never silently accepts damaged bytes.
func (s *Store) Open(h string) (io.ReadCloser, int64, error) {
	size, err := s.Len(h)
	if err != nil {
		return nil, 0, err
	}
	f, err := s.openFile(h)
	if err != nil {
		return nil, 0, err
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecoded))
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s: %v", ErrCorrupt, h, err)
	}
	return &verifyReader{h: h, f: f, zr: zr, hasher: blake3.New()}, size, nil
}

// verifyReader decompresses and hashes; the verdict comes at end of stream.
type verifyReader struct {
	h      string
	f      *os.File
	zr     *zstd.Decoder
	hasher *blake3.Hasher
	err    error
}

func (v *verifyReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.zr.Read(p)
	v.hasher.Write(p[:n])
	switch {
	case errors.Is(err, io.EOF):
		if got := hex.EncodeToString(v.hasher.Sum(nil)); got != v.h {
			v.err = fmt.Errorf("%w: %s hashes to %s", ErrCorrupt, v.h, got)
		} else {
			v.err = io.EOF
		}
		return n, v.err
	case err != nil:
		v.err = fmt.Errorf("%w: %s: %v", ErrCorrupt, v.h, err)
		return n, v.err
	}
	return n, nil
}

func (v *verifyReader) Close() error {
	v.zr.Close()
	return v.f.Close()
}

// ReadAt returns up to n bytes starting at off (fewer at the end of the blob, none past it).
// The whole blob is still read and hashed so a damaged blob is never served in part; ranges
// exist to bound what reaches the client, not the work done here.
func (s *Store) ReadAt(h string, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("cas read %s: negative range [%d, +%d)", h, off, n)
	}
	r, size, err := s.Open(h)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if off > size {
		off = size
	}
	n = min(n, size-off)
	if _, err := io.CopyN(io.Discard, r, off); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(int(n))
	if _, err := io.CopyN(&out, r, n); err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Remove deletes a blob (garbage collection). Removing an absent blob is not an error.
func (s *Store) Remove(h string) error {
	if err := s.check(h); err != nil {
		return err
	}
	if err := os.Remove(s.path(h)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cas remove %s: %w", h, err)
	}
	return nil
}
