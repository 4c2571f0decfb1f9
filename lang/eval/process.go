package eval

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// captureLimit bounds each captured stream (LANGUAGE.md §9.4).
const captureLimit = 64 << 20

// killGrace is how long a cancelled process group gets between SIGTERM
// and SIGKILL.
const killGrace = 500 * time.Millisecond

// capBuf captures output up to captureLimit and silently drops the rest,
// so a chatty child can never exhaust memory or block on a full pipe.
type capBuf struct{ b []byte }

func (c *capBuf) Write(p []byte) (int, error) {
	if room := captureLimit - len(c.b); room > 0 {
		if len(p) > room {
			c.b = append(c.b, p[:room]...)
		} else {
			c.b = append(c.b, p...)
		}
	}
	return len(p), nil
}

// procSpec describes one child process.
type procSpec struct {
	path    string   // resolved executable
	argv    []string // argv[0] is the display name
	env     []string // extra NAME=value entries for this spawn only
	stdin   []byte
	hasIn   bool
	redirs  []redir
	stmtPos bool
	// terminal asks for the host terminal (interact, or a statement in
	// an interactive session).
	terminal bool
}

// external runs an external program by name or path (§9.1 step 8).
func (t *thread) external(head string, args []cmdArg, opts *cmdOpts) (value.Value, error) {
	pinned, err := t.e.reefGate(head, opts)
	if err != nil {
		return nil, err
	}
	path, ok := pinned, pinned != ""
	if !ok {
		path, ok = t.e.lookPath(head)
	}
	if !ok {
		d := diag.New(diag.NotFound, "%s: command not found", head)
		if h := didYouMean(opts.sc(t), head); h != "" {
			d.Hint = h
		}
		return nil, d
	}
	argv, err := argvStrings(args)
	if err != nil {
		return nil, err
	}
	env := opts.env
	if pinned != "" {
		env = t.withReefPath(env)
	}
	return t.runProc(&procSpec{
		path: path, argv: append([]string{head}, argv...), env: env,
		stdin: opts.stdin, hasIn: opts.hasIn, redirs: opts.redirs, stmtPos: opts.stmtPos, terminal: opts.terminal,
	})
}

// withReefPath adds the Reef view to the PATH of a pinned tool's spawn (see reefPath): extra
// entries are applied after the session environment, so the last PATH wins.
func (t *thread) withReefPath(extra []string) []string {
	base := ""
	for _, kv := range append(t.e.Environ(), extra...) {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			base = v
		}
	}
	p := t.e.reefPath(base)
	if p == "" {
		return extra
	}
	return append(append([]string(nil), extra...), "PATH="+p)
}

// sc returns the scope for did-you-mean hints.
func (o *cmdOpts) sc(t *thread) *scope {
	if o.scope != nil {
		return o.scope
	}
	return t.e.root
}

