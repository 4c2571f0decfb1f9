package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// call sends one request through c and decodes its result.
func call[R any](t testing.TB, c *client.Client, method string, params any) (R, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var r R
	err := c.Call(ctx, method, params, &r)
	return r, err
}

func mustCall[R any](t testing.TB, c *client.Client, method string, params any) R {
	t.Helper()
	r, err := call[R](t, c, method, params)
	if err != nil {
		t.Fatalf("%s %+v: %v", method, params, err)
	}
	return r
}

func ptyOpen(t testing.TB, c *client.Client, p proto.PTYOpenParams) proto.PTYOpenResult {
	t.Helper()
	return mustCall[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, p)
}

func ptyRead(t testing.TB, c *client.Client, p proto.PTYReadParams) proto.PTYReadResult {
	t.Helper()
	return mustCall[proto.PTYReadResult](t, c, proto.MethodPTYRead, p)
}

func ptyClose(t testing.TB, c *client.Client, id string) proto.PTYCloseResult {
	t.Helper()
	return mustCall[proto.PTYCloseResult](t, c, proto.MethodPTYClose, proto.PTYCloseParams{PTYID: id})
}

func countLines(screen []string, s string) int {
	n := 0
	for _, l := range screen {
		if l == s {
			n++
		}
	}
	return n
}

// gone reports whether pid no longer runs: no such process, or a zombie its new parent has
// not reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %v", pid, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Scenario 21: cat on a PTY, input with a named key, screen reads and their changed flag,
// input errors, session scoping, close and reaping.
func TestPTYScenario21(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client

	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
	if !regexp.MustCompile(`^pty:[0-9]+$`).MatchString(op.PTYID) || op.Cols != 80 || op.Rows != 24 || op.Cmd != "cat" || op.Pid <= 0 {
		t.Fatalf("open = %+v", op)
	}
	sent := mustCall[proto.PTYSendResult](t, c, proto.MethodPTYSend,
		proto.PTYSendParams{PTYID: op.PTYID, Input: json.RawMessage(`["hello",{"key":"Enter"}]`)})
	if sent.Sent != 6 || sent.PTYID != op.PTYID {
		t.Fatalf("send = %+v", sent)
	}

	// The terminal echoes the line and cat writes it back: two lines within 2 s.
	deadline := time.Now().Add(2 * time.Second)
	var rd proto.PTYReadResult
	for {
		rd = ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, WaitMs: ptr(200)})
		if countLines(rd.Screen, "hello") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no two hello lines within 2 s: %q", rd.Screen)
		}
	}
	if !rd.Changed || !rd.Alive || rd.Exit != nil || rd.Pid != op.Pid || rd.Cmd != "cat" || rd.AltScreen || rd.Matched != nil {
		t.Errorf("read = %+v", rd)
	}
	if len(rd.Screen) != 24 || rd.Cols != 80 || rd.Rows != 24 {
		t.Errorf("screen is %d lines, size %dx%d", len(rd.Screen), rd.Cols, rd.Rows)
	}
	if want := (proto.PTYCursor{Row: 2, Col: 0}); rd.Cursor != want {
		t.Errorf("cursor = %+v, want %+v", rd.Cursor, want)
	}
	if again := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID}); again.Changed {
		t.Errorf("second read changed: %+v", again)
	}
	m := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, UntilText: ptr("hello")})
	if m.Matched == nil || !*m.Matched {
		t.Errorf("until_text hello: matched = %v", m.Matched)
	}

	for _, in := range []string{`{"key":"Nope"}`, `[{"bytes":"!!"}]`, `42`, `{"text":"a","key":"b"}`} {
		_, err := call[proto.PTYSendResult](t, c, proto.MethodPTYSend, proto.PTYSendParams{PTYID: op.PTYID, Input: json.RawMessage(in)})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
	}

	// Another session of the same principal sees nothing of it.
	other := k.Dial()
	k.AttachClient(other, "other")
	_, err := call[proto.PTYReadResult](t, other, proto.MethodPTYRead, proto.PTYReadParams{PTYID: op.PTYID})
	if e := wantCode(t, err, proto.CodeUnknownPTY); obj(t, e.Data)["pty_id"] != op.PTYID {
		t.Errorf("data = %s", e.Data)
	}
	_, err = call[proto.PTYSendResult](t, other, proto.MethodPTYSend, proto.PTYSendParams{PTYID: op.PTYID, Input: json.RawMessage(`"x"`)})
	wantCode(t, err, proto.CodeUnknownPTY)
	_, err = call[proto.PTYResizeResult](t, other, proto.MethodPTYResize, proto.PTYResizeParams{PTYID: op.PTYID, Cols: 10, Rows: 10})
	wantCode(t, err, proto.CodeUnknownPTY)
	_, err = call[proto.PTYCloseResult](t, other, proto.MethodPTYClose, proto.PTYCloseParams{PTYID: op.PTYID})
	wantCode(t, err, proto.CodeUnknownPTY)
	if l := mustCall[proto.PTYListResult](t, other, proto.MethodPTYList, struct{}{}); len(l.PTYs) != 0 {
		t.Errorf("other session lists %+v", l)
	}
	if l := mustCall[proto.PTYListResult](t, c, proto.MethodPTYList, struct{}{}); len(l.PTYs) != 1 || l.PTYs[0].PTYID != op.PTYID {
		t.Errorf("list = %+v", l)
	}

	cl := ptyClose(t, c, op.PTYID)
	if !cl.Closed || cl.PTYID != op.PTYID || cl.Exit == nil || cl.Exit.Signal == nil || cl.Exit.Status != nil {
		t.Fatalf("close = %+v", cl)
	}
	if *cl.Exit.Signal != "SIGHUP" {
		t.Errorf("cat ended by %s, want SIGHUP", *cl.Exit.Signal)
	}
	if err := syscall.Kill(op.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("pid %d not reaped: kill 0 = %v", op.Pid, err)
	}
	_, err = call[proto.PTYReadResult](t, c, proto.MethodPTYRead, proto.PTYReadParams{PTYID: op.PTYID})
	wantCode(t, err, proto.CodeUnknownPTY)
	_, err = call[proto.PTYCloseResult](t, c, proto.MethodPTYClose, proto.PTYCloseParams{PTYID: op.PTYID})
	wantCode(t, err, proto.CodeUnknownPTY)
	if l := mustCall[proto.PTYListResult](t, c, proto.MethodPTYList, struct{}{}); l.PTYs == nil || len(l.PTYs) != 0 {
		t.Errorf("list after close = %+v", l)
	}
}

