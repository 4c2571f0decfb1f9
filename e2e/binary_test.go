package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The MCP and kernel tests drive the real built executable as separate
// processes (an MCP client spawns it; it re-execs itself as the kernel).
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// shoalBinary builds bin/shoal once per test run into a temporary
// directory removed when the tests end. SHOAL_E2E_BINARY names a prebuilt
// binary to use instead, to compare two builds with the same tests.
func shoalBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("SHOAL_E2E_BINARY"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "shoal-e2e-bin")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "shoal"), "..").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "shoal")
}

// mainM wraps testing.M to remove the build directory after the run.
type mainM struct{ m *testing.M }

func (w mainM) Run() int {
	code := w.m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}

// sandbox is one test's private environment: its own runtime dir (so its
// own socket), state dir and home.
type sandbox struct {
	dir string
	env []string
}

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	// Short paths: a Unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "shl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"run", "state", "home", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"HOME=" + filepath.Join(dir, "home"),
	}
	return &sandbox{dir: dir, env: env}
}

func (s *sandbox) socket() string { return filepath.Join(s.dir, "run", "shoal", "default.sock") }

// command returns the real binary run with args in the sandbox.
func (s *sandbox) command(t testing.TB, extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command(shoalBinary(t), args...)
	cmd.Env = append(append([]string(nil), s.env...), extraEnv...)
	cmd.Dir = filepath.Join(s.dir, "work")
	cmd.Stderr = os.Stderr
	return cmd
}

// kernelPid asks the kernel on socket who it is, over raw JSON-RPC, so the
// test can stop the kernel it caused.
func kernelPid(socket string) (int, error) {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{}}` + "\n")); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return 0, err
	}
	var resp struct {
		Result struct {
			Kernel struct {
				Pid int `json:"pid"`
			} `json:"kernel"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result.Kernel.Pid == 0 {
		return 0, fmt.Errorf("attach reply %s: %v", line, err)
	}
	return resp.Result.Kernel.Pid, nil
}

// stopKernel terminates the kernel listening on socket (if any) and waits
// for it to go away, so nothing outlives the test.
func stopKernel(t testing.TB, socket string) {
	pid, err := kernelPid(socket)
	if err != nil {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 500; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("kernel %d ignored SIGTERM for 5 s", pid)
}

// rawCall attaches a fresh connection to the kernel on socket and makes
// one call, returning the raw result (or error) frame.
func rawCall(socket, method, params string) (string, error) {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	frames := `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":` + params + "}\n"
	if _, err := c.Write([]byte(frames)); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return "", err
		}
		var resp struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &resp) == nil && string(resp.ID) == "2" {
			return string(line), nil
		}
	}
}

// dialWhenListening connects to the Unix socket at path as soon as a process started by the
// test listens on it, trying every millisecond for up to within.
func dialWhenListening(tb testing.TB, path string, within time.Duration) net.Conn {
	tb.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(time.Millisecond) {
		c, err := net.Dial("unix", path)
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nothing listened on %s within %v: %v", path, within, err)
		}
	}
}
