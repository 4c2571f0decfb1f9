package kernel

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/shoal-sh/shoal/kernel/effects"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
	"github.com/shoal-sh/shoal/leash/sandbox"
	"github.com/zeebo/blake3"
)

// derived is what the kernel knows about a program before running it.
type derived struct {
	effects     []leash.Effect
	effectsJSON json.RawMessage
	opaque      bool
}

// derive computes a program's effects against the session's cwd, home, bindings and PATH.
// Binaries are hashed only for principals whose spawns are pinned; the spawn itself re-hashes
// the descriptor it executes.
func (ss *session) derive(prog *syntax.Program, cwd string, env []string) derived {
	home, path := "", ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		} else if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	e := &effects.Env{Cwd: cwd, Home: home, Bound: ss.ev.Bound,
		LookPath: func(name string) (string, error) { return lookPath(name, path) }}
	if lp := ss.srv.lp; lp != nil && lp.pinning(ss.key.principal) {
		e.HashFile = sandbox.HashFile // pins may name hashes: judge the binary that would run
	}
	effs := effects.Derive(prog, e)
	if effs == nil {
		effs = []leash.Effect{}
	}
	d := derived{effects: effs}
	for _, e := range effs {
		if e.Kind == leash.KindOpaque {
			d.opaque = true
		}
	}
	b, err := json.Marshal(effs)
	if err != nil {
		b = []byte("[]")
	}
	d.effectsJSON = b
	return d
}

// wire converts the effects to their wire objects.
func (d derived) wire() []proto.Effect {
	out := []proto.Effect{}
	_ = json.Unmarshal(d.effectsJSON, &out) // produced by json.Marshal just above
	return out
}

// fingerprint is hex BLAKE3 of ast_json ‖ 0x00 ‖ effects_json: the identity of a plan's content.
func fingerprint(ast, effectsJSON []byte) string {
	h := blake3.New()
	h.Write(ast)
	h.Write([]byte{0})
	h.Write(effectsJSON)
	return hex.EncodeToString(h.Sum(nil))
}

// lookPath resolves a bare command name through a session PATH (not the kernel's).
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("executable file not found in PATH")
}
