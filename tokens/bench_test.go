package tokens

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeBigStore writes a store of n tokens directly, without n fsyncs,
// and returns the secret of the last one.
func writeBigStore(tb testing.TB, path string, n int) string {
	p := &parsed{key: make([]byte, 32)}
	rand.Read(p.key)
	var secret string
	for i := range n {
		raw := make([]byte, 32)
		rand.Read(raw)
		secret = base64.RawURLEncoding.EncodeToString(raw)
		d := digest(p.key, secret)
		p.tokens = append(p.tokens, Token{
			ID: hex.EncodeToString(d[:8]), Principal: fmt.Sprintf("agent:%d", i),
			Profile: "p", Caps: []string{}, Digest: hex.EncodeToString(d[:]),
		})
	}
	b, err := p.encode()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// BenchmarkVerify1000 measures one token attach against a 1,000-token
// store whose file has not changed (a stat, a keyed hash, 1,000 compares).
func BenchmarkVerify1000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "tokens.json")
	secret := writeBigStore(b, path, 1000)
	v := NewVerifier(path, nil)
	if _, err := v.Verify(secret); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(secret); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify1000Reload is the worst case: the file changed, so it is
// read and parsed again.
func BenchmarkVerify1000Reload(b *testing.B) {
	path := filepath.Join(b.TempDir(), "tokens.json")
	secret := writeBigStore(b, path, 1000)
	for b.Loop() {
		v := NewVerifier(path, nil)
		if _, err := v.Verify(secret); err != nil {
			b.Fatal(err)
		}
	}
}
