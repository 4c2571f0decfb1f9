package tokens

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Options configures a [Store] or [Verifier]. A nil *Options means defaults.
type Options struct {
	// Now is the clock used for created/expiry/revocation times. Nil means
	// time.Now.
	Now func() time.Time
	// Rand supplies the store key and bearer secrets. Nil means
	// crypto/rand.Reader; tests inject it only to provoke failures.
	Rand io.Reader
}

func (o *Options) now() time.Time {
	if o == nil || o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *Options) rand() io.Reader {
	if o == nil || o.Rand == nil {
		return rand.Reader
	}
	return o.Rand
}

// ErrUnknownID is returned by [Store.Revoke] for an id not in the store.
var ErrUnknownID = errors.New("unknown token id")

// Store is a tokens.json file opened for reading and writing. Its methods
// are safe for concurrent use, and other processes may write the same file.
type Store struct {
	path string
	opts *Options
	v    *Verifier
}

// Open opens the store at path, creating it (and its directory, mode 0700)
// with a fresh random key when it does not exist, and forces its mode to
// 0600.
func Open(path string, opts *Options) (*Store, error) {
	s := &Store{path: path, opts: opts, v: NewVerifier(path, opts)}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("open token store: %w", err)
		}
		err := s.update(func(*parsed) error { return nil })
		if err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("open token store: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("open token store: %w", err)
	}
	if _, err := s.v.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Create mints a token for principal and stores its digest. The returned
// secret is the only copy: 32 random bytes, base64url without padding. A
// nil ttl never expires; a ttl <= 0 yields a token that is born expired.
func (s *Store) Create(principal, profile string, caps []string, ttl *time.Duration) (string, Token, error) {
	if principal == "" {
		return "", Token{}, errors.New("create token: empty principal")
	}
	var raw [32]byte
	if _, err := io.ReadFull(s.opts.rand(), raw[:]); err != nil {
		return "", Token{}, fmt.Errorf("create token: random: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw[:])
	if caps == nil {
		caps = []string{}
	}
	var tok Token
	err := s.update(func(p *parsed) error {
		d := digest(p.key, secret)
		now := s.opts.now().UnixNano()
		tok = Token{
			ID:        hex.EncodeToString(d[:8]),
			Principal: principal,
			Profile:   profile,
			Caps:      slices.Clone(caps),
			CreatedNs: now,
			Digest:    hex.EncodeToString(d[:]),
		}
		if ttl != nil {
			exp := addSaturating(now, int64(*ttl))
			tok.ExpiresNs = &exp
		}
		for _, t := range p.tokens {
			if t.ID == tok.ID {
				// 64 random bits colliding means the random source is broken.
				return errors.New("token id collision")
			}
		}
		p.tokens = append(p.tokens, tok)
		return nil
	})
	if err != nil {
		return "", Token{}, fmt.Errorf("create token: %w", err)
	}
	return secret, tok, nil
}

// List returns every stored token in creation order.
func (s *Store) List() ([]Token, error) {
	p, err := s.v.load()
	if err != nil {
		return nil, err
	}
	return append([]Token(nil), p.tokens...), nil
}

// Revoke marks the token with the given id revoked. Revoking twice keeps
// the first revocation time. An unknown id yields [ErrUnknownID].
func (s *Store) Revoke(id string) error {
	return s.update(func(p *parsed) error {
		for i := range p.tokens {
			if p.tokens[i].ID == id {
				if p.tokens[i].RevokedNs == nil {
					now := s.opts.now().UnixNano()
					p.tokens[i].RevokedNs = &now
				}
				return nil
			}
		}
		return ErrUnknownID
	})
}

// Verify checks secret against the current file contents; see
// [Verifier.Verify].
func (s *Store) Verify(secret string) (Token, error) { return s.v.Verify(secret) }

// update runs fn on the freshly read store under the writer lock and
// writes the result atomically. A missing file starts as an empty store
// with a new key.
func (s *Store) update(fn func(*parsed) error) error {
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	p, err := readFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := io.ReadFull(s.opts.rand(), key); err != nil {
			return fmt.Errorf("new store key: %w", err)
		}
		p = &parsed{key: key}
	} else if err != nil {
		return err
	}
	if err := fn(p); err != nil {
		return err
	}
	b, err := p.encode()
	if err != nil {
		return err
	}
	return writeAtomic(s.path, b)
}

// digest is the keyed BLAKE3 of the bearer's bytes.
func digest(key []byte, secret string) [32]byte {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		// parseStore guarantees a 32-byte key.
		panic("tokens: " + err.Error())
	}
	h.WriteString(secret)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

func readFile(path string) (*parsed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read token store: %w", err)
	}
	p, err := parseStore(b)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return p, nil
}

// lockFile takes an exclusive flock on path, creating it 0600.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock token store: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock token store: %w", err)
	}
	return func() {
		// Closing the descriptor releases the flock.
		f.Close()
	}, nil
}

// writeAtomic replaces path with b: an exclusively created 0600 temp file
// in the same directory, fsynced, renamed over path, then the directory
// fsynced so the rename survives a crash.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	var suffix [8]byte
	if _, err := io.ReadFull(rand.Reader, suffix[:]); err != nil {
		return fmt.Errorf("write token store: %w", err)
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write token store: %w", err)
	}
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write token store: %w", werr)
	}
	if d, err := os.Open(dir); err == nil {
		// Best effort: some filesystems refuse fsync on directories, and
		// the data itself is already durable.
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// addSaturating adds without wrapping, so a huge --ttl means "far future"
// rather than a negative, already-expired time.
func addSaturating(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}
