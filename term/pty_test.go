package term

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// long bounds every wait in these tests: far above what the events take on an idle
// machine, so a 2-core CI box under -race still passes.
const long = 20 * time.Second

func testEnv(t *testing.T) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
}

func needBin(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not installed", n)
		}
	}
}

// spawnT starts argv on a PTY and closes it when the test ends.
func spawnT(t *testing.T, opts SpawnOptions) *PTY {
	t.Helper()
	if opts.Env == nil {
		opts.Env = testEnv(t)
	}
	p, err := Spawn(t.Context(), opts)
	if err != nil {
		t.Fatalf("Spawn(%q): %v", opts.Argv, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), long)
		defer cancel()
		// A test that closed with a done context gets that error again; fine here.
		if _, err := p.Close(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// waitText reads until text is on the screen, failing the test with the screen if not.
func waitText(t *testing.T, p *PTY, text string) Screen {
	t.Helper()
	s, err := p.Read(t.Context(), ReadOptions{UntilText: text, WaitMs: int(long / time.Millisecond)})
	if err != nil {
		t.Fatalf("Read until %q: %v", text, err)
	}
	if !s.Matched {
		t.Fatalf("%q never appeared; screen:\n%s", text, strings.Join(s.Lines, "\n"))
	}
	return s
}

// waitExit waits for the child to be reaped and returns the final screen.
func waitExit(t *testing.T, p *PTY) Screen {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(long):
		s, _ := p.Read(t.Context(), ReadOptions{})
		t.Fatalf("child did not exit; screen:\n%s", strings.Join(s.Lines, "\n"))
	}
	s, err := p.Read(t.Context(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Alive || s.Exit == nil {
		t.Fatalf("after exit: alive=%v exit=%v", s.Alive, s.Exit)
	}
	return s
}

func send(t *testing.T, p *PTY, in ...Input) {
	t.Helper()
	var all Input
	for _, i := range in {
		all = append(all, i...)
	}
	if _, err := p.Send(t.Context(), all); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

func procGone(pid int) bool { return errors.Is(unix.Kill(pid, 0), unix.ESRCH) }

// groupMembers lists the live (non-zombie) processes whose process group is pgid. A
// killed orphan stays a zombie until init reaps it, so kill(-pgid, 0) cannot tell.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(f) > 2 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGroupGone waits for every process of the group to die. Death after SIGKILL is
// asynchronous and not observable by waiting, so this polls /proc.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(long)
	for {
		m := groupMembers(t, pgid)
		if len(m) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process group %d survived Close: %v", pgid, m)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCatEcho is the agent scenario: text plus a named key, the echo and the output,
// then changed goes false.
func TestCatEcho(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"cat"}})
	in, err := ParseInput([]byte(`["hello",{"key":"Enter"}]`))
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.Send(t.Context(), in)
	if err != nil || n != 6 {
		t.Fatalf("Send = %d, %v; want 6", n, err)
	}
	var s Screen
	deadline := time.Now().Add(long)
	for {
		s, err = p.Read(t.Context(), ReadOptions{WaitMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if s.Lines[0] == "hello" && s.Lines[1] == "hello" || time.Now().After(deadline) {
			break
		}
	}
	if s.Lines[0] != "hello" || s.Lines[1] != "hello" {
		t.Fatalf("screen = %q, want hello twice", s.Lines[:3])
	}
	if len(s.Lines) != 24 || s.Rows != 24 || s.Cols != 80 {
		t.Errorf("size: %d lines, %dx%d; want 24 lines, 80x24", len(s.Lines), s.Cols, s.Rows)
	}
	if !s.Alive || s.Exit != nil || s.Pid != p.Pid() {
		t.Errorf("alive=%v exit=%v pid=%d; want alive, no exit, pid %d", s.Alive, s.Exit, s.Pid, p.Pid())
	}
	if s.Cursor.Row != 2 || s.Cursor.Col != 0 {
		t.Errorf("cursor = %+v, want row 2 col 0", s.Cursor)
	}
	s2, err := p.Read(t.Context(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Changed {
		t.Errorf("second read of an unchanged screen: changed = true")
	}
	st, err := p.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.Signal == nil || *st.Signal != "SIGHUP" {
		t.Errorf("cat after close: exit = %+v, want signal SIGHUP", st)
	}
	if !procGone(p.Pid()) {
		t.Errorf("pid %d still exists after Close", p.Pid())
	}
	if _, err := p.Read(t.Context(), ReadOptions{}); !errors.Is(err, ErrUnknownPTY) {
		t.Errorf("Read after Close: %v, want ErrUnknownPTY", err)
	}
	if _, err := p.Send(t.Context(), Text("x")); !errors.Is(err, ErrUnknownPTY) {
		t.Errorf("Send after Close: %v, want ErrUnknownPTY", err)
	}
}

func TestFirstReadChangedAndSessionLeader(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `echo "TERM=$TERM"; echo ready; exec sleep 1000`}})
	s := waitText(t, p, "ready")
	if !s.Changed {
		t.Errorf("first read: changed = false")
	}
	if s.Lines[0] != "TERM=xterm-256color" {
		t.Errorf("line 0 = %q, want the default TERM", s.Lines[0])
	}
	// /proc/PID/stat: pid (comm) state ppid pgrp session tty_nr …
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	pid := strconv.Itoa(p.Pid())
	if f[2] != pid || f[3] != pid || f[4] == "0" {
		t.Errorf("pgrp=%s session=%s tty=%s; want pgrp and session %s and a controlling tty", f[2], f[3], f[4], pid)
	}
}

func TestBashExitStatus(t *testing.T) {
	t.Parallel()
	needBin(t, "bash")
	env := append(testEnv(t), "PS1=$ ")
	p := spawnT(t, SpawnOptions{Argv: []string{"bash", "--norc", "--noprofile", "-i"}, Env: env})
	waitText(t, p, "$")
	send(t, p, Text("exit 7"), Keys("Enter"))
	s := waitExit(t, p)
	if s.Exit.Status == nil || *s.Exit.Status != 7 || s.Exit.Signal != nil {
		t.Errorf("exit = %+v, want status 7", s.Exit)
	}
	st, err := p.Close(t.Context())
	if err != nil || st.Status == nil || *st.Status != 7 {
		t.Errorf("Close after exit = %+v, %v; want status 7", st, err)
	}
	info := p.Info()
	if info.Alive || info.Exit == nil || *info.Exit.Status != 7 {
		t.Errorf("Info = %+v, want not alive with status 7", info)
	}
}

func TestVimEditsFile(t *testing.T) {
	t.Parallel()
	needBin(t, "vim")
	dir := t.TempDir()
	p := spawnT(t, SpawnOptions{
		Argv: []string{"vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "notes.txt"},
		Cwd:  dir, Cols: 60, Rows: 12,
	})
	s := waitText(t, p, "notes.txt")
	if !s.AltScreen {
		t.Errorf("vim is not on the alternate screen")
	}
	// vim switches the terminal to application cursor keys (t_ks); arrows must follow.
	p.mu.Lock()
	app := p.emu.AppCursor()
	p.mu.Unlock()
	if !app {
		t.Errorf("vim did not enable DECCKM, or it was not tracked")
	}
	send(t, p, Text("ihello wrld"), Keys("Left", "Left", "Left"), Text("o"), Keys("End"), Text("!"), Keys("Escape"))
	waitText(t, p, "hello world!")
	send(t, p, Text(":wq"), Keys("Enter"))
	s = waitExit(t, p)
	if s.Exit.Status == nil || *s.Exit.Status != 0 {
		t.Errorf("vim exit = %+v, want 0", s.Exit)
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "hello world!\n" {
		t.Errorf("file = %q, want %q", b, "hello world!\n")
	}
}

func TestLessAltScreen(t *testing.T) {
	t.Parallel()
	needBin(t, "less")
	dir := t.TempDir()
	var sb strings.Builder
	for i := 1; i <= 500; i++ {
		sb.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := spawnT(t, SpawnOptions{Argv: []string{"less", "long.txt"}, Cwd: dir})
	s := waitText(t, p, "line 23")
	if !s.AltScreen {
		t.Errorf("less: alt screen = false")
	}
	if s.Lines[0] != "line 1" || strings.Contains(strings.Join(s.Lines, "\n"), "line 24\n") {
		t.Errorf("less first page = %q", s.Lines)
	}
	send(t, p, Keys("Space"))
	waitText(t, p, "line 46")
	send(t, p, Text("q"))
	s = waitExit(t, p)
	if s.AltScreen {
		t.Errorf("alt screen still on after less quit")
	}
	if s.Exit.Status == nil || *s.Exit.Status != 0 {
		t.Errorf("less exit = %+v, want 0", s.Exit)
	}
}

func TestResizeReachesProgram(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c",
		`trap 'echo "winch $(stty size)"' WINCH; echo "start $(stty size)"; while :; do sleep 0.05; done`}})
	waitText(t, p, "start 24 80")
	cols, rows, err := p.Resize(100, 30)
	if err != nil || cols != 100 || rows != 30 {
		t.Fatalf("Resize = %d, %d, %v", cols, rows, err)
	}
	s := waitText(t, p, "winch 30 100")
	if s.Cols != 100 || s.Rows != 30 || len(s.Lines) != 30 {
		t.Errorf("after resize: %dx%d, %d lines; want 100x30", s.Cols, s.Rows, len(s.Lines))
	}
	// Resize leaves changed pending even when the content did not move.
	if _, _, err := p.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	s, err = p.Read(t.Context(), ReadOptions{})
	if err != nil || !s.Changed {
		t.Errorf("read after resize: changed=%v err=%v; want changed", s.Changed, err)
	}
	if info := p.Info(); info.Cols != 100 || info.Rows != 30 {
		t.Errorf("Info size = %dx%d", info.Cols, info.Rows)
	}
	cols, rows, _ = p.Resize(5000, -3)
	if cols != MaxSize || rows != 1 {
		t.Errorf("clamped resize = %dx%d, want %dx1", cols, rows, MaxSize)
	}
}

func TestVimRedrawsOnResize(t *testing.T) {
	t.Parallel()
	needBin(t, "vim")
	dir := t.TempDir()
	p := spawnT(t, SpawnOptions{Argv: []string{"vim", "-u", "NONE", "-N", "-n", "-i", "NONE"}, Cwd: dir})
	waitText(t, p, "~")
	if _, _, err := p.Resize(30, 8); err != nil {
		t.Fatal(err)
	}
	// vim's :echo of its own idea of the size proves SIGWINCH reached it. vim handles
	// the signal lazily and its redraw may wipe an early message, so ask again until
	// the answer stays on screen.
	var s Screen
	for deadline := time.Now().Add(long); !s.Matched && time.Now().Before(deadline); {
		send(t, p, Text(":echo &columns . 'x' . &lines"), Keys("Enter"))
		var err error
		s, err = p.Read(t.Context(), ReadOptions{UntilText: "30x8", WaitMs: 2000})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !s.Matched {
		t.Fatalf("vim never reported 30x8; screen:\n%s", strings.Join(s.Lines, "\n"))
	}
	if s.Rows != 8 || len(s.Lines) != 8 {
		t.Errorf("rows = %d", s.Rows)
	}
	send(t, p, Text(":q!"), Keys("Enter"))
	waitExit(t, p)
}

func TestTopRefreshes(t *testing.T) {
	t.Parallel()
	needBin(t, "top")
	p := spawnT(t, SpawnOptions{Argv: []string{"top", "-d", "0.3"}})
	waitText(t, p, "load average")
	for i := range 2 {
		s, err := p.Read(t.Context(), ReadOptions{WaitMs: int(long / time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Changed {
			t.Fatalf("read %d: top did not refresh within %v", i, long)
		}
	}
	send(t, p, Text("q"))
	s := waitExit(t, p)
	if s.Exit.Status == nil || *s.Exit.Status != 0 {
		t.Errorf("top exit = %+v", s.Exit)
	}
}

func TestCloseStubbornChild(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `trap "" HUP TERM; echo ready; sleep 1000`}})
	waitText(t, p, "ready")
	start := time.Now()
	st, err := p.Close(t.Context())
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took < closeHup+closeTerm-100*time.Millisecond || took > long {
		t.Errorf("Close took %v; want about %v (HUP and TERM ignored, then KILL)", took, closeHup+closeTerm)
	}
	if st == nil || st.Signal == nil || *st.Signal != "SIGKILL" {
		t.Errorf("exit = %+v, want SIGKILL", st)
	}
	if !procGone(p.Pid()) {
		t.Errorf("pid %d not reaped", p.Pid())
	}
	waitGroupGone(t, p.Pid())
	// A second Close returns the same result at once.
	st2, err := p.Close(t.Context())
	if err != nil || st2 != st {
		t.Errorf("second Close = %+v, %v", st2, err)
	}
}

func TestCloseKillsGroupLeftovers(t *testing.T) {
	t.Parallel()
	// The shell backgrounds a job that ignores HUP, then exits by itself.
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `trap "" HUP; sleep 1000 & echo "bg $!"; exit 0`}})
	waitText(t, p, "bg ")
	s := waitExit(t, p)
	var bg int
	for _, l := range s.Lines {
		if v, ok := strings.CutPrefix(l, "bg "); ok {
			bg, _ = strconv.Atoi(v)
		}
	}
	if bg == 0 || len(groupMembers(t, p.Pid())) == 0 {
		t.Fatalf("background job not running (pid %d); screen %q", bg, s.Lines[:2])
	}
	if _, err := p.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, p.Pid())
}

