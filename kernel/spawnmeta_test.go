package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/leash/sandbox"
)

// The journal row of an exec that spawned confined children carries the spawn status in its
// meta (AGENT-SURFACE §6.6); a row without spawns has none.
func TestJournalRowSandboxMeta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts *sandbox.Options
	}{{"host", nil}, {"no-landlock", &sandbox.Options{DisableLandlock: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sk := newSecKernel(t, `
[principal."agent:box"]
fs.read = ["/**"]
fs.write = ["{CWD}/**"]
opaque = "allow"
auto_apply = "in-grant"
journal_read = true
`, tc.opts)
			c, a := sk.agent("agent:box", "s")
			ctx := ctxT(t)
			for _, src := range []string{`sh { echo hi }`, `1 + 2`} {
				if _, err := execOn(t, c, proto.ExecParams{Src: &src}); err != nil {
					t.Fatalf("%s: %v", src, err)
				}
			}
			rows, err := c.JournalQuery(ctx, proto.JournalQueryParams{})
			if err != nil || len(rows) != 2 {
				t.Fatalf("journal = %+v, %v", rows, err)
			}
			if rows[0].Src != "1 + 2" || rows[0].Meta != nil {
				t.Errorf("row without spawns: %s meta %s", rows[0].Src, rows[0].Meta)
			}
			var meta struct {
				Sandbox        *proto.SandboxStatus `json:"sandbox"`
				ConfinedSpawns int                  `json:"confined_spawns"`
			}
			if err := json.Unmarshal(rows[1].Meta, &meta); err != nil || meta.Sandbox == nil {
				t.Fatalf("meta of %q = %s, %v", rows[1].Src, rows[1].Meta, err)
			}
			st := meta.Sandbox
			if meta.ConfinedSpawns != 1 || st.AvailableTier != a.Caps.AvailableTier || st.Detail == "" {
				t.Errorf("meta = %s; attach caps %+v", rows[1].Meta, a.Caps)
			}
			if tc.opts != nil && (st.LandlockABI != 0 || st.Enforced || st.FilesystemEnforced) {
				t.Errorf("landlock disabled, meta = %s", rows[1].Meta)
			}
			var raw struct {
				Sandbox map[string]any `json:"sandbox"`
			}
			_ = json.Unmarshal(rows[1].Meta, &raw)
			for _, k := range []string{"available_tier", "active_tier", "enforced", "filesystem_enforced", "spawn_exec_enforced", "network_enforced", "landlock_abi", "detail"} {
				if _, ok := raw.Sandbox[k]; !ok {
					t.Errorf("meta.sandbox lacks %s: %s", k, rows[1].Meta)
				}
			}
		})
	}
}

// The same through the SQLite journal: meta survives the store.
func TestJournalRowSandboxMetaDurable(t *testing.T) {
	t.Parallel()
	pol := filepath.Join(t.TempDir(), "policy.toml")
	src := `[principal."uid:` + strconv.Itoa(os.Geteuid()) + `"]
fs.read = ["/**"]
fs.write = ["/tmp/**"]
opaque = "allow"
auto_apply = "in-grant"
journal_read = true
`
	if err := os.WriteFile(pol, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{PolicyFile: pol, StateDir: t.TempDir()}})
	mustExec(t, k, `sh { true }`)
	rows, err := k.Client.JournalQuery(ctxT(t), proto.JournalQueryParams{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("journal = %+v, %v", rows, err)
	}
	var meta struct {
		Sandbox map[string]any `json:"sandbox"`
	}
	if err := json.Unmarshal(rows[0].Meta, &meta); err != nil || meta.Sandbox["available_tier"] == nil {
		t.Fatalf("meta = %s, %v", rows[0].Meta, err)
	}
}
