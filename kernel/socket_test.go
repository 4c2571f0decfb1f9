package kernel_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// startRun runs a whole daemon with Run and waits for its Ready callback.
func startRun(t *testing.T, sock string) (cancel func() error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- kernel.Run(ctx, &kernel.Options{Socket: sock, Cwd: t.TempDir(), Ready: func(p string) { ready <- p }})
	}()
	select {
	case p := <-ready:
		if p != sock {
			t.Fatalf("ready path = %q, want %q", p, sock)
		}
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no ready callback")
	}
	return func() error { stop(); return <-done }
}

// Scenario 23: socket hygiene.
func TestSocketHygiene(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fresh", "shoal")
	sock := filepath.Join(dir, "default.sock")
	stop := startRun(t, sock)
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("socket mode = %v, %v", fi.Mode(), err)
	}
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("new dir mode = %v, want 0700", di.Mode().Perm())
	}
	// A client works over the real socket (peer uid is ours).
	c, err := client.Dial(context.Background(), sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := "1 + 2"
	if _, err := c.Attach(context.Background(), proto.SessionAttachParams{}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Exec(context.Background(), proto.ExecParams{Src: &src}); err != nil || string(res.Value) != `{"$":"int","v":3}` {
		t.Fatalf("exec over socket = %+v, %v", res, err)
	}
	c.Close()
	// A second kernel on the live socket refuses.
	err = kernel.Run(context.Background(), &kernel.Options{Socket: sock})
	if !errors.Is(err, kernel.ErrAlreadyListening) || !strings.Contains(err.Error(), "already listening") {
		t.Fatalf("second kernel: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind after shutdown: %v", err)
	}

	// A stale socket of ours is replaced.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("stale socket missing: %v", err)
	}
	stop = startRun(t, sock)
	stop()

	// A regular file is never removed.
	if err := os.WriteFile(sock, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = kernel.Run(context.Background(), &kernel.Options{Socket: sock})
	if err == nil || !strings.Contains(err.Error(), "refusing to remove unowned non-socket path") {
		t.Fatalf("regular file: %v", err)
	}
	if b, _ := os.ReadFile(sock); string(b) != "keep" {
		t.Errorf("regular file was touched")
	}
}

// Activate connects to a running kernel without spawning, and reports a visible error with
// autostart off and nothing listening.
func TestActivateNoAutostart(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "k.sock")
	_, err := client.Activate(context.Background(), sock, &client.ActivateOptions{NoAutostart: true})
	if err == nil {
		t.Fatal("connected to nothing")
	}
	stop := startRun(t, sock)
	defer stop()
	c, err := client.Activate(context.Background(), sock, &client.ActivateOptions{NoAutostart: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestSocketPath(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) client.LookupEnv {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, tc := range []struct {
		explicit, session string
		env               map[string]string
		want              string
	}{
		{"/x.sock", "s", map[string]string{"XDG_RUNTIME_DIR": "/run/u"}, "/x.sock"},
		{"", "", map[string]string{"XDG_RUNTIME_DIR": "/run/u", "TMPDIR": "/t"}, "/run/u/shoal/default.sock"},
		{"", "w", map[string]string{"XDG_RUNTIME_DIR": "", "TMPDIR": "/t"}, "/t/shoal-7/shoal/w.sock"},
		{"", "w", nil, "/tmp/shoal-7/shoal/w.sock"},
	} {
		if got := client.SocketPath(tc.explicit, tc.session, 7, env(tc.env)); got != tc.want {
			t.Errorf("SocketPath(%q, %q, %v) = %q, want %q", tc.explicit, tc.session, tc.env, got, tc.want)
		}
	}
	if got := client.StateDir(env(map[string]string{"HOME": "/h"})); got != "/h/.local/state/shoal" {
		t.Errorf("StateDir = %q", got)
	}
	if got := client.StateDir(env(map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"})); got != "/s/shoal" {
		t.Errorf("StateDir = %q", got)
	}
	if got := client.StateDir(nil); got != "shoal" {
		t.Errorf("StateDir = %q", got)
	}
}