func TestReadWaits(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `echo first; read x; sleep 0.3; echo "got-$x"; read y`}})
	waitText(t, p, "first")

	// Nothing changes: the wait runs out and reports changed=false.
	start := time.Now()
	s, err := p.Read(t.Context(), ReadOptions{WaitMs: 200})
	if err != nil || s.Changed {
		t.Fatalf("idle wait: changed=%v err=%v", s.Changed, err)
	}
	if d := time.Since(start); d < 190*time.Millisecond {
		t.Errorf("idle wait returned after %v, want >= 200ms", d)
	}

	// until_text that never comes: matched=false after the wait.
	start = time.Now()
	s, err = p.Read(t.Context(), ReadOptions{UntilText: "never-printed", WaitMs: 300})
	if err != nil || s.Matched {
		t.Fatalf("until missing text: matched=%v err=%v", s.Matched, err)
	}
	if d := time.Since(start); d < 290*time.Millisecond || d > long {
		t.Errorf("until missing text returned after %v", d)
	}

	// The echo of the input is a change; wait_ms returns on it well before the limit.
	send(t, p, Text("abc"), Keys("Enter"))
	start = time.Now()
	s, err = p.Read(t.Context(), ReadOptions{WaitMs: int(long / time.Millisecond)})
	if err != nil || !s.Changed {
		t.Fatalf("wait for change: changed=%v err=%v", s.Changed, err)
	}
	if d := time.Since(start); d > long/2 {
		t.Errorf("wait for change took %v", d)
	}
	// until_text waits past unrelated changes, for the line printed 300 ms later.
	s = waitText(t, p, "got-abc")
	if !s.Matched {
		t.Errorf("matched = false")
	}
	// A done context ends a wait.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Read(ctx, ReadOptions{UntilText: "never-printed", WaitMs: 10000}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled read: %v", err)
	}
	// A multi-line until_text matches across rows.
	if s, _ := p.Read(t.Context(), ReadOptions{UntilText: "abc\ngot-abc", WaitMs: 1000}); !s.Matched {
		t.Errorf("multi-line until_text did not match %q", s.Lines[:4])
	}
}