func TestPTYOpenErrors(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	_, err := call[proto.PTYOpenResult](t, k.Client, proto.MethodPTYOpen, proto.PTYOpenParams{})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = call[proto.PTYOpenResult](t, k.Client, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "no-such-program-xyz"})
	if e := wantCode(t, err, proto.CodePTYSpawnFailed); obj(t, e.Data)["cmd"] != "no-such-program-xyz" {
		t.Errorf("data = %s", e.Data)
	}
	_, err = call[proto.PTYOpenResult](t, k.Client, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "/"})
	wantCode(t, err, proto.CodePTYSpawnFailed)
	for _, m := range []string{proto.MethodPTYRead, proto.MethodPTYSend, proto.MethodPTYClose} {
		_, err = call[json.RawMessage](t, k.Client, m, map[string]any{"pty_id": "pty:99", "input": "x"})
		wantCode(t, err, proto.CodeUnknownPTY)
	}
	un := k.Dial()
	_, err = call[proto.PTYListResult](t, un, proto.MethodPTYList, struct{}{})
	wantCode(t, err, proto.CodeNotAttached)
}

// pty.open takes the session's cwd and environment, applies env overrides, adds TERM,
// resolves the command through the child's PATH and clamps the size.
func TestPTYOpenSessionContext(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	mustExec(t, k, `mkdir sub; cd sub`)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "hello-pty"), []byte("#!/bin/sh\nread x\necho \"in $(pwd) FOO=$FOO TERM=$TERM\"\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := mustCall[proto.SessionCwdResult](t, c, proto.MethodSessionCwd, struct{}{})
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "hello-pty", Args: []string{"a"}, Cols: ptr(5000), Rows: ptr(0),
		Env: map[string]string{"FOO": "bar", "PATH": bin + ":/usr/bin:/bin"}})
	if op.Cols != 1000 || op.Rows != 1 || op.Cmd != "hello-pty a" {
		t.Fatalf("open = %+v", op)
	}
	// One row scrolls everything away: grow the screen, then let the script print.
	mustCall[proto.PTYResizeResult](t, c, proto.MethodPTYResize, proto.PTYResizeParams{PTYID: op.PTYID, Cols: 200, Rows: 5})
	mustCall[proto.PTYSendResult](t, c, proto.MethodPTYSend, proto.PTYSendParams{PTYID: op.PTYID, Input: json.RawMessage(`{"key":"Enter"}`)})
	want := "in " + cwd.Cwd.Display + " FOO=bar TERM=xterm-256color"
	rd := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, UntilText: &want, WaitMs: ptr(10000)})
	if rd.Matched == nil || !*rd.Matched {
		t.Fatalf("want %q on the screen, got %q", want, rd.Screen)
	}
	if !strings.HasSuffix(cwd.Cwd.Display, "/sub") {
		t.Errorf("session cwd %q", cwd.Cwd.Display)
	}
	ptyClose(t, c, op.PTYID)

	// The kernel's PATH is not used: without the override the command is unknown.
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "hello-pty"})
	wantCode(t, err, proto.CodePTYSpawnFailed)
}