// runProc starts a child in its own process group, captures its output
// (bounded) and waits. Cancelling the thread's context kills the whole
// group: SIGTERM, then SIGKILL after killGrace.
func (t *thread) runProc(spec *procSpec) (*value.Outcome, error) {
	ctx := t.ctx
	cmd := exec.CommandContext(ctx, spec.path)
	cmd.Args = spec.argv
	cmd.Dir = t.e.Cwd()
	cmd.Env = append(t.e.Environ(), spec.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		_ = unix.Kill(-pid, unix.SIGTERM)
		time.AfterFunc(killGrace, func() { _ = unix.Kill(-pid, unix.SIGKILL) })
		return nil
	}
	cmd.WaitDelay = 2 * time.Second

	var files []*os.File
	var written []*prior // files `>` truncated: reported once the process has run (or failed to)
	defer func() {
		for _, f := range files {
			f.Close()
		}
		for _, pr := range written {
			t.wrote(pr)
		}
	}()
	if spec.hasIn {
		cmd.Stdin = bytes.NewReader(spec.stdin)
	}
	var out, errb capBuf
	cmd.Stdout = &out
	cmd.Stderr = &errb
	for _, r := range spec.redirs {
		var f *os.File
		var err error
		switch r.op {
		case "<":
			f, err = os.Open(r.path)
			cmd.Stdin = f
		case ">":
			if pr := t.before(r.path); pr != nil {
				written = append(written, pr)
			}
			f, err = os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			cmd.Stdout = f
		case ">>":
			f, err = os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			cmd.Stdout = f
		}
		if err != nil {
			return nil, diag.New(diag.Custom, "redirect %s %s: %v", r.op, r.path, unwrapPathErr(err))
		}
		files = append(files, f)
	}
	streamed := false
	if spec.stmtPos && cmd.Stdout == &out && !t.e.quiet {
		// A statement-position command shows its output live.
		cmd.Stdout = io.MultiWriter(&out, t.e.opts.Stdout)
		streamed = true
	}
	if t.e.host.WrapCmd != nil {
		if err := t.e.host.WrapCmd(ctx, cmd); err != nil {
			return nil, err
		}
	}
	if t.e.host.Terminal != nil && (spec.terminal || spec.stmtPos && t.e.opts.Interactive) &&
		len(spec.redirs) == 0 && !spec.hasIn {
		return t.runOnTerminal(cmd, spec)
	}
	start := time.Now()
	if err := t.e.startCmd(ctx, cmd); err != nil {
		if d := diag.As(err); d != nil {
			return nil, d
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.New(diag.NotFound, "%s: %v", spec.argv[0], unwrapPathErr(err))
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, diag.New(diag.Permission, "%s: %v", spec.argv[0], unwrapPathErr(err))
		}
		if ctx.Err() != nil {
			return nil, diag.New(diag.Cancelled, "cancelled")
		}
		return nil, diag.New(diag.IOError, "%s: %v", spec.argv[0], err)
	}
	pid := cmd.Process.Pid
	if t.e.host.OnSpawn != nil {
		t.e.host.OnSpawn(ctx, pid)
	}
	if t.task != nil {
		t.task.track(pid, true)
	}
	_ = cmd.Wait() // the status is read from ProcessState below
	dur := time.Since(start)
	if t.task != nil {
		t.task.track(pid, false)
	}
	if t.e.host.OnExit != nil {
		t.e.host.OnExit(ctx, pid)
	}
	if ctx.Err() != nil {
		return nil, diag.New(diag.Cancelled, "cancelled")
	}
	o := &value.Outcome{Pid: pid, Dur: dur, Cmd: strings.Join(spec.argv, " "), Stdout: out.b, Stderr: errb.b}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Signal = signalName(ws.Signal())
		} else {
			st := ps.ExitCode()
			o.Status = &st
			o.OK = st == 0
		}
	}
	if o.Stdout == nil {
		o.Stdout = []byte{}
	}
	if streamed {
		t.e.markStreamed(o)
	}
	if o.Stderr == nil {
		o.Stderr = []byte{}
	}
	return o, nil
}

// startCmd starts cmd through the host's StartCmd port, or directly.
func (e *Evaluator) startCmd(ctx context.Context, cmd *exec.Cmd) error {
	if e.host.StartCmd != nil {
		return e.host.StartCmd(ctx, cmd)
	}
	return cmd.Start()
}

func signalName(s syscall.Signal) string { return value.SignalName(int(s)) }

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// cmdFailed is the cmd_failed error for a failed outcome (§9.4).
func cmdFailed(o *value.Outcome) *diag.Error {
	name := o.Cmd
	var d *diag.Error
	if o.Signal != "" {
		d = diag.New(diag.CmdFailed, "`%s` died from %s", name, o.Signal)
	} else {
		st := -1
		if o.Status != nil {
			st = *o.Status
		}
		d = diag.New(diag.CmdFailed, "`%s` exited with status %d", name, st)
		d.Status = &st
	}
	se := string(o.Stderr)
	d.Stderr = &se
	if h := strings.TrimSpace(se); h != "" {
		d.Hint = h
	}
	return d
}

// runOnTerminal hands cmd to the host's terminal runner; output is not
// captured, so the outcome carries only the status.
func (t *thread) runOnTerminal(cmd *exec.Cmd, spec *procSpec) (*value.Outcome, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	start := time.Now()
	err := t.e.host.Terminal(t.ctx, cmd)
	dur := time.Since(start)
	if t.ctx.Err() != nil {
		return nil, diag.New(diag.Cancelled, "cancelled")
	}
	if cmd.ProcessState == nil {
		if err == nil {
			err = errors.New("terminal runner did not run the command")
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.New(diag.NotFound, "%s: %v", spec.argv[0], unwrapPathErr(err))
		}
		return nil, diag.New(diag.IOError, "%s: %v", spec.argv[0], err)
	}
	o := &value.Outcome{Pid: cmd.ProcessState.Pid(), Dur: dur, Cmd: strings.Join(spec.argv, " "), Stdout: []byte{}, Stderr: []byte{}}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Signal = signalName(ws.Signal())
	} else {
		st := cmd.ProcessState.ExitCode()
		o.Status = &st
		o.OK = st == 0
	}
	t.e.markStreamed(o)
	return o, nil
}
