package kernel

import (
	"encoding/hex"
	"sync"

	"github.com/zeebo/blake3"
)

// blobCache remembers hashes this kernel has already stored, so a repeated output (the same
// value, render or empty stdout, which is most of them) costs a hash instead of a journal write.
// It is bounded and simply forgets everything when full.
type blobCache struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

const blobCacheMax = 4096

// known reports whether data is already stored, describing it as an output of kind.
func (c *blobCache) known(kind string, data []byte) (JournalOutput, bool) {
	sum := blake3.Sum256(data)
	h := hex.EncodeToString(sum[:])
	c.mu.Lock()
	_, ok := c.seen[h]
	c.mu.Unlock()
	return JournalOutput{Kind: kind, Hash: h, Len: int64(len(data))}, ok
}

func (c *blobCache) add(hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil || len(c.seen) >= blobCacheMax {
		c.seen = make(map[string]struct{}, 64)
	}
	c.seen[hash] = struct{}{}
}
