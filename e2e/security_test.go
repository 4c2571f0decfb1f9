package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// securedKernel starts `shoal kernel --policy --token-store` in the sandbox on its own socket,
// waits for it to be ready and stops it when the test ends.
func securedKernel(t *testing.T, sb *sandbox, policy, store string, extra ...string) string {
	t.Helper()
	sock := filepath.Join(sb.dir, "run", "sec.sock")
	cmd := sb.command(t, nil, append([]string{"kernel", "--socket", sock, "--policy", policy, "--token-store", store}, extra...)...)
	cmd.Stderr = nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("kernel ignored SIGINT")
		}
	})
	ready := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString('\n')
			if strings.HasPrefix(line, "shoal-kernel: ready ") {
				ready <- line
			} else if line != "" {
				t.Logf("kernel: %s", strings.TrimSpace(line))
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("kernel never became ready")
	}
	return sock
}

// createToken runs `shoal token create` against store and returns the secret.
func createToken(t *testing.T, sb *sandbox, store, principal string) string {
	t.Helper()
	cmd := sb.command(t, []string{"SHOAL_TOKEN_STORE=" + store}, "token", "create", principal)
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// tokenAttach attaches a raw connection with a token and returns the attach result frame.
func tokenAttach(t *testing.T, sock, token string) map[string]any {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session.attach", "params": map[string]any{"token": token}})
	if _, err := c.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("attach reply %s: %v", line, err)
	}
	return m
}