func TestReadReturnsOnExit(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `echo bye; sleep 0.2; exit 3`}})
	waitText(t, p, "bye")
	start := time.Now()
	s, err := p.Read(t.Context(), ReadOptions{UntilText: "never-printed", WaitMs: int(long / time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Alive || s.Matched || s.Exit == nil || *s.Exit.Status != 3 {
		t.Errorf("alive=%v matched=%v exit=%+v; want exited with 3", s.Alive, s.Matched, s.Exit)
	}
	if d := time.Since(start); d > long/2 {
		t.Errorf("read waited %v despite the exit", d)
	}
	if s.Lines[0] != "bye" {
		t.Errorf("final screen lost: %q", s.Lines[0])
	}
}

func TestSpawnOptions(t *testing.T) {
	// Scripts are written before t.Parallel: a fork in a parallel test could inherit
	// the still-open file and make exec fail with ETXTBSY.
	bin, dir := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\necho private-tool \"$@\"\nsleep 1000\n"
	if err := os.WriteFile(filepath.Join(bin, "mytool"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\npwd\nsleep 1000\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	t.Run("path from child env", func(t *testing.T) {
		t.Parallel()
		env := []string{"PATH=" + bin + ":/usr/bin:/bin"}
		p := spawnT(t, SpawnOptions{Argv: []string{"mytool", "x"}, Env: env})
		waitText(t, p, "private-tool x")
	})
	t.Run("relative command and cwd", func(t *testing.T) {
		t.Parallel()
		p := spawnT(t, SpawnOptions{Argv: []string{"./run.sh"}, Cwd: dir})
		waitText(t, p, dir)
	})
	t.Run("wrap", func(t *testing.T) {
		t.Parallel()
		p := spawnT(t, SpawnOptions{Argv: []string{"sleep", "1000"}, Wrap: func(c *exec.Cmd) error {
			c.Args = append([]string{"sh", "-c", `echo "wrapped $*"; exec "$@"`, "sh", c.Path}, c.Args[1:]...)
			c.Path = "/bin/sh"
			return nil
		}})
		waitText(t, p, "wrapped /usr/bin/sleep 1000")
	})
	t.Run("size", func(t *testing.T) {
		t.Parallel()
		p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", "stty size; sleep 1000"}, Cols: 5000, Rows: 0})
		s := waitText(t, p, "24 1000")
		if s.Cols != MaxSize || s.Rows != DefaultRows {
			t.Errorf("size %dx%d", s.Cols, s.Rows)
		}
	})
	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		_, err := Spawn(t.Context(), SpawnOptions{})
		if !errors.Is(err, ErrInvalidInput) {
			t.Errorf("empty argv: %v", err)
		}
		var se *SpawnError
		_, err = Spawn(t.Context(), SpawnOptions{Argv: []string{"no-such-command-xyz"}, Env: testEnv(t)})
		if !errors.As(err, &se) || se.Cmd != "no-such-command-xyz" || !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("missing command: %v", err)
		}
		_, err = Spawn(t.Context(), SpawnOptions{Argv: []string{"/etc/passwd"}})
		if !errors.As(err, &se) {
			t.Errorf("non-executable: %v", err)
		}
		_, err = Spawn(t.Context(), SpawnOptions{Argv: []string{"sh"}, Wrap: func(*exec.Cmd) error {
			return errors.New("sandbox refused")
		}})
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "sandbox refused") {
			t.Errorf("wrap error: %v", err)
		}
		_, err = Spawn(t.Context(), SpawnOptions{Argv: []string{"sh"}, Cwd: "/no/such/dir"})
		if !errors.As(err, &se) {
			t.Errorf("bad cwd: %v", err)
		}
	})
}

