package tokens

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzStoreRead feeds arbitrary bytes to the store reader: it must never
// panic, and whatever it accepts must survive an encode/parse round trip.
func FuzzStoreRead(f *testing.F) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	f.Add([]byte(`{"version":1,"key":"` + key + `","tokens":[]}`))
	f.Add([]byte(`{"version":1,"key":"` + key + `","tokens":[{"id":"a","principal":"p","profile":"d","caps":["x"],"created_ns":1,"expires_ns":null,"revoked_ns":5,"digest":"` + strings.Repeat("0f", 32) + `"}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseStore(b)
		if err != nil {
			return
		}
		out, err := p.encode()
		if err != nil {
			t.Fatalf("encode accepted store: %v", err)
		}
		q, err := parseStore(out)
		if err != nil {
			t.Fatalf("re-parse of encoded store: %v\n%s", err, out)
		}
		if len(q.tokens) != len(p.tokens) || string(q.key) != string(p.key) {
			t.Fatal("round trip changed the store")
		}
		for i := range p.tokens {
			if q.digests[i] != p.digests[i] {
				t.Fatal("round trip changed a digest")
			}
		}
	})
}
