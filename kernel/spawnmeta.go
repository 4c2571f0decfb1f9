package kernel

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/leash/sandbox"
)

// spawnRecorder collects the sandbox status of an exec's confined spawns, for the meta of its
// journal row (AGENT-SURFACE §6.6). Every spawn of one principal is confined by the same
// spec, so the last status stands for all of them.
type spawnRecorder struct {
	mu sync.Mutex
	st *proto.SandboxStatus
	n  int
}

type spawnRecKey struct{}

// withSpawnRecorder returns ctx carrying a fresh recorder; spawns started under it (the
// evaluator passes its thread context to StartCmd) are recorded there.
func withSpawnRecorder(ctx context.Context) (context.Context, *spawnRecorder) {
	r := &spawnRecorder{}
	return context.WithValue(ctx, spawnRecKey{}, r), r
}

// recordSpawn notes a confined spawn's status on ctx's recorder, if any.
func recordSpawn(ctx context.Context, st sandbox.Status) {
	r, _ := ctx.Value(spawnRecKey{}).(*spawnRecorder)
	if r == nil {
		return
	}
	r.mu.Lock()
	r.st, r.n = wireStatus(st), r.n+1
	r.mu.Unlock()
}

// spawnMeta is the journal row meta of a confined exec.
type spawnMeta struct {
	Sandbox        *proto.SandboxStatus `json:"sandbox"`
	ConfinedSpawns int                  `json:"confined_spawns"`
}

// meta is {"sandbox": status, "confined_spawns": n}, or nil when nothing confined was spawned.
func (r *spawnRecorder) meta() json.RawMessage {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return nil
	}
	b, err := json.Marshal(spawnMeta{Sandbox: r.st, ConfinedSpawns: r.n})
	if err != nil {
		return nil
	}
	return b
}