func TestSendUnknownKey(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"cat"}})
	n, err := p.Send(t.Context(), append(Text("abc"), Keys("Nope")...))
	var ke *KeyError
	if !errors.As(err, &ke) || n != 0 {
		t.Errorf("Send with unknown key = %d, %v; want 0 and *KeyError", n, err)
	}
	// Nothing was written: the screen stays empty.
	if s, _ := p.Read(t.Context(), ReadOptions{WaitMs: 200}); s.Lines[0] != "" {
		t.Errorf("partial input reached the program: %q", s.Lines[0])
	}
}

func TestMergeEnv(t *testing.T) {
	t.Parallel()
	got := MergeEnv([]string{"A=1", "PATH=/bin", "B=2"}, map[string]string{"PATH": "/x", "Z": "9", "C": "3"})
	want := []string{"A=1", "B=2", "C=3", "PATH=/x", "Z=9"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("MergeEnv = %q, want %q", got, want)
	}
}

// TestHostileOutput: output that crashes a bare vt (a bottom margin below the screen,
// then scroll down) must leave the PTY working, with the margin clamped as xterm does.
func TestHostileOutput(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c",
		`printf '\033[2;30r\033[T\033[3L\033[2M'; printf '\033[3;10r\033[T'; ` +
			// Margins 2..30 on 5 rows mean rows 2..5: the first row must not scroll.
			// A right margin past the last column; then full margins again (CSI s
			// without parameters: vt keeps the margins when the mode is reset).
			`printf '\033[?69h\033[5;40s\033[2M\033[L\033[s\033[?69l'; ` +
			`printf '\033[H\033[2JTOP\033[2;30r\033[5;1H'; for i in 1 2 3 4 5 6; do printf '\nline%d' $i; done; ` +
			`exec sleep 1000`}, Rows: 5, Cols: 20})
	s := waitText(t, p, "line6")
	if want := []string{"TOP", "line3", "line4", "line5", "line6"}; strings.Join(s.Lines, "|") != strings.Join(want, "|") {
		t.Errorf("screen = %q, want %q", s.Lines, want)
	}
	p.mu.Lock()
	panics := p.emu.(*vtEmulator).panics
	p.mu.Unlock()
	if panics != 0 {
		t.Errorf("%d emulator panics recovered; the margin guard should prevent them", panics)
	}
}

