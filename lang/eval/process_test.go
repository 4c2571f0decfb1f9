package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

func newTestEval(t *testing.T) (*Evaluator, string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	dir := t.TempDir()
	return New(&Options{Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}}), dir
}

func evalString(t *testing.T, ev *Evaluator, src string) (string, error) {
	t.Helper()
	v, err := ev.Eval(t.Context(), src)
	if err != nil {
		return "", err
	}
	return value.RenderInline(v), nil
}

func TestStatementVersusValuePosition(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want, code, contains string
	}{
		{name: "statement raises", src: "^false\n1", code: diag.CmdFailed, contains: "exited with status 1"},
		{name: "value binds outcome", src: "let r = (^false)\nr.ok", want: "false"},
		{name: "value status", src: "(sh { exit 3 }).status", want: "3"},
		{name: "last block statement is value", src: "fn f() { sh { exit 4 } }\nf().status", want: "4"},
		{name: "loop body raises", src: "for i in 0..1 { sh { exit 5 } }", code: diag.CmdFailed, contains: "status 5"},
		{name: "chain operands never raise", src: "(^false || ^true).ok", want: "true"},
		{name: "stdout captured", src: "sh { echo hi }.out", want: `"hi"`},
		{name: "stderr on error", src: "try { sh { echo boom >&2; exit 2 }\n1 } catch e { [e.status, e.stderr] }", want: `[2, "boom\n"]`},
		{name: "out of failed outcome raises", src: "(sh { exit 1 }).out", code: diag.CmdFailed},
		{name: "signal death", src: "(sh { kill -TERM $$ }).signal", want: `"SIGTERM"`},
		{name: "env prefix", src: "(FOO=bar sh -c 'printf %s \"$FOO\"').out", want: `"bar"`},
		{name: "session env", src: "env.ZED = \"z\"\nsh { printf %s \"$ZED\" }.out", want: `"z"`},
		{name: "background task", src: "(sh -c 'echo bg' &).await().out", want: `"bg"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, _ := newTestEval(t)
			got, err := evalString(t, ev, tc.src)
			if tc.code != "" {
				d := diag.As(err)
				if d == nil || d.Code != tc.code {
					t.Fatalf("want %s error, got %v (value %s)", tc.code, err, got)
				}
				if !strings.Contains(d.Msg, tc.contains) {
					t.Fatalf("message %q lacks %q", d.Msg, tc.contains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCmdFailedCarriesStatusAndStderr(t *testing.T) {
	t.Parallel()
	ev, _ := newTestEval(t)
	_, err := ev.Eval(t.Context(), "sh { echo oops >&2; exit 7 }")
	d := diag.As(err)
	if d == nil || d.Status == nil || *d.Status != 7 || d.Stderr == nil || *d.Stderr != "oops\n" {
		t.Fatalf("got %#v", d)
	}
	if d.Span.IsZero() || d.Src == "" {
		t.Fatalf("error lacks span/src: %#v", d)
	}
}

func TestRedirections(t *testing.T) {
	t.Parallel()
	ev, dir := newTestEval(t)
	src := `echo hi > a.txt
sh -c 'echo there' >> a.txt
printf x > b.txt
(cat < a.txt).out.str()`
	got, err := evalString(t, ev, src)
	if err != nil {
		t.Fatal(err)
	}
	if got != `"hi\nthere\n"` {
		t.Fatalf("got %s", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "b.txt"))
	if string(b) != "x" {
		t.Fatalf("b.txt = %q", b)
	}
}

func TestFeed(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, want, code string }{
		{src: `"b\na\n".feed(sort).out`, want: `"a\nb"`},
		{src: `["z", "y"].feed(sort).out`, want: `"y\nz"`},
		{src: `{a: 1}.feed(cat).out`, want: `{a: 1}`},
		{src: `42.feed(cat).out`, want: `"42"`},
		{src: `cat.feed("x").out`, want: `"x"`},
		{src: `"q".feed(sh { tr q r }).out`, want: `"r"`},
		{src: `path("x").feed(cat)`, code: diag.TypeError},
		{src: `re"x".feed(cat)`, code: diag.FeedError},
		{src: `"nope".feed(grep zzz)`, code: diag.CmdFailed},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			ev, _ := newTestEval(t)
			got, err := evalString(t, ev, tc.src)
			if tc.code != "" {
				if diag.CodeOf(err) != tc.code {
					t.Fatalf("want %s, got %v", tc.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestCancelKillsProcessTree cancels a run whose child has its own child
// and checks that both are gone.
func TestCancelKillsProcessTree(t *testing.T) {
	t.Parallel()
	ev, dir := newTestEval(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := ev.Eval(ctx, "sh { sleep 60 & echo $! > grandchild.pid; echo $$ > child.pid; wait }")
		done <- err
	}()
	pidFile := filepath.Join(dir, "grandchild.pid")
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("child never started")
		}
		time.Sleep(20 * time.Millisecond)
		pids = pids[:0]
		for _, f := range []string{pidFile, filepath.Join(dir, "child.pid")} {
			b, err := os.ReadFile(f)
			if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
				pids = append(pids, n)
			}
		}
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if diag.CodeOf(err) != diag.Cancelled {
			t.Fatalf("want cancelled, got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if time.Since(start) > 8*time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Fatalf("process %d survived cancellation", pid)
		}
	}
}

// alive reports whether pid still runs (zombies awaiting reaping by init
// count as dead), polling briefly since SIGKILL delivery is asynchronous.
func alive(pid int) bool {
	for range 100 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return false
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
				return false
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestHostHooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var wrapped, spawned, exited int
	dir := t.TempDir()
	var out bytes.Buffer
	ev := New(&Options{Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &out, Host: &Host{
		WrapCmd: func(ctx context.Context, cmd *exec.Cmd) error {
			mu.Lock()
			defer mu.Unlock()
			wrapped++
			if cmd.Dir != dir {
				t.Errorf("child cwd %q, want %q", cmd.Dir, dir)
			}
			return nil
		},
		OnSpawn: func(ctx context.Context, pid int) { mu.Lock(); spawned++; mu.Unlock() },
		OnExit:  func(ctx context.Context, pid int) { mu.Lock(); exited++; mu.Unlock() },
	}})
	if _, err := ev.Eval(t.Context(), "sh { echo one }\n\"x\".feed(cat)\necho two\n1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if wrapped != 2 || spawned != 2 || exited != 2 {
		t.Fatalf("hooks: wrap %d spawn %d exit %d", wrapped, spawned, exited)
	}
	if got := out.String(); got != "one\nxtwo\n" {
		t.Fatalf("statement output %q", got)
	}
}

func TestWrapCmdErrorRefusesSpawn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ev := New(&Options{Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Host: &Host{
		WrapCmd: func(ctx context.Context, cmd *exec.Cmd) error {
			return diag.New(diag.SpawnDenied, "denied by policy")
		},
	}})
	_, err := ev.Eval(t.Context(), "sh { touch should-not-exist }")
	if diag.CodeOf(err) != diag.SpawnDenied {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "should-not-exist")); err == nil {
		t.Fatal("refused command ran")
	}
}

func TestRecursionLimit(t *testing.T) {
	t.Parallel()
	ev := New(&Options{Cwd: t.TempDir()})
	// The corpus skips this case (errcode-recursion-limit-on-unbounded-
	// native-recursion) because the original overflowed its native stack.
	_, err := ev.Eval(t.Context(), "fn f(n: int) { f(n + 1) }\nf(0)")
	if diag.CodeOf(err) != diag.RecursionLimit {
		t.Fatalf("got %v", err)
	}
	// Depth 9,999 is fine.
	v, err := ev.Eval(t.Context(), "fn g(n) { if n == 0 { 0 } else { g(n - 1) + 1 } }\ng(9990)")
	if err != nil || value.RenderInline(v) != "9990" {
		t.Fatalf("g(9990) = %v, %v", v, err)
	}
}

func TestExitAndSessionState(t *testing.T) {
	t.Parallel()
	ev, dir := newTestEval(t)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, err := ev.Eval(t.Context(), "cd sub\nlet x = 5"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(ev.Cwd(), "/sub") {
		t.Fatalf("cwd %s", ev.Cwd())
	}
	if !ev.Bound("x") {
		t.Fatal("x not bound after Run")
	}
	got, err := evalString(t, ev, "x + 1")
	if err != nil || got != "6" {
		t.Fatalf("x + 1 = %s, %v", got, err)
	}
	_, err = ev.Eval(t.Context(), "exit 3\n1")
	var ex *ExitError
	if !errors.As(err, &ex) || ex.Code != 3 {
		t.Fatalf("got %v", err)
	}
	if wd, _ := os.Getwd(); strings.HasSuffix(wd, "/sub") {
		t.Fatal("process cwd changed")
	}
}

func TestValuePositionRun(t *testing.T) {
	t.Parallel()
	ev, _ := newTestEval(t)
	prog, err := ev.Parse("^false", false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ev.Run(t.Context(), prog, Value)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := v.(*value.Outcome); !ok || o.OK {
		t.Fatalf("got %v", v)
	}
}

// TestStatementOutput checks what a script shows: statement-position
// commands print once (live for externals), chains print every command
// they ran, and Streamed reports what was already shown.
func TestStatementOutput(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	ev := New(&Options{Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &out})
	v, err := ev.Eval(t.Context(), "for i in 1..3 { echo (i) }\nlet quiet = (echo no)\necho a && sh { echo b } && echo c\necho last")
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "1\n2\na\nb\nc\nlast\n" {
		t.Fatalf("output %q", got)
	}
	if !ev.Streamed(v) {
		t.Fatal("final statement output not reported as shown")
	}
}

// TestTaskSuspendStopsProcesses suspends a background task and checks its
// child is stopped, then resumes and awaits it.
func TestTaskSuspendStopsProcesses(t *testing.T) {
	t.Parallel()
	ev, dir := newTestEval(t)
	if _, err := ev.Eval(t.Context(), "let k = spawn { sh { echo $$ > pid; sleep 3; echo done } }"); err != nil {
		t.Fatal(err)
	}
	var pid int
	for range 500 {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			pid = n
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("task never started")
	}
	if _, err := ev.Eval(t.Context(), "k.suspend()"); err != nil {
		t.Fatal(err)
	}
	stopped := false
	for range 100 {
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "T" {
			stopped = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !stopped {
		t.Fatal("suspended task's process is not stopped")
	}
	got, err := evalString(t, ev, "k.is_suspended()")
	if err != nil || got != "true" {
		t.Fatalf("is_suspended = %s, %v", got, err)
	}
	got, err = evalString(t, ev, "k.resume()\nk.await().out")
	if err != nil || got != `"done"` {
		t.Fatalf("await after resume = %s, %v", got, err)
	}
}

func TestGateAndConfig(t *testing.T) {
	t.Parallel()
	cfg := value.NewRecord([]string{"theme"}, []value.Value{value.Str("dark")})
	refused := diag.New(diag.SpawnDenied, "policy says no")
	ev := New(&Options{Cwd: t.TempDir(), Config: cfg, Host: &Host{
		Gate: func(ctx context.Context, prog *syntax.Program) error {
			if strings.Contains(prog.Src, "forbidden") {
				return refused
			}
			return nil
		},
	}})
	got, err := evalString(t, ev, "[config.theme, config.get(\"nope\"), config.all().len()]")
	if err != nil || got != `["dark", null, 1]` {
		t.Fatalf("config: %s, %v", got, err)
	}
	if _, err := ev.Eval(t.Context(), "let forbidden = 1"); err != refused {
		t.Fatalf("gate: %v", err)
	}
	if ev.Bound("forbidden") {
		t.Fatal("refused program ran")
	}
}

// TestTerminalPort checks which commands an interactive evaluator hands
// to the host terminal.
func TestTerminalPort(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	var screen bytes.Buffer
	term := func(ctx context.Context, cmd *exec.Cmd) error {
		mu.Lock()
		ran = append(ran, strings.Join(cmd.Args, " "))
		mu.Unlock()
		cmd.Stdout = &screen
		return cmd.Run()
	}
	ev := New(&Options{Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}, Interactive: true, Host: &Host{Terminal: term}})
	v, err := ev.Eval(t.Context(), "sh -c 'echo on-tty'\nlet r = (sh -c 'echo captured')\ninteract sh -c 'exit 3'\nr.out")
	if err == nil || diag.CodeOf(err) != diag.CmdFailed {
		t.Fatalf("interact exit 3 should fail the statement, got %v %v", v, err)
	}
	if got := strings.Join(ran, "|"); got != "sh -c echo on-tty|sh -c exit 3" {
		t.Fatalf("terminal ran %q", got)
	}
	if screen.String() != "on-tty\n" {
		t.Fatalf("screen %q", screen.String())
	}
}

func TestCaptureIsBounded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("moves 70 MB through a pipe")
	}
	ev, _ := newTestEval(t)
	got, err := evalString(t, ev, "let r = (sh { head -c 70000000 /dev/zero; echo done >&2 })\n[r.ok, r.stdout.len(), r.stderr.len()]")
	if err != nil || got != "[true, 67108864, 5]" {
		t.Fatalf("got %s, %v", got, err)
	}
}

// TestEvaluatorsAreIsolated runs sessions concurrently: each sees only
// its own cwd and environment, in builtins and in children.
func TestEvaluatorsAreIsolated(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "d"), 0o755)
			ev := New(&Options{Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "N=" + strconv.Itoa(i)}})
			got, err := evalString(t, ev, "cd d\nenv.M = \"m\"\n[sh { pwd }.out == pwd.display(), sh { printf %s \"$N$M\" }.out]")
			if err != nil || got != `[true, "`+strconv.Itoa(i)+`m"]` {
				t.Errorf("session %d: %s, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
}

// TestTasksOutliveTheirStatement checks that a task keeps running after
// the Run that spawned it returns (and its context ends), and that Close
// stops it.
func TestTasksOutliveTheirStatement(t *testing.T) {
	t.Parallel()
	ev, dir := newTestEval(t)
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := ev.Eval(ctx, "let k = spawn { sleep 200ms\n\"ok\".save(\"marker\") }\nlet long = (sh -c 'sleep 60' &)"); err != nil {
		t.Fatal(err)
	}
	cancel()
	got, err := evalString(t, ev, "k.await()\npath(\"marker\").read()")
	if err != nil || got != `"ok"` {
		t.Fatalf("task after its statement: %s, %v", got, err)
	}
	ev.Close()
	got, err = evalString(t, ev, "long.await() catch e { e.code }")
	if err != nil || got != `"cancelled"` {
		t.Fatalf("after Close: %s, %v", got, err)
	}
	_ = dir
}

func TestStructuredStatementOutputIsBlockRendered(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	ev := New(&Options{Cwd: dir, Stdout: &out})
	if _, err := ev.Eval(t.Context(), "ls\n1"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "name") || !strings.Contains(lines[1], "a.txt") {
		t.Fatalf("ls output %q", out.String())
	}
}
