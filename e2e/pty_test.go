package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The PTY tests drive real full-screen programs through `shoal mcp`, as an
// agent would: shoal_pty_* tools, waiting with until_text/wait_ms rather
// than sleeping.

// ptyCall calls a shoal_pty_* tool and fails on an isError result.
func ptyCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res := callTool(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, text(res))
	}
	return structured(t, res)
}

// ptyOpenTool opens a PTY and closes it when the test ends (a no-op if the
// test closed it already).
func ptyOpenTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	r := ptyCall(t, cs, "shoal_pty_open", args)
	id, _ := r["pty_id"].(string)
	if !strings.HasPrefix(id, "pty:") {
		t.Fatalf("open %v: %v", args, r)
	}
	t.Cleanup(func() {
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shoal_pty_close", Arguments: map[string]any{"pty_id": id}})
	})
	return id
}

// screenOf returns a read's screen rows.
func screenOf(r map[string]any) []string {
	rows, _ := r["screen"].([]any)
	out := make([]string, len(rows))
	for i, l := range rows {
		out[i], _ = l.(string)
	}
	return out
}

func dump(r map[string]any) string { return strings.Join(screenOf(r), "\n") }

// readUntil waits up to 20 s for s to appear on the screen.
func readUntil(t *testing.T, cs *mcp.ClientSession, id, s string) map[string]any {
	t.Helper()
	r := ptyCall(t, cs, "shoal_pty_read", map[string]any{"pty_id": id, "until_text": s, "wait_ms": 20000})
	if r["matched"] != true {
		t.Fatalf("%q not on the screen of %s within 20 s:\n%s", s, id, dump(r))
	}
	return r
}

// readWhile reads (each read waiting for a change) until cond is false, for
// up to 20 s.
func readWhile(t *testing.T, cs *mcp.ClientSession, id, what string, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := ptyCall(t, cs, "shoal_pty_read", map[string]any{"pty_id": id, "wait_ms": 1000})
		if !cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still waiting after 20 s:\n%s", what, dump(r))
		}
	}
}

// waitExit waits for the program to be reaped and returns its exit object.
func waitExit(t *testing.T, cs *mcp.ClientSession, id string) map[string]any {
	t.Helper()
	r := readWhile(t, cs, id, id+" exit", func(r map[string]any) bool { return r["alive"] == true })
	exit, _ := r["exit"].(map[string]any)
	if exit == nil {
		t.Fatalf("%s dead without exit: %v", id, r)
	}
	return exit
}

func send(t *testing.T, cs *mcp.ClientSession, id string, input any) {
	t.Helper()
	ptyCall(t, cs, "shoal_pty_send", map[string]any{"pty_id": id, "input": input})
}

func key(name string) map[string]any { return map[string]any{"key": name} }