func TestEmulatorRecoversFromPanic(t *testing.T) {
	t.Parallel()
	var logged []string
	v := newVTEmulator(20, 5, func(f string, a ...any) { logged = append(logged, f) })
	go drainAll(v)
	defer v.CloseReplies()
	// A callback that panics stands in for any vt bug reached from program output.
	v.e.RegisterCsiHandler('z', func(ansi.Params) bool { panic("boom") })
	v.Write([]byte("before\x1b[z"))
	v.Write([]byte("\r\nafter"))
	if v.panics != 1 || len(logged) != 1 {
		t.Errorf("panics=%d logged=%q", v.panics, logged)
	}
	if s := v.Snapshot(); s.lines[0] != "before" || s.lines[1] != "after" {
		t.Errorf("screen after recovery = %q", s.lines)
	}
}

func TestCloseWithDoneContextStillKills(t *testing.T) {
	t.Parallel()
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", `trap "" HUP TERM; echo ready; sleep 1000`}})
	waitText(t, p, "ready")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	if _, err := p.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with a done context: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > long/2 {
		t.Errorf("Close with a done context took %v", d)
	}
	waitGroupGone(t, p.Pid())
}

func TestExitEventOnClose(t *testing.T) {
	t.Parallel()
	events := make(chan Event, 16)
	p := spawnT(t, SpawnOptions{Argv: []string{"cat"}, OnEvent: func(e Event) { events <- e }})
	if _, err := p.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(long)
	for {
		select {
		case e := <-events:
			if e.Kind != EventExit {
				continue
			}
			if e.Exit == nil || e.Exit.Signal == nil || *e.Exit.Signal != "SIGHUP" {
				t.Errorf("exit event = %+v", e.Exit)
			}
			return
		case <-timeout:
			t.Fatal("no exit event after Close")
		}
	}
}

