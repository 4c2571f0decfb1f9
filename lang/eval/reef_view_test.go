package eval

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/shoal-sh/shoal/lang/value"
)

// pinTool writes an executable script, a .reef.toml naming it and a reef.lock pinning it.
func pinTool(t *testing.T, dir, name, script, options string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin", name)
	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256([]byte(script))
	os.WriteFile(filepath.Join(dir, ".reef.toml"), []byte(fmt.Sprintf("[tools]\n%s = \"*\"\n%s", name, options)), 0o644)
	lock := fmt.Sprintf("[tool.%s]\nname = %q\nversion = \"1.0.0\"\nprovider = \"system\"\npath = %q\nblake3 = %q\nresolved_at = \"2026-01-01T00:00:00Z\"\n",
		name, name, bin, hex.EncodeToString(sum[:]))
	os.WriteFile(filepath.Join(dir, "reef.lock"), []byte(lock), 0o644)
	return bin
}

// A pinned tool runs with the Reef view at the head of its PATH: a directory of links to the
// pinned tools; hermetic makes the view the whole PATH.
func TestReefViewOnPath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, hermetic := range []bool{false, true} {
		ev, dir := newTestEval(t)
		opts := ""
		if hermetic {
			opts = "[options]\nhermetic = true\n"
		}
		bin := pinTool(t, dir, "showpath", "#!/bin/sh\nprintf '%s' \"$PATH\"\n", opts)
		v, err := ev.Eval(t.Context(), `(showpath).out`)
		if err != nil {
			t.Fatal(err)
		}
		got := string(value.Display(v))
		parts := strings.Split(got, ":")
		view := parts[0]
		if !strings.Contains(view, filepath.Join("shoal", "reef-view")) {
			t.Fatalf("hermetic=%v: PATH %q does not start with a Reef view", hermetic, got)
		}
		if target, err := os.Readlink(filepath.Join(view, "showpath")); err != nil || target != bin {
			t.Fatalf("view link: %q, %v", target, err)
		}
		if hermetic != (len(parts) == 1) {
			t.Fatalf("hermetic=%v: PATH %q", hermetic, got)
		}
		// An unpinned spawn keeps the session PATH.
		if v, err := ev.Eval(t.Context(), `(^sh -c 'printf %s "$PATH"').out`); err != nil || strings.Contains(value.Display(v), "reef-view") {
			t.Fatalf("unpinned spawn PATH %q, %v", value.Display(v), err)
		}
	}
}