// vim edits a new file with named keys (Home, End, Enter, Escape) and :wq
// saves it.
func TestPTYVim(t *testing.T) {
	sb := newSandbox(t)
	cs := mcpClient(t, sb, nil, nil)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	file := filepath.Join(sb.dir, "work", "notes.txt")
	// No vimrc, no viminfo, no swap file: the screen depends on nothing outside.
	id := ptyOpenTool(t, cs, map[string]any{"cmd": "vim", "args": []string{"-u", "NONE", "-N", "-n", "-i", "NONE", file}})
	r := readUntil(t, cs, id, "notes.txt")
	if r["alt_screen"] != true {
		t.Errorf("vim is not on the alternate screen:\n%s", dump(r))
	}
	send(t, cs, id, []any{"i", "world", key("Home"), "hello ", key("End"), "!", key("Enter"), "line two"})
	readUntil(t, cs, id, "hello world!")
	send(t, cs, id, key("Escape"))
	// vim waits ttimeoutlen after a lone ESC before it leaves insert mode.
	readWhile(t, cs, id, "leaving insert mode", func(r map[string]any) bool { return strings.Contains(dump(r), "-- INSERT --") })
	send(t, cs, id, []any{":wq", key("Enter")})
	exit := waitExit(t, cs, id)
	if exit["status"] != float64(0) {
		t.Errorf("vim exit = %v", exit)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "hello world!\nline two\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	cl := ptyCall(t, cs, "shoal_pty_close", map[string]any{"pty_id": id})
	if cl["closed"] != true {
		t.Errorf("close = %v", cl)
	}
}

// An interactive bash sees a resize (tput reads the new size) and exits
// with the status it is given.
func TestPTYBashResizeExit(t *testing.T) {
	sb := newSandbox(t)
	cs := mcpClient(t, sb, nil, nil)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	id := ptyOpenTool(t, cs, map[string]any{"cmd": "bash", "args": []string{"--norc", "--noprofile", "-i"},
		"env": map[string]string{"PS1": "READY$ "}})
	readUntil(t, cs, id, "READY$")
	rs := ptyCall(t, cs, "shoal_pty_resize", map[string]any{"pty_id": id, "cols": 100, "rows": 30})
	if rs["cols"] != float64(100) || rs["rows"] != float64(30) {
		t.Fatalf("resize = %v", rs)
	}
	send(t, cs, id, []any{`echo "size=$(tput cols)x$(tput lines)"`, key("Enter")})
	r := readUntil(t, cs, id, "size=100x30")
	if len(screenOf(r)) != 30 || r["cols"] != float64(100) {
		t.Errorf("screen after resize: %v cols, %d rows", r["cols"], len(screenOf(r)))
	}
	lst := ptyCall(t, cs, "shoal_pty_list", map[string]any{})
	if ptys, _ := lst["ptys"].([]any); len(ptys) != 1 || ptys[0].(map[string]any)["pty_id"] != id {
		t.Errorf("list = %v", lst)
	}
	send(t, cs, id, []any{"exit 7", key("Enter")})
	if exit := waitExit(t, cs, id); exit["status"] != float64(7) || exit["signal"] != nil {
		t.Errorf("bash exit = %v, want status 7", exit)
	}
	cl := ptyCall(t, cs, "shoal_pty_close", map[string]any{"pty_id": id})
	if exit, _ := cl["exit"].(map[string]any); exit["status"] != float64(7) {
		t.Errorf("close = %v", cl)
	}
	// Closed means gone: the tool answers the kernel's UNKNOWN_PTY.
	res := callTool(t, cs, "shoal_pty_read", map[string]any{"pty_id": id})
	if code, _ := structured(t, res)["code"].(float64); !res.IsError || code != -32022 {
		t.Errorf("read after close: %s", text(res))
	}
}

// less pages a long file on the alternate screen and q quits it.
func TestPTYLess(t *testing.T) {
	sb := newSandbox(t)
	cs := mcpClient(t, sb, nil, nil)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	file := filepath.Join(sb.dir, "work", "long.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	id := ptyOpenTool(t, cs, map[string]any{"cmd": "less", "args": []string{file}})
	r := readUntil(t, cs, id, "line 23")
	if r["alt_screen"] != true || screenOf(r)[0] != "line 1" {
		t.Fatalf("less screen (alt %v):\n%s", r["alt_screen"], dump(r))
	}
	send(t, cs, id, key("PageDown"))
	r = readUntil(t, cs, id, "line 46")
	if strings.Contains(dump(r), "line 1\n") {
		t.Errorf("PageDown did not page:\n%s", dump(r))
	}
	send(t, cs, id, "q")
	if exit := waitExit(t, cs, id); exit["status"] != float64(0) {
		t.Errorf("less exit = %v", exit)
	}
	r = ptyCall(t, cs, "shoal_pty_read", map[string]any{"pty_id": id})
	if r["alt_screen"] != false {
		t.Errorf("still on the alternate screen after q")
	}
}

// top renders, refreshes (seen by a read and by a pty/N subscription) and q
// quits it.
func TestPTYTop(t *testing.T) {
	sb := newSandbox(t)
	updates := make(chan *mcp.ResourceUpdatedNotificationParams, 64)
	cs := mcpClient(t, sb, nil, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		select {
		case updates <- r.Params:
		default:
		}
	}})
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	id := ptyOpenTool(t, cs, map[string]any{"cmd": "top", "args": []string{"-d", "0.5"}, "cols": 120, "rows": 30})
	// top draws its header first, then the process table.
	r := readUntil(t, cs, id, "COMMAND")
	if !strings.Contains(dump(r), "load average") || !strings.Contains(dump(r), "PID") {
		t.Errorf("no header or process table:\n%s", dump(r))
	}
	uri := "shoal://pty/" + strings.TrimPrefix(id, "pty:")
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// Unsubscribe before the kernel is stopped: a facade holding a subscription
	// reconnects to (and so autostarts) a kernel that goes away.
	t.Cleanup(func() { cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: uri}) })
	// The next refresh changes the screen (uptime, CPU figures, the clock).
	r = readWhile(t, cs, id, "a refresh", func(r map[string]any) bool { return r["changed"] != true })
	if !strings.Contains(dump(r), "load average") {
		t.Errorf("refreshed screen:\n%s", dump(r))
	}
	select {
	case u := <-updates:
		if u.URI != uri {
			t.Errorf("update for %s, want %s", u.URI, uri)
		}
	case <-time.After(20 * time.Second):
		t.Error("no notifications/resources/updated for the PTY")
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "load average") {
		t.Errorf("read %s: %v", uri, err)
	}
	send(t, cs, id, "q")
	if exit := waitExit(t, cs, id); exit["status"] != float64(0) {
		t.Errorf("top exit = %v", exit)
	}
}

// Stopping the kernel (SIGTERM) closes its PTYs: no program outlives it.
func TestPTYKernelStopKillsPTYs(t *testing.T) {
	sb := newSandbox(t)
	cs := mcpClient(t, sb, nil, nil)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	// Opened without ptyOpenTool: a close after the kernel is gone would make the
	// facade start a new one.
	r := ptyCall(t, cs, "shoal_pty_open", map[string]any{"cmd": "sleep", "args": []string{"1000"}})
	pid := int(r["pid"].(float64))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("pty child %d not running: %v", pid, err)
	}
	stopKernel(t, sb.socket())
	// The kernel reaped it before exiting, so it is gone, not a zombie.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pty child %d outlived the kernel: %v", pid, err)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