// A resize leaves the forced change pending for the next read [D28]; pty.list does not
// consume it.
func TestPTYResizeChanged(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat", Cols: ptr(40), Rows: ptr(10)})
	ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID})
	if rd := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID}); rd.Changed {
		t.Fatalf("unchanged screen reads changed")
	}
	rs := mustCall[proto.PTYResizeResult](t, c, proto.MethodPTYResize, proto.PTYResizeParams{PTYID: op.PTYID, Cols: 100, Rows: 30})
	if diff := cmp.Diff(proto.PTYResizeResult{PTYID: op.PTYID, Cols: 100, Rows: 30}, rs); diff != "" {
		t.Errorf("resize (-want +got):\n%s", diff)
	}
	l := mustCall[proto.PTYListResult](t, c, proto.MethodPTYList, struct{}{})
	want := []proto.PTYInfo{{PTYID: op.PTYID, Cmd: "cat", Pid: op.Pid, Cols: 100, Rows: 30, Alive: true}}
	if diff := cmp.Diff(want, l.PTYs); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	rd := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID})
	if !rd.Changed || rd.Cols != 100 || rd.Rows != 30 || len(rd.Screen) != 30 {
		t.Errorf("read after resize: changed=%v %dx%d, %d lines", rd.Changed, rd.Cols, rd.Rows, len(rd.Screen))
	}
	_, err := call[proto.PTYResizeResult](t, c, proto.MethodPTYResize, proto.PTYResizeParams{PTYID: op.PTYID, Cols: 0, Rows: 5})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	rs = mustCall[proto.PTYResizeResult](t, c, proto.MethodPTYResize, proto.PTYResizeParams{PTYID: op.PTYID, Cols: 2000, Rows: 5})
	if rs.Cols != 1000 || rs.Rows != 5 {
		t.Errorf("resize 2000x5 = %+v", rs)
	}
}