// A principal confined by its policy, driven through `shoal mcp` with SHOAL_TOKEN: its
// children read and write inside the granted directory only, reach only the granted TCP
// port, and cannot spawn a binary outside its pins.
func TestSecurityConfinedPrincipal(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	okLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer okLn.Close()
	badLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer badLn.Close()
	for _, ln := range []net.Listener{okLn, badLn} {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	okPort, badPort := okLn.Addr().(*net.TCPAddr).Port, badLn.Addr().(*net.TCPAddr).Port
	policy := filepath.Join(sb.dir, "policy.toml")
	policyText := fmt.Sprintf(`
[principal."agent:box"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "%[1]s/**"]
fs.write = ["%[1]s/**"]
fs.delete = ["%[1]s/**"]
net_connect = ["127.0.0.1:%[2]d"]
proc_spawn = ["sh", "bash"]
opaque = "allow"
auto_apply = "in-grant"
`, work, okPort)
	if err := os.WriteFile(policy, []byte(policyText), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(sb.dir, "state", "tokens.json")
	createToken(t, sb, store, "agent:box") // the store exists before the kernel starts
	sock := securedKernel(t, sb, policy, store)

	// A token created after the kernel started works at once.
	secret := createToken(t, sb, store, "agent:box")
	at := tokenAttach(t, sock, secret)
	res, _ := at["result"].(map[string]any)
	if res == nil || res["principal"] != "agent:box" {
		t.Fatalf("attach = %v", at)
	}
	caps := res["caps"].(map[string]any)
	if caps["tier"] != "A" {
		t.Skip("host has no Landlock: nothing to confine")
	}
	enf := caps["enforcement"].(map[string]any)
	if res["caps_enforced"] != true || enf["filesystem"] != true || enf["spawn_exec"] != true || caps["token_caps_enforced"] != false {
		t.Fatalf("caps = %v", caps)
	}
	if e := tokenAttach(t, sock, "not-a-token")["error"].(map[string]any); e["code"].(float64) != -32030 {
		t.Fatalf("bad token = %v", e)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "shoal-e2e", Version: "1"}, nil)
	cmd := sb.command(t, []string{"SHOAL_TOKEN=" + secret, "SHOAL_NO_AUTOSTART=1"}, "mcp", "--socket", sock)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	run := func(src string) (string, map[string]any) {
		t.Helper()
		r := callTool(t, cs, "shoal_exec", map[string]any{"src": src})
		return text(r), structured(t, r)
	}

	if out, _ := run(`sh { echo inside > in.txt && cat in.txt }`); !strings.Contains(out, "inside") {
		t.Errorf("write inside the grant: %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(work, "in.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("in.txt = %q, %v", b, err)
	}
	outside := filepath.Join(os.TempDir(), "outside-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	t.Cleanup(func() { os.Remove(outside) })
	home := filepath.Join(sb.dir, "home", "x")
	for _, target := range []string{home, outside} {
		out, _ := run(fmt.Sprintf(`sh { exec 2>&1; echo x > %s; echo status $? }`, target))
		if !strings.Contains(out, "ermission denied") || strings.Contains(out, "status 0") {
			t.Errorf("write %s: %q", target, out)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s was created", target)
		}
	}
	if out, _ := run(fmt.Sprintf(`bash { exec 2>&1; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected }`, okPort)); !strings.Contains(out, "connected") {
		t.Errorf("granted port: %q", out)
	}
	if out, _ := run(fmt.Sprintf(`bash { exec 2>&1; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected }`, badPort)); strings.Contains(out, "connected") || !strings.Contains(out, "ermission denied") {
		t.Errorf("ungranted port: %q", out)
	}
	// An unpinned binary: the verdict refuses it before anything runs, and a PTY too.
	tail, err := exec.LookPath("tail")
	if err != nil {
		t.Fatal(err)
	}
	r := callTool(t, cs, "shoal_exec", map[string]any{"src": tail + " --version"})
	if sc := structured(t, r); !r.IsError || sc["code"] != float64(-32010) {
		t.Errorf("unpinned exec = %v", sc)
	}
	r = callTool(t, cs, "shoal_pty_open", map[string]any{"cmd": "tail", "args": []string{"-f", "/dev/null"}})
	if sc := structured(t, r); !r.IsError || sc["code"] != float64(-32010) {
		t.Errorf("unpinned pty = %v", sc)
	}
	// A pinned PTY program runs, confined through the re-exec helper.
	r = callTool(t, cs, "shoal_pty_open", map[string]any{"cmd": "sh"})
	if r.IsError {
		t.Fatalf("pinned pty: %s", text(r))
	}
	id := structured(t, r)["pty_id"].(string)
	send(t, cs, id, []any{fmt.Sprintf("echo x > %s; echo r\"\"c=$?", outside), key("Enter")})
	scr := readUntil(t, cs, id, "rc=")
	if !strings.Contains(dump(scr), "ermission denied") {
		t.Errorf("pty write outside:\n%s", dump(scr))
	}
	callTool(t, cs, "shoal_pty_close", map[string]any{"pty_id": id})
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was created from the pty", outside)
	}
}

// A tokenless client of a --require-token kernel is refused; a revoked token fails at the
// next attach.
func TestSecurityRequireTokenRevoke(t *testing.T) {
	sb := newSandbox(t)
	policy := filepath.Join(sb.dir, "policy.toml")
	if err := os.WriteFile(policy, []byte("[principal.\"agent:x\"]\njournal_read = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(sb.dir, "state", "tokens.json")
	secret := createToken(t, sb, store, "agent:x")
	sock := filepath.Join(sb.dir, "run", "req.sock")
	cmd := sb.command(t, []string{"SHOAL_REQUIRE_TOKEN=1"}, "kernel", "--socket", sock, "--policy", policy, "--token-store", store)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	dialWhenListening(t, sock, 20*time.Second).Close()
	if _, err := rawCall(sock, "parse", `{"src":"1"}`); err != nil {
		t.Fatal(err)
	}
	out, _ := rawCall(sock, "journal.query", `{}`)
	if !strings.Contains(out, "-32000") {
		t.Errorf("tokenless call on a require-token kernel: %s", out)
	}
	if m := tokenAttach(t, sock, secret); m["result"] == nil {
		t.Fatalf("token attach = %v", m)
	}
	list := sb.command(t, []string{"SHOAL_TOKEN_STORE=" + store}, "token", "list")
	lines, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	id := strings.Fields(string(lines))[0]
	if err := sb.command(t, []string{"SHOAL_TOKEN_STORE=" + store}, "token", "revoke", id).Run(); err != nil {
		t.Fatal(err)
	}
	if e, _ := tokenAttach(t, sock, secret)["error"].(map[string]any); e == nil || e["code"].(float64) != -32030 {
		t.Errorf("revoked token attach = %v", e)
	}
}

// A policy that does not parse stops the kernel with exit status 1 and the line.
func TestSecurityBadPolicyFatal(t *testing.T) {
	sb := newSandbox(t)
	policy := filepath.Join(sb.dir, "policy.toml")
	if err := os.WriteFile(policy, []byte("[principal.\"agent:x\"]\n\nopaqe = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := sb.command(t, nil, "kernel", "--socket", filepath.Join(sb.dir, "run", "bad.sock"), "--policy", policy)
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.HasPrefix(errb.String(), "shoal kernel: ") || !strings.Contains(errb.String(), "line 3") {
		t.Fatalf("bad policy: err=%v stderr=%q", err, errb.String())
	}
}

// With Landlock switched off (the hidden --no-landlock switch) the host is tier B: attach
// says nothing is enforced, and a child writes where the policy has no grant.
func TestSecurityLandlockDisabled(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	policy := filepath.Join(sb.dir, "policy.toml")
	if err := os.WriteFile(policy, []byte(fmt.Sprintf(`
[principal."agent:box"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "%[1]s/**"]
fs.write = ["%[1]s/**"]
opaque = "allow"
auto_apply = "in-grant"
`, work)), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(sb.dir, "state", "tokens.json")
	secret := createToken(t, sb, store, "agent:box")
	sock := securedKernel(t, sb, policy, store, "--no-landlock")
	res, _ := tokenAttach(t, sock, secret)["result"].(map[string]any)
	if res == nil {
		t.Fatal("attach failed")
	}
	caps := res["caps"].(map[string]any)
	enf := caps["enforcement"].(map[string]any)
	st, _ := caps["sandbox"].(map[string]any)
	if res["caps_enforced"] != false || caps["tier"] != "B" || caps["available_tier"] != "B" || enf["filesystem"] != false ||
		st == nil || st["landlock_abi"] != float64(0) || !strings.Contains(st["detail"].(string), "landlock disabled") {
		t.Fatalf("caps = %v", caps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "shoal-e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: sb.command(t, []string{"SHOAL_TOKEN=" + secret, "SHOAL_NO_AUTOSTART=1"}, "mcp", "--socket", sock)},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	outside := filepath.Join(sb.dir, "home", "unconfined")
	r := callTool(t, cs, "shoal_exec", map[string]any{"src": fmt.Sprintf("sh { echo x > %s }", outside)})
	if r.IsError {
		t.Fatalf("exec: %s", text(r))
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("tier B confines nothing, yet the write failed: %v", err)
	}
}
