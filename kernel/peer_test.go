package kernel_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/proto"
)

const peerHelperEnv = "SHOAL_KERNELTEST_PEER_SOCKET"

// TestHelperPeer connects to the socket, sends one request and prints the reply or "EOF".
func TestHelperPeer(t *testing.T) {
	sock := os.Getenv(peerHelperEnv)
	if sock == "" {
		t.Skip("helper process only")
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("DIAL", err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintln(c, `{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"1"}}`)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fmt.Println("EOF")
		return
	}
	fmt.Print("REPLY ", line)
}

// A peer running as another uid is dropped before any byte is read, even when the socket's
// permissions would let it connect.
func TestPeerUIDChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a peer as another uid")
	}
	t.Parallel()
	// t.TempDir's parent is 0700; the other uid must be able to reach the helper and socket.
	dir, err := os.MkdirTemp("", "shoal-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	sock := filepath.Join(dir, "k.sock")
	srv, err := kernel.New(&kernel.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := kernel.Listen(sock, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, ln)
	os.Chmod(filepath.Dir(sock), 0o755) // loosen on purpose: only the peer check stands
	os.Chmod(sock, 0o666)
	bin := filepath.Join(dir, "helper.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	run := func(uid uint32) string {
		cmd := execpkg.Command(bin, "-test.run=^TestHelperPeer$")
		cmd.Env = append(os.Environ(), peerHelperEnv+"="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		return string(out) + fmt.Sprint(err)
	}
	if out := run(0); !strings.Contains(out, "REPLY") || !strings.Contains(out, `"ast_version":2`) {
		t.Fatalf("same uid: %s", out)
	}
	if out := run(65534); !strings.Contains(out, "EOF") || strings.Contains(out, "REPLY") {
		t.Fatalf("other uid was served: %s", out)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// Shutting the kernel down kills its tasks' process groups.
func TestShutdownKillsTasks(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("sh { exec sleep 30.75 }"), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(2 * time.Millisecond) {
		pid = findProc("sleep\x0030.75\x00")
		if time.Now().After(deadline) {
			t.Fatalf("task %s never spawned", res.Task)
		}
	}
	k.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			return // gone (reaped)
		}
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(stat), ") Z ") {
			return // dead, waiting to be reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("task process %d survived kernel shutdown", pid)
		}
	}
}

// findProc returns the pid of a process with exactly this cmdline, or 0.
func findProc(cmdline string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == cmdline {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			return pid
		}
	}
	return 0
}