// A program that exits is reported with its status and stays readable until closed.
func TestPTYExitStatus(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "sh", Args: []string{"-c", "echo bye; exit 3"}})
	var rd proto.PTYReadResult
	for deadline := time.Now().Add(20 * time.Second); ; {
		rd = ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, WaitMs: ptr(1000)})
		if !rd.Alive || time.Now().After(deadline) {
			break
		}
	}
	if rd.Alive || rd.Exit == nil || rd.Exit.Status == nil || *rd.Exit.Status != 3 || rd.Exit.Signal != nil || rd.Screen[0] != "bye" {
		t.Fatalf("read = %+v (exit %+v)", rd, rd.Exit)
	}
	if l := mustCall[proto.PTYListResult](t, c, proto.MethodPTYList, struct{}{}); len(l.PTYs) != 1 || l.PTYs[0].Alive {
		t.Errorf("list = %+v", l)
	}
	cl := ptyClose(t, c, op.PTYID)
	if cl.Exit == nil || cl.Exit.Status == nil || *cl.Exit.Status != 3 {
		t.Errorf("close = %+v", cl)
	}
}

// Each principal may hold 16 PTYs, across its sessions [D29].
func TestPTYQuota(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	var ids []string
	for range 16 {
		ids = append(ids, ptyOpen(t, c, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}}).PTYID)
	}
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}})
	wantCode(t, err, proto.CodeResourceLimit)
	other := k.Dial()
	k.AttachClient(other, "other")
	_, err = call[proto.PTYOpenResult](t, other, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}})
	wantCode(t, err, proto.CodeResourceLimit)
	l := mustCall[proto.PTYListResult](t, c, proto.MethodPTYList, struct{}{})
	got := make([]string, len(l.PTYs))
	for i, p := range l.PTYs {
		got[i] = p.PTYID
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("list order (-want +got):\n%s", diff)
	}
	ptyClose(t, c, ids[0])
	op := ptyOpen(t, other, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}})
	if slices.Contains(ids, op.PTYID) {
		t.Errorf("id %s reused", op.PTYID)
	}
}

// pty.N events reach subscribers attached to the PTY's own (principal, session) only.
func TestPTYEvents(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
	ch := "pty." + strings.TrimPrefix(op.PTYID, "pty:")

	same, stranger := k.Dial(), k.Dial()
	sameEv, strangerEv := make(chan proto.Event, 64), make(chan proto.Event, 64)
	same.SetOnEvent(func(ev proto.Event) { sameEv <- ev })
	stranger.SetOnEvent(func(ev proto.Event) { strangerEv <- ev })
	k.AttachClient(same, "default")
	k.AttachClient(stranger, "other")
	for _, cl := range []*client.Client{same, stranger} {
		if _, err := cl.EventsSubscribe(ctxT(t), proto.EventsSubscribeParams{Channel: ch}); err != nil {
			t.Fatal(err)
		}
	}
	mustCall[proto.PTYSendResult](t, c, proto.MethodPTYSend, proto.PTYSendParams{PTYID: op.PTYID, Input: json.RawMessage(`"ping"`)})
	next := func(what string) proto.Event {
		t.Helper()
		select {
		case ev := <-sameEv:
			return ev
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s event on %s", what, ch)
		}
		return proto.Event{}
	}
	ev := next("change")
	if ev.Channel != ch || string(ev.Payload) != `{"$":"record","v":{"changed":{"$":"bool","v":true}}}` {
		t.Fatalf("change event = %+v %s", ev, ev.Payload)
	}
	ptyClose(t, c, op.PTYID)
	for {
		ev = next("exit")
		if !strings.Contains(string(ev.Payload), `"changed"`) {
			break
		}
	}
	wantExit := `{"$":"record","v":{"alive":{"$":"bool","v":false},"exit":{"$":"record","v":{"signal":{"$":"str","v":"SIGHUP"},"status":{"$":"null"}}}}}`
	if string(ev.Payload) != wantExit {
		t.Errorf("exit event = %s\nwant %s", ev.Payload, wantExit)
	}
	// The ring holds them for readers of the same session only.
	if rd, err := same.EventsRead(ctxT(t), proto.EventsReadParams{Channel: ch}); err != nil || len(rd.Events) < 2 {
		t.Errorf("same session reads %+v, %v", rd, err)
	}
	if rd, err := stranger.EventsRead(ctxT(t), proto.EventsReadParams{Channel: ch}); err != nil || len(rd.Events) != 0 {
		t.Errorf("other session reads %+v, %v", rd, err)
	}
	select {
	case ev := <-strangerEv:
		t.Errorf("other session got %+v %s", ev, ev.Payload)
	case <-time.After(100 * time.Millisecond):
	}
}

