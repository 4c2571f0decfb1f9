package tokens

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zeebo/blake3"
)

// fakeClock is a settable clock for expiry tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newStore(t *testing.T, clk *fakeClock) *Store {
	t.Helper()
	var opts *Options
	if clk != nil {
		opts = &Options{Now: clk.Now}
	}
	s, err := Open(filepath.Join(t.TempDir(), "tokens.json"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenCreatesStoreWithKey(t *testing.T) {
	t.Parallel()
	s := newStore(t, nil)
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	var raw map[string]json.RawMessage
	b, _ := os.ReadFile(s.Path())
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["version"]) != "1" || string(raw["tokens"]) != "[]" {
		t.Errorf("unexpected store %s", b)
	}
	var key string
	json.Unmarshal(raw["key"], &key)
	if k, err := base64.StdEncoding.DecodeString(key); err != nil || len(k) != 32 {
		t.Errorf("key %q is not std base64 of 32 bytes", key)
	}
	// Reopening keeps the key.
	before := string(b)
	if _, err := Open(s.Path(), nil); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(s.Path())
	if string(after) != before {
		t.Error("reopening rewrote the store")
	}
}

func TestOpenForcesMode0600(t *testing.T) {
	t.Parallel()
	s := newStore(t, nil)
	if err := os.Chmod(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(s.Path(), nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(s.Path())
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v after Open, want 0600", fi.Mode().Perm())
	}
}

func TestCreateRecordShape(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(1000, 5)}
	s := newStore(t, clk)
	ttl := 30 * time.Second
	secret, tok, err := s.Create("agent:reviewer", "reviewer", []string{"fs.read"}, &ttl)
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != 43 {
		t.Errorf("secret length %d, want 43", len(secret))
	}
	if raw, err := base64.RawURLEncoding.DecodeString(secret); err != nil || len(raw) != 32 {
		t.Errorf("secret %q is not unpadded base64url of 32 bytes", secret)
	}
	b, _ := os.ReadFile(s.Path())
	if strings.Contains(string(b), secret) {
		t.Fatal("secret stored in the file")
	}
	var f struct {
		Key    string
		Tokens []map[string]any
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	key, _ := base64.StdEncoding.DecodeString(f.Key)
	h, _ := blake3.NewKeyed(key)
	h.Write([]byte(secret))
	wantDigest := hex.EncodeToString(h.Sum(nil))
	want := map[string]any{
		"id": wantDigest[:16], "principal": "agent:reviewer", "profile": "reviewer",
		"caps": []any{"fs.read"}, "created_ns": float64(1000_000_000_005),
		"expires_ns": float64(1030_000_000_005), "revoked_ns": nil, "digest": wantDigest,
	}
	if len(f.Tokens) != 1 {
		t.Fatalf("%d tokens stored", len(f.Tokens))
	}
	if diff := cmp.Diff(want, f.Tokens[0]); diff != "" {
		t.Errorf("stored token (-want +got):\n%s", diff)
	}
	if tok.ID != wantDigest[:16] || tok.Digest != wantDigest {
		t.Errorf("returned token %+v disagrees with the file", tok)
	}
}

func TestCreateNilCapsAndNoTTL(t *testing.T) {
	t.Parallel()
	s := newStore(t, nil)
	if _, _, err := s.Create("agent:a", "default", nil, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.Path())
	if !strings.Contains(string(b), `"caps": []`) || !strings.Contains(string(b), `"expires_ns": null`) {
		t.Errorf("want empty caps list and null expiry, got %s", b)
	}
	if _, _, err := s.Create("", "x", nil, nil); err == nil {
		t.Error("empty principal accepted")
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(2000, 0)}
	s := newStore(t, clk)
	secret, tok, err := s.Create("agent:a", "p", []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Verify(secret)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tok, got); diff != "" {
		t.Errorf("verified token (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "nope", secret[:42], secret + "A", strings.ToUpper(secret)} {
		if _, err := s.Verify(bad); !errors.Is(err, ErrAuth) {
			t.Errorf("Verify(%q) = %v, want ErrAuth", bad, err)
		}
	}
}

func TestVerifyExpiry(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(3000, 0)}
	s := newStore(t, clk)
	ttl := time.Minute
	secret, _, _ := s.Create("agent:a", "p", nil, &ttl)
	if _, err := s.Verify(secret); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	clk.Add(time.Minute - 1)
	if _, err := s.Verify(secret); err != nil {
		t.Fatalf("1ns before expiry: %v", err)
	}
	clk.Add(1)
	if _, err := s.Verify(secret); !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("at expiry: %v, want expired", err)
	}
	for _, d := range []time.Duration{0, -time.Second} {
		sec, tok, _ := s.Create("agent:b", "p", nil, &d)
		if _, err := s.Verify(sec); !errors.Is(err, ErrAuth) {
			t.Errorf("ttl %v: token verified, want born expired", d)
		}
		if got := tok.State(clk.Now().UnixNano()); got != StateExpired {
			t.Errorf("ttl %v: state %s", d, got)
		}
	}
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(4000, 0)}
	s := newStore(t, clk)
	secret, tok, _ := s.Create("agent:a", "p", nil, nil)
	other, _, _ := s.Create("agent:b", "p", nil, nil)
	if err := s.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(secret); !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("revoked token: %v", err)
	}
	if _, err := s.Verify(other); err != nil {
		t.Errorf("other token broke: %v", err)
	}
	clk.Add(time.Hour)
	if err := s.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	list, _ := s.List()
	if *list[0].RevokedNs != time.Unix(4000, 0).UnixNano() {
		t.Error("second revoke changed revoked_ns")
	}
	err := s.Revoke("0000000000000000")
	if !errors.Is(err, ErrUnknownID) || err.Error() != "unknown token id" {
		t.Errorf("unknown id: %v", err)
	}
}

