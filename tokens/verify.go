package tokens

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// ErrAuth is wrapped by every verification failure (unknown, revoked or
// expired token), so callers map all of them to one wire error.
var ErrAuth = errors.New("token rejected")

var (
	errUnknownToken = fmt.Errorf("%w: unknown token", ErrAuth)
	errRevoked      = fmt.Errorf("%w: token revoked", ErrAuth)
	errExpired      = fmt.Errorf("%w: token expired", ErrAuth)
)

// fileID is what decides whether the cached store is stale.
type fileID struct {
	mtimeNs int64
	size    int64
	ino     uint64
	dev     uint64
	ctimeNs int64
}

// Verifier checks bearer secrets against a tokens.json file. It stats the
// file on each call and re-reads it only when (mtime, size, inode) changed,
// (plus ctime and device), so a token created after start works at once and a revoked one fails at
// the next verification. Safe for concurrent use.
type Verifier struct {
	path string
	opts *Options

	mu     sync.Mutex
	id     fileID
	cached *parsed
	loads  int // file reads so far; lets tests prove the cache is used
}

// NewVerifier returns a Verifier for the store at path. It does not touch
// the file until the first call.
func NewVerifier(path string, opts *Options) *Verifier {
	return &Verifier{path: path, opts: opts}
}

// load returns the current parsed store, re-reading it if it changed.
func (v *Verifier) load() (*parsed, error) {
	fi, err := os.Stat(v.path)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	id := fileID{mtimeNs: fi.ModTime().UnixNano(), size: fi.Size()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		// ctime also moves on rename, which guards against an inode number
		// being reused by a later rewrite of the same size.
		id.ino, id.dev = st.Ino, uint64(st.Dev)
		id.ctimeNs = st.Ctim.Nano()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cached != nil && id == v.id {
		return v.cached, nil
	}
	p, err := readFile(v.path)
	if err != nil {
		return nil, err
	}
	v.cached, v.id = p, id
	v.loads++
	return p, nil
}

// Verify returns the token whose digest matches secret. The secret's
// digest is compared with every stored digest in constant time, so timing
// reveals neither which token matched nor how many bytes agreed. A match
// must be unrevoked and unexpired (expires_ns > now). Failures wrap
// [ErrAuth]; an unreadable or malformed store returns that error instead.
func (v *Verifier) Verify(secret string) (Token, error) {
	p, err := v.load()
	if err != nil {
		return Token{}, err
	}
	d := p.digest(secret)
	match := -1
	for i := range p.digests {
		if subtle.ConstantTimeCompare(d[:], p.digests[i][:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Token{}, errUnknownToken
	}
	t := p.tokens[match]
	switch t.State(v.opts.now().UnixNano()) {
	case StateRevoked:
		return Token{}, errRevoked
	case StateExpired:
		return Token{}, errExpired
	}
	t.Caps = append([]string{}, t.Caps...)
	return t, nil
}
