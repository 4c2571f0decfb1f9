package journal

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenWithoutCGO runs only inside a CGO_ENABLED=0 build of this test binary (see
// TestCGODisabledBuild): Open must fail with ErrNoSQLite, not panic or half-work.
func TestOpenWithoutCGO(t *testing.T) {
	if sqliteAvailable {
		t.Skip("only meaningful in a CGO_ENABLED=0 build")
	}
	j, err := Open(filepath.Join(t.TempDir(), "journal.db"), nil)
	if !errors.Is(err, ErrNoSQLite) || j != nil {
		t.Fatalf("Open without cgo = %v, %v; want ErrNoSQLite", j, err)
	}
	if !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("error does not say why: %v", err)
	}
}

// TestCGODisabledBuild compiles this package's tests with CGO_ENABLED=0 and runs
// TestOpenWithoutCGO in that binary.
func TestCGODisabledBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a second test binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "journal-nocgo.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 build: %v\n%s", err, out)
	}
	run := exec.Command(bin, "-test.run=^TestOpenWithoutCGO$", "-test.v")
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOpenWithoutCGO") {
		t.Fatalf("no-cgo binary: %v\n%s", err, out)
	}
}
