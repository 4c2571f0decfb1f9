package term

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Size limits for a PTY, in cells.
const (
	DefaultCols = 80
	DefaultRows = 24
	MaxSize     = 1000
)

// DefaultTerm is the TERM given to a child whose environment has none.
const DefaultTerm = "xterm-256color"

// defaultPath is used when the child's environment has no PATH, as execvp does.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// SpawnOptions describes the program to run on a new PTY.
type SpawnOptions struct {
	// Argv is the command and its arguments. A command without "/" is looked up in
	// the PATH of Env (not of this process); a relative one with "/" is relative to Cwd.
	Argv []string
	// Cwd is the child's working directory; empty means this process's.
	Cwd string
	// Env is the child's whole environment ("K=V"); TERM=xterm-256color is added when
	// it has no TERM. Use [MergeEnv] to apply overrides.
	Env []string
	// Cols and Rows give the initial size; 0 means 80x24, others are clamped to 1..1000.
	Cols, Rows int
	// Wrap, when set, may rewrite the command just before it starts, for instance to
	// re-exec it through a confining helper (Path and Args); stdio, Dir, Env and
	// SysProcAttr are already set and should be kept. An error aborts the spawn.
	Wrap func(*exec.Cmd) error
	// OnEvent, when set, receives change and exit notifications; see [Event].
	OnEvent func(Event)
	// Logf, when set, receives reports of trouble that does not stop the PTY, such as
	// a recovered emulator panic.
	Logf func(format string, args ...any)
}

// SpawnError reports that a PTY could not be opened or its program not started. Cmd is
// the command as the caller gave it; the kernel maps this to PTY_SPAWN_FAILED.
type SpawnError struct {
	Cmd string
	Err error
}

func (e *SpawnError) Error() string { return fmt.Sprintf("spawn %s: %v", e.Cmd, e.Err) }

func (e *SpawnError) Unwrap() error { return e.Err }

// Spawn starts opts.Argv on a new PTY. The child leads a new session (its process group
// id equals its pid) with the PTY as controlling terminal. ctx only bounds the start:
// the PTY lives until [PTY.Close].
func Spawn(ctx context.Context, opts SpawnOptions) (*PTY, error) {
	return spawn(ctx, opts, "")
}

func spawn(ctx context.Context, opts SpawnOptions, id string) (*PTY, error) {
	if len(opts.Argv) == 0 || opts.Argv[0] == "" {
		return nil, fmt.Errorf("%w: empty command", ErrInvalidInput)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := opts.Argv[0]
	fail := func(err error) (*PTY, error) { return nil, &SpawnError{Cmd: name, Err: err} }
	cols, rows := clampSize(opts.Cols, DefaultCols), clampSize(opts.Rows, DefaultRows)
	env := withTerm(opts.Env)
	path, err := ResolveCommand(name, env, opts.Cwd)
	if err != nil {
		return fail(err)
	}
	ptmx, tty, err := openPTY()
	if err != nil {
		return fail(err)
	}
	// The parent's copy of the slave must close whatever happens, or the master never
	// sees EIO after the child exits.
	defer tty.Close()
	if err := setWinsize(tty, cols, rows); err != nil {
		ptmx.Close()
		return fail(err)
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string(nil), opts.Argv...),
		Env:    env,
		Dir:    opts.Cwd,
		Stdin:  tty,
		Stdout: tty,
		Stderr: tty,
		// Ctty is a descriptor number in the child: 0 is the tty. No Pdeathsig: it is
		// tied to the forking OS thread, which the Go runtime may retire at any time.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	}
	if opts.Wrap != nil {
		if err := opts.Wrap(cmd); err != nil {
			ptmx.Close()
			return fail(err)
		}
	}
	if err := cmd.Start(); err != nil {
		ptmx.Close()
		return fail(err)
	}
	p := newPTY(id, opts, cmd, ptmx, cols, rows)
	p.start()
	return p, nil
}

// openPTY opens a PTY pair whose master is non-blocking and registered with the Go
// poller. creack/pty's own calls go through File.Fd, which switches the descriptor to
// blocking mode for good: then read deadlines do nothing and Close cannot wake a
// blocked Read. A fresh close-on-exec duplicate starts clean.
func openPTY() (ptmx, tty *os.File, err error) {
	orig, tty, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	defer orig.Close()
	fd, err := unix.FcntlInt(orig.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		tty.Close()
		return nil, nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		tty.Close()
		return nil, nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "ptmx"), tty, nil
}

// setWinsize sets a PTY's size without File.Fd (see openPTY). On the master it makes the
// kernel send SIGWINCH to the terminal's foreground process group.
func setWinsize(f *os.File, cols, rows int) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = sc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ,
			&unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	})
	if err != nil {
		return err
	}
	if ioErr != nil {
		return fmt.Errorf("set pty size: %w", ioErr)
	}
	return nil
}

func clampSize(n, def int) int {
	if n == 0 {
		return def
	}
	return min(max(n, 1), MaxSize)
}

// withTerm copies env and adds TERM when it is missing.
func withTerm(env []string) []string {
	out := append([]string(nil), env...)
	if _, ok := lookupEnv(env, "TERM"); !ok {
		out = append(out, "TERM="+DefaultTerm)
	}
	return out
}

// lookupEnv finds the last entry for key, as the exec package lets later entries win.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// MergeEnv returns base with each key of overrides set to its value: same-named
// entries are dropped and the overrides appended in sorted key order, so the result is
// deterministic. pty.open's env parameter applies this way.
func MergeEnv(base []string, overrides map[string]string) []string {
	out := make([]string, 0, len(base)+len(overrides))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := overrides[k]; ok {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		out = append(out, k+"="+overrides[k])
	}
	return out
}

// ResolveCommand finds the executable for name the way execvp would, but with the
// child's environment (its PATH, or a default one) and working directory rather than
// this process's. Spawn uses it; the kernel can call it first to vet the binary that
// will run (proc_spawn pinning hashes this file).
func ResolveCommand(name string, env []string, cwd string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		if err := checkExecutable(p); err != nil {
			return "", err
		}
		return p, nil
	}
	pathVar, ok := lookupEnv(env, "PATH")
	if !ok {
		pathVar = defaultPath
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) && cwd != "" {
			dir = filepath.Join(cwd, dir)
		}
		p := filepath.Join(dir, name)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found in PATH: %w", name, exec.ErrNotFound)
}

func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return &os.PathError{Op: "exec", Path: p, Err: errors.New("not an executable file")}
	}
	return nil
}

// The close sequence: SIGHUP, then SIGTERM after closeHup, then SIGKILL after closeTerm
// more, then give up waiting for the reap after closeKill more.
const (
	closeHup  = 500 * time.Millisecond
	closeTerm = 2 * time.Second
	closeKill = 5 * time.Second
)
