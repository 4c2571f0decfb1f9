package kernel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoal-sh/shoal/kernel/kerneltest"
)

// session.reef reports the nearest manifest and its tools, with lock data where present.
func TestSessionReef(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifest := "[tools]\nnode = \"22\"\nrg = \"*\"\n"
	if err := os.WriteFile(filepath.Join(dir, ".reef.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := "[tool.node]\nname = \"node\"\nversion = \"22.3.0\"\nprovider = \"mise\"\npath = \"/nonexistent/node\"\nblake3 = \"00\"\n"
	if err := os.WriteFile(filepath.Join(dir, "reef.lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{Cwd: dir})
	ctx := ctxT(t)
	r, err := k.Client.SessionReef(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ".reef.toml")
	if r.ActiveScope == nil || *r.ActiveScope != want || len(r.Bindings) != 2 {
		t.Fatalf("reef = %+v", r)
	}
	node, rg := r.Bindings[0], r.Bindings[1]
	if node.Tool != "node" || node.Version == nil || *node.Version != "22.3.0" || node.Provider == nil || *node.Provider != "mise" ||
		node.Scope != want || !node.Constrained {
		t.Errorf("node = %+v", node)
	}
	if rg.Tool != "rg" || rg.Version != nil || rg.Provider != nil || rg.Constrained {
		t.Errorf("rg = %+v", rg)
	}
	// Leaving the scope: cd follows the session.
	mustExec(t, k, "cd /")
	r, err = k.Client.SessionReef(ctx)
	if err != nil || r.ActiveScope != nil || len(r.Bindings) != 0 {
		t.Fatalf("reef at / = %+v, %v", r, err)
	}
}
