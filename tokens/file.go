package tokens

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/zeebo/blake3"
)

// storeVersion is the only tokens.json version this package reads or writes.
const storeVersion = 1

// Token is one stored token record. The secret is never part of it.
type Token struct {
	ID        string   `json:"id"`
	Principal string   `json:"principal"`
	Profile   string   `json:"profile"`
	Caps      []string `json:"caps"`
	CreatedNs int64    `json:"created_ns"`
	ExpiresNs *int64   `json:"expires_ns"`
	RevokedNs *int64   `json:"revoked_ns"`
	Digest    string   `json:"digest"`
}

// fileData is the on-disk shape of tokens.json.
type fileData struct {
	Version int     `json:"version"`
	Key     string  `json:"key"`
	Tokens  []Token `json:"tokens"`
}

// parsed is a validated store: the decoded key plus tokens whose digests
// are known to be 32 bytes, decoded once so verification does no hex work.
type parsed struct {
	key     []byte
	tokens  []Token
	digests [][32]byte
	// hashers recycles keyed hashers (about 11 KB each) across
	// verifications of this store version.
	hashers sync.Pool
}

// digest is [digest] with a recycled hasher.
func (p *parsed) digest(secret string) [32]byte {
	h, _ := p.hashers.Get().(*blake3.Hasher)
	if h == nil {
		var err error
		if h, err = blake3.NewKeyed(p.key); err != nil {
			// parseStore guarantees a 32-byte key.
			panic("tokens: " + err.Error())
		}
	}
	h.Reset() // keeps the key
	h.WriteString(secret)
	var d [32]byte
	h.Sum(d[:0])
	p.hashers.Put(h)
	return d
}

// FormatError reports a tokens.json that cannot be used. The store is
// never "repaired" silently: a corrupt file would otherwise drop every
// token, or worse, replace the key.
type FormatError struct {
	Path string
	Msg  string
}

func (e *FormatError) Error() string {
	if e.Path == "" {
		return "malformed token store: " + e.Msg
	}
	return fmt.Sprintf("malformed token store %s: %s", e.Path, e.Msg)
}

// parseStore decodes and validates the bytes of a tokens.json file.
func parseStore(b []byte) (*parsed, error) {
	var f fileData
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return nil, &FormatError{Msg: err.Error()}
	}
	if dec.More() {
		return nil, &FormatError{Msg: "trailing data after JSON object"}
	}
	if f.Version != storeVersion {
		return nil, &FormatError{Msg: fmt.Sprintf("unsupported version %d (want %d)", f.Version, storeVersion)}
	}
	key, err := base64.StdEncoding.DecodeString(f.Key)
	if err != nil || len(key) != 32 {
		return nil, &FormatError{Msg: "key must be standard base64 of 32 bytes"}
	}
	p := &parsed{key: key, tokens: f.Tokens, digests: make([][32]byte, len(f.Tokens))}
	seen := make(map[string]bool, len(f.Tokens))
	for i, t := range f.Tokens {
		d, err := hex.DecodeString(t.Digest)
		if err != nil || len(d) != 32 || strings.ToLower(t.Digest) != t.Digest {
			return nil, &FormatError{Msg: fmt.Sprintf("token %d: digest must be 64 lowercase hex characters", i)}
		}
		if t.ID == "" {
			return nil, &FormatError{Msg: fmt.Sprintf("token %d: missing id", i)}
		}
		if seen[t.ID] {
			return nil, &FormatError{Msg: fmt.Sprintf("duplicate token id %q", t.ID)}
		}
		seen[t.ID] = true
		copy(p.digests[i][:], d)
		if p.tokens[i].Caps == nil {
			p.tokens[i].Caps = []string{}
		}
	}
	return p, nil
}

// encode renders the store in its canonical on-disk form.
func (p *parsed) encode() ([]byte, error) {
	f := fileData{
		Version: storeVersion,
		Key:     base64.StdEncoding.EncodeToString(p.key),
		Tokens:  p.tokens,
	}
	if f.Tokens == nil {
		f.Tokens = []Token{}
	}
	for i := range f.Tokens {
		if f.Tokens[i].Caps == nil {
			f.Tokens[i].Caps = []string{}
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