// Closing the kernel closes every PTY: no child, and none of its group, outlives it, even
// one that ignores SIGHUP and SIGTERM.
func TestPTYKernelCloseKillsChildren(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	c := k.Client
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "sh", Args: []string{"-c", `trap "" HUP TERM; sleep 300 & echo "bg=$!"; wait`}})
	rd := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, UntilText: ptr("bg="), WaitMs: ptr(10000)})
	mt := regexp.MustCompile(`bg=([0-9]+)`).FindStringSubmatch(strings.Join(rd.Screen, "\n"))
	if mt == nil {
		t.Fatalf("no background pid on %q", rd.Screen)
	}
	bg, _ := strconv.Atoi(mt[1])
	cat := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
	for _, pid := range []int{op.Pid, bg, cat.Pid} {
		if gone(pid) {
			t.Fatalf("pid %d not running before close", pid)
		}
	}
	start := time.Now()
	if err := k.Server.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel close took %v", time.Since(start))
	// Close waited for the PTYs' leaders; the background sleep was killed with its group.
	for _, pid := range []int{op.Pid, cat.Pid} {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d survives kernel close: %v", pid, err)
		}
	}
	waitGone(t, bg, 5*time.Second)
}

// The default policy lets only the local principal open PTYs (their programs are opaque); a
// PTYGate decides instead when the policy has one.
func TestPTYPolicyGate(t *testing.T) {
	t.Parallel()
	gate := &fakeGate{verdict: kernel.PTYVerdict{Verdict: "deny"}}
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{Policy: gate}})
	c := k.Client
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat", Args: []string{"-u"}})
	if e := wantCode(t, err, proto.CodeLeashDenied); obj(t, e.Data)["cmd"] != "cat" {
		t.Errorf("deny data = %s", e.Data)
	}
	if got := gate.last; len(got.Argv) != 2 || !strings.HasSuffix(got.Path, "/cat") || got.Cwd == "" || !slices.ContainsFunc(got.Env, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }) {
		t.Errorf("gate saw %+v", got)
	}
	gate.verdict = kernel.PTYVerdict{Verdict: "approval_required", PlanRef: "plan:00"}
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat"})
	if e := wantCode(t, err, proto.CodeApprovalRequired); obj(t, e.Data)["plan_ref"] != "plan:00" || obj(t, e.Data)["cmd"] != "cat" {
		t.Errorf("approval data = %s", e.Data)
	}
	gate.err = errors.New("hermetic sandbox not enforceable")
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat"})
	wantCode(t, err, proto.CodePTYSpawnFailed)

	// The sandbox wrap runs just before the start; here it swaps the program.
	gate.err = nil
	gate.verdict = kernel.PTYVerdict{Verdict: "allow", Wrap: func(cmd *osexec.Cmd) error {
		cmd.Args = []string{"sh", "-c", "echo wrapped; exec cat"}
		cmd.Path = "/bin/sh"
		return nil
	}}
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat", PlanRef: "plan:00"})
	if gate.last.PlanRef != "plan:00" || gate.last.Session != "default" {
		t.Errorf("gate saw plan_ref %q, session %q", gate.last.PlanRef, gate.last.Session)
	}
	rd := ptyRead(t, c, proto.PTYReadParams{PTYID: op.PTYID, UntilText: ptr("wrapped")})
	if !*rd.Matched {
		t.Errorf("wrap not applied: %q", rd.Screen)
	}
	ptyClose(t, c, op.PTYID)
}

func TestPTYDefaultPolicyAgents(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{Auth: agentAuth{}}})
	ag := k.Dial()
	tok := "agent-token"
	if _, err := ag.Attach(ctxT(t), proto.SessionAttachParams{Token: &tok}); err != nil {
		t.Fatal(err)
	}
	_, err := call[proto.PTYOpenResult](t, ag, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat"})
	wantCode(t, err, proto.CodeLeashDenied)
	// The local human may.
	ptyClose(t, k.Client, ptyOpen(t, k.Client, proto.PTYOpenParams{Cmd: "cat"}).PTYID)
}

