package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// shoal fmt FILE rewrites through a symlink into its target, keeps the
// mode, leaves an already formatted file alone (same inode) and no
// temporary file behind.
func TestFmtInPlace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.shl")
	if err := os.WriteFile(target, []byte("fn f() {\n      1   \n}\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.shl")
	if err := os.Symlink("real.shl", link); err != nil {
		t.Fatal(err)
	}
	tidy := filepath.Join(dir, "tidy.shl")
	if err := os.WriteFile(tidy, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inode := func(p string) uint64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before := inode(tidy)

	var out, errb bytes.Buffer
	if code := Main([]string{"shoal", "fmt", link, tidy}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if out.Len() != 0 || errb.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", out.String(), errb.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v", err)
	}
	got, err := os.ReadFile(target)
	if err != nil || string(got) != "fn f() {\n  1\n}\n" {
		t.Fatalf("target %q, %v", got, err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want 0751", fi.Mode().Perm())
	}
	if inode(tidy) != before {
		t.Error("an already formatted file was rewritten")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("directory holds %d entries, want 3 (a temporary file left behind?)", len(entries))
	}
}