// TestQueryReplies: the emulator answers terminal queries through the PTY, as a real
// terminal does (vim and others block on them otherwise).
func TestQueryReplies(t *testing.T) {
	t.Parallel()
	needBin(t, "bash")
	p := spawnT(t, SpawnOptions{Argv: []string{"bash", "--norc", "--noprofile", "-c",
		`stty -icanon -echo; printf 'ab\033[6n'; IFS= read -r -d R -t 10 r; printf '\r\ncpr:%s\r\n' "${r#*[}"; ` +
			`printf '\033[c'; IFS= read -r -d c -t 10 d; printf 'da:%s\r\n' "${d#*[}"; exec sleep 1000`}})
	s := waitText(t, p, "da:")
	if s.Lines[1] != "cpr:1;3" {
		t.Errorf("cursor position report = %q, want cpr:1;3", s.Lines[1])
	}
	if !strings.HasPrefix(s.Lines[2], "da:?") {
		t.Errorf("device attributes = %q", s.Lines[2])
	}
}

// TestSendToProgramNotReading: a write the program never drains is bounded by ctx and
// does not wedge the PTY.
func TestSendToProgramNotReading(t *testing.T) {
	t.Parallel()
	// In canonical mode the line discipline discards what does not fit; in raw mode
	// it stops taking input, so the master's write blocks.
	p := spawnT(t, SpawnOptions{Argv: []string{"sh", "-c", "stty raw -echo; echo ready; exec sleep 1000"}})
	waitText(t, p, "ready")
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	big := Bytes(make([]byte, 1<<20))
	start := time.Now()
	n, err := p.Send(ctx, big)
	if err == nil || n >= 1<<20 {
		t.Errorf("Send of 1 MiB to a program that never reads = %d, %v; want a timeout", n, err)
	}
	if d := time.Since(start); d > long/2 {
		t.Errorf("Send took %v", d)
	}
	if _, err := p.Read(t.Context(), ReadOptions{}); err != nil {
		t.Errorf("Read after a timed-out Send: %v", err)
	}
	st, err := p.Close(t.Context())
	if err != nil || st == nil {
		t.Errorf("Close after a timed-out Send = %+v, %v", st, err)
	}
}

func TestResolveCommand(t *testing.T) {
	t.Parallel()
	got, err := ResolveCommand("sh", []string{"PATH=/nonexistent:/bin:/usr/bin"}, "")
	if err != nil || (got != "/bin/sh" && got != "/usr/bin/sh") {
		t.Errorf("ResolveCommand(sh) = %q, %v", got, err)
	}
	// The child's PATH decides, not ours: an empty one finds nothing.
	if _, err := ResolveCommand("sh", []string{"PATH="}, "/"); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("empty PATH: %v", err)
	}
	// No PATH at all falls back to the standard list.
	if got, err := ResolveCommand("sh", nil, ""); err != nil || !strings.HasSuffix(got, "/sh") {
		t.Errorf("no PATH: %q, %v", got, err)
	}
	if _, err := ResolveCommand("/bin", nil, ""); err == nil {
		t.Errorf("a directory resolved as a command")
	}
}