type agentAuth struct{}

func (agentAuth) Verify(string) (kernel.Identity, error) {
	return kernel.Identity{Principal: "agent:test", Profile: "default"}, nil
}

// fakeGate is a policy whose PTY gate answers what the test sets.
type fakeGate struct {
	verdict kernel.PTYVerdict
	err     error
	last    kernel.PTYSpawn
}

func (g *fakeGate) Describe(id kernel.Identity) kernel.PolicyInfo {
	return kernel.PolicyInfo{Tier: "B", Opaque: "deny", PolicyPrincipal: id.Principal}
}
func (g *fakeGate) Allows(kernel.Identity, string) bool { return true }
func (g *fakeGate) ReadAll(kernel.Identity) bool        { return true }

func (g *fakeGate) GatePTY(_ context.Context, _ kernel.Identity, sp kernel.PTYSpawn) (kernel.PTYVerdict, error) {
	g.last = sp
	return g.verdict, g.err
}

// BenchmarkPTYRead measures pty.read of an 80x24 screen through the in-process client and
// reports the median.
func BenchmarkPTYRead(b *testing.B) {
	k := newKernelB(b)
	c := k.Client
	op := ptyOpen(b, c, proto.PTYOpenParams{Cmd: "cat"})
	mustCall[proto.PTYSendResult](b, c, proto.MethodPTYSend, proto.PTYSendParams{PTYID: op.PTYID,
		Input: json.RawMessage(`"` + strings.Repeat("the quick brown fox jumps over the lazy dog ", 20) + `\r"`)})
	ptyRead(b, c, proto.PTYReadParams{PTYID: op.PTYID, UntilText: ptr("lazy dog the")})
	ctx := context.Background()
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		var r proto.PTYReadResult
		if err := c.Call(ctx, proto.MethodPTYRead, proto.PTYReadParams{PTYID: op.PTYID}, &r); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
	}
}

func newKernelB(b *testing.B) *kerneltest.Kernel {
	return kerneltest.New(b, &kerneltest.Options{Cwd: b.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}})
}

// Under a Leash policy the principal's own PTY quota applies, and proc_spawn pinning is
// checked against the resolved binary (scenario 22's rule, on pty.open).
func TestPTYLeashPolicy(t *testing.T) {
	t.Parallel()
	pol := filepath.Join(t.TempDir(), "policy.toml")
	src := `[principal."uid:` + strconv.Itoa(os.Geteuid()) + `"]
opaque = "allow"
auto_apply = "in-grant"
proc_spawn = ["cat"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
quotas.ptys = 2
`
	if err := os.WriteFile(pol, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{PolicyFile: pol}})
	c := k.Client
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}})
	if e := wantCode(t, err, proto.CodeLeashDenied); obj(t, e.Data)["cmd"] != "sleep" {
		t.Errorf("deny data = %s", e.Data)
	}
	a := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
	// The pinned program really runs (through the sandbox helper, which this test binary
	// serves, see TestMain): cat writes the line back.
	mustCall[proto.PTYSendResult](t, c, proto.MethodPTYSend, proto.PTYSendParams{PTYID: a.PTYID, Input: json.RawMessage(`["pinned-pty",{"key":"Enter"}]`)})
	for deadline := time.Now().Add(20 * time.Second); ; {
		rd := ptyRead(t, c, proto.PTYReadParams{PTYID: a.PTYID, WaitMs: ptr(200)})
		if countLines(rd.Screen, "pinned-pty") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pinned cat did not echo: %q", rd.Screen)
		}
	}
	ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat"})
	if e := wantCode(t, err, proto.CodeResourceLimit); obj(t, e.Data)["limit"] != float64(2) {
		t.Errorf("quota data = %s", e.Data)
	}
	ptyClose(t, c, a.PTYID)
	ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat"})
}
