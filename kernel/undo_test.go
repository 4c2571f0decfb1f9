package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// undo walks back through the session's execs: the newest reversible exec first, all its
// changes newest first, and each only once; rm, mv, save and > are reversible.
func TestUndoWalksBack(t *testing.T) {
	t.Parallel()
	for _, journaled := range []bool{false, true} {
		dir := t.TempDir()
		ko := &kernel.Options{}
		if journaled {
			ko.StateDir = t.TempDir()
		}
		k := newKernel(t, &kerneltest.Options{Cwd: dir, Kernel: ko})
		a, b, c, d := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt"), filepath.Join(dir, "d.txt")
		os.WriteFile(a, []byte("one"), 0o600)
		os.WriteFile(b, []byte("bee"), 0o644)
		run := func(src string) value.Value {
			t.Helper()
			v, err := k.Run(src)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			return v
		}
		run(`rm a.txt`)
		run(`mv b.txt c.txt`)
		run(`"two".save("a2.txt")
"new".save("d.txt")`)
		os.WriteFile(a, []byte("recreated"), 0o600) // not by shoal: undo of the rm must refuse
		if exists(b) || !exists(c) || readFile(t, d) != "new" {
			t.Fatal("the changes did not happen")
		}
		// 1: the saves (d.txt was created, so undo removes it).
		v := run(`(undo).out`)
		if !strings.Contains(value.Display(v), "d.txt") || !strings.Contains(value.Display(v), "RestoreBytes") || exists(d) || exists(filepath.Join(dir, "a2.txt")) {
			t.Fatalf("journaled=%v: undo of the saves = %s; d exists %v", journaled, value.Display(v), exists(d))
		}
		// 2: the mv.
		if v := run(`(undo).out.undone[0].op`); value.Display(v) != "MoveBack" {
			t.Fatalf("undo of mv reported op %s", value.Display(v))
		}
		if !exists(b) || exists(c) || readFile(t, b) != "bee" {
			t.Fatalf("journaled=%v: mv not undone", journaled)
		}
		// 3: the rm, but a.txt exists again: stale, and nothing is touched.
		if _, err := k.Run(`undo`); diag.As(err) == nil || diag.As(err).Code != diag.StaleUndo {
			t.Fatalf("journaled=%v: undo over a recreated file: %v", journaled, err)
		}
		if readFile(t, a) != "recreated" {
			t.Fatal("a stale undo touched the file")
		}
		os.Remove(a)
		run(`undo`)
		if readFile(t, a) != "one" {
			t.Fatalf("journaled=%v: rm not undone: %q", journaled, readFile(t, a))
		}
		if _, err := k.Run(`undo`); diag.As(err) == nil || diag.As(err).Code != diag.NotFound {
			t.Fatalf("journaled=%v: undo with nothing left: %v", journaled, err)
		}
	}
}

// An overwrite is undone by restoring the earlier content, unless the file changed since.
func TestUndoRestoresOverwrittenContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := newKernel(t, &kerneltest.Options{Cwd: dir, Kernel: &kernel.Options{StateDir: t.TempDir()}})
	f := filepath.Join(dir, "f.txt")
	os.WriteFile(f, []byte("original\n"), 0o640)
	if _, err := k.Run(`^echo replaced > f.txt`); err != nil {
		t.Fatal(err)
	}
	if readFile(t, f) != "replaced\n" {
		t.Fatalf("redirect wrote %q", readFile(t, f))
	}
	res, err := k.Run(`undo`)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, f) != "original\n" {
		t.Fatalf("after undo: %q (%s)", readFile(t, f), value.Display(res))
	}
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode after undo: %v", fi.Mode().Perm())
	}
	// Overwrite again, then change the file by hand: stale.
	k.Run(`"v2".save("f.txt")`)
	os.WriteFile(f, []byte("edited"), 0o640)
	if _, err := k.Run(`undo`); diag.As(err) == nil || diag.As(err).Code != diag.StaleUndo {
		t.Fatalf("undo of an edited file: %v", err)
	}
	// undo ID names an entry; another principal's or an unknown one is not found.
	if _, err := k.Run(`undo 99999`); diag.As(err) == nil || diag.As(err).Code != diag.NotFound {
		t.Fatalf("undo of an unknown entry: %v", err)
	}
}

// Undo records live in the journal: an exec survives a kernel restart and is undone by the
// next kernel (the trash outlives the kernel process).
func TestUndoAcrossRestart(t *testing.T) {
	t.Parallel()
	dir, state := t.TempDir(), t.TempDir()
	f := filepath.Join(dir, "keep.txt")
	os.WriteFile(f, []byte("precious"), 0o600)
	k := newKernel(t, &kerneltest.Options{Cwd: dir, Kernel: &kernel.Options{StateDir: state}})
	if _, err := k.Run(`rm keep.txt`); err != nil {
		t.Fatal(err)
	}
	k.Close()
	if exists(f) {
		t.Fatal("rm did not remove the file")
	}
	k2 := newKernel(t, &kerneltest.Options{Cwd: dir, Kernel: &kernel.Options{StateDir: state}})
	if _, err := k2.Run(`undo`); err != nil {
		t.Fatal(err)
	}
	if readFile(t, f) != "precious" {
		t.Fatalf("after undo in a new kernel: %q", readFile(t, f))
	}
}