// TestVerifierSeesOtherWriters stands in for the kernel (a Verifier) and
// the token CLI (a separate Store on the same file).
func TestVerifierSeesOtherWriters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	cli, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVerifier(path, nil)
	if _, err := v.Verify("x"); !errors.Is(err, ErrAuth) {
		t.Fatal(err)
	}
	secret, tok, _ := cli.Create("agent:late", "p", nil, nil)
	if got, err := v.Verify(secret); err != nil || got.ID != tok.ID {
		t.Fatalf("token created after start: %v", err)
	}
	if v.loads != 2 {
		t.Errorf("loads = %d, want 2", v.loads)
	}
	for range 5 {
		v.Verify(secret)
	}
	if v.loads != 2 {
		t.Errorf("unchanged file re-read: loads = %d", v.loads)
	}
	if err := cli.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(secret); !errors.Is(err, ErrAuth) {
		t.Errorf("revoked by another writer but still verifies: %v", err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	const n = 16
	var wg sync.WaitGroup
	secrets := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// A Store per writer: separate lock descriptors, as separate
			// processes would have.
			s, err := Open(path, nil)
			if err == nil {
				secrets[i], _, err = s.Create(fmt.Sprintf("agent:%d", i), "p", nil, nil)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	v := NewVerifier(path, nil)
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if tok, err := v.Verify(secrets[i]); err != nil || tok.Principal != fmt.Sprintf("agent:%d", i) {
			t.Errorf("writer %d's token lost: %v", i, err)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".tokens.json.tmp-*"))
	if len(matches) != 0 {
		t.Errorf("temp files left: %v", matches)
	}
}

func TestMalformedStore(t *testing.T) {
	t.Parallel()
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	digest := strings.Repeat("ab", 32)
	cases := map[string]string{
		"not json":      "{",
		"empty":         "",
		"trailing":      `{"version":1,"key":"` + key + `","tokens":[]} {}`,
		"version":       `{"version":2,"key":"` + key + `","tokens":[]}`,
		"short key":     `{"version":1,"key":"AAAA","tokens":[]}`,
		"bad key":       `{"version":1,"key":"!!","tokens":[]}`,
		"bad digest":    `{"version":1,"key":"` + key + `","tokens":[{"id":"a","digest":"zz"}]}`,
		"upper digest":  `{"version":1,"key":"` + key + `","tokens":[{"id":"a","digest":"` + strings.ToUpper(digest) + `"}]}`,
		"no id":         `{"version":1,"key":"` + key + `","tokens":[{"digest":"` + digest + `"}]}`,
		"duplicate id":  `{"version":1,"key":"` + key + `","tokens":[{"id":"a","digest":"` + digest + `"},{"id":"a","digest":"` + digest + `"}]}`,
		"tokens object": `{"version":1,"key":"` + key + `","tokens":{}}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "tokens.json")
			os.WriteFile(path, []byte(content), 0o600)
			_, err := Open(path, nil)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open = %v, want FormatError naming the path", err)
			}
			if _, err := NewVerifier(path, nil).Verify("x"); err == nil || errors.Is(err, ErrAuth) {
				t.Errorf("Verify on malformed store = %v, want a store error", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Error("malformed store was rewritten")
			}
		})
	}
}

func TestMissingStoreVerify(t *testing.T) {
	t.Parallel()
	v := NewVerifier(filepath.Join(t.TempDir(), "absent.json"), nil)
	if _, err := v.Verify("x"); err == nil || errors.Is(err, ErrAuth) {
		t.Errorf("Verify = %v, want a missing-store error", err)
	}
}

func TestCLIStrings(t *testing.T) {
	t.Parallel()
	exp, rev := int64(100), int64(50)
	cases := []struct {
		tok  Token
		want string
	}{
		{Token{ID: "9f2c4e1a0b7d3c55", Principal: "agent:r", Profile: "reviewer"}, "9f2c4e1a0b7d3c55\tagent:r\treviewer\tactive"},
		{Token{ID: "a", Principal: "p", Profile: "d", ExpiresNs: &exp}, "a\tp\td\texpired"},
		{Token{ID: "a", Principal: "p", Profile: "d", ExpiresNs: &exp, RevokedNs: &rev}, "a\tp\td\trevoked"},
	}
	for _, tc := range cases {
		if got := ListLine(tc.tok, 100); got != tc.want {
			t.Errorf("ListLine = %q, want %q", got, tc.want)
		}
	}
	if got := ListLine(Token{ID: "a", Principal: "p", Profile: "d", ExpiresNs: &exp}, 99); !strings.HasSuffix(got, "\tactive") {
		t.Errorf("before expiry: %q", got)
	}
	if got := CreatedLine("9f2c4e1a0b7d3c55"); got != "created 9f2c4e1a0b7d3c55 (secret shown once)" {
		t.Errorf("CreatedLine = %q", got)
	}
}

func TestRandomFailure(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	if _, err := Open(path, &Options{Rand: strings.NewReader("short")}); err == nil {
		t.Fatal("Open with a failing random source succeeded")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("store written without a key")
	}
}

func TestOpenCreatesDirectory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "shoal", "tokens.json")
	if _, err := Open(path, nil); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir: %v %v", err, fi)
	}
}

func TestHugeTTL(t *testing.T) {
	t.Parallel()
	s := newStore(t, nil)
	ttl := time.Duration(math.MaxInt64)
	secret, tok, err := s.Create("agent:a", "p", nil, &ttl)
	if err != nil {
		t.Fatal(err)
	}
	if *tok.ExpiresNs != math.MaxInt64 {
		t.Errorf("expires_ns = %d, want saturation", *tok.ExpiresNs)
	}
	if _, err := s.Verify(secret); err != nil {
		t.Errorf("far-future token rejected: %v", err)
	}
}
