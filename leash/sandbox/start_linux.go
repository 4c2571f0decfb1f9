//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"github.com/shoal-sh/shoal/leash"
	"golang.org/x/sys/unix"
)

// Start starts cmd confined by spec without re-executing Shoal, and
// returns the status to report. It is the fast alternative to [Wrap].
//
// Landlock and no_new_privs belong to a single thread, and a child
// inherits the credentials of the thread that forks it. So Start locks a
// fresh goroutine to its OS thread, restricts that thread alone, and calls
// cmd.Start from it. The goroutine then exits still locked, which makes
// the Go runtime destroy the thread; threads the runtime creates later
// come from its template thread, never from a locked one, so the rest of
// the process stays unconfined.
//
// With pinning, the binary is opened and hashed here, and the child
// executes that descriptor through /proc/self/fd. A "#!" script needs its
// descriptor to survive exec, which cannot be arranged for this one child
// only, so scripts go through the helper ([Wrap]) instead.
func (s *Sandbox) Start(cmd *exec.Cmd, spec leash.Spec) (Status, error) {
	if cmd.Err != nil {
		return Status{}, cmd.Err
	}
	if cmd.Process != nil {
		return Status{}, errors.New("sandbox: command already started")
	}
	if err := s.Check(spec); err != nil {
		return Status{}, err
	}
	st := s.Status(spec)
	eff := effective(spec, st)
	if !eff.Concrete() {
		return st, cmd.Start()
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 {
		// The forking thread dies right after the start, which would
		// deliver the signal at once.
		return Status{}, errors.New("sandbox: Start cannot be combined with Pdeathsig")
	}
	var pinned *os.File
	if eff.Pin {
		f, script, err := s.openPinned(cmd, eff)
		if err != nil {
			return Status{}, err
		}
		if script {
			f.Close()
			if _, err := s.Wrap(cmd, spec); err != nil {
				return Status{}, err
			}
			return st, cmd.Start()
		}
		pinned = f
		defer pinned.Close()
		cmd.Path = "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	}
	abi := 0
	if st.ActiveTier == TierA {
		abi = s.abi
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: this thread is confined for good and must die
		// with the goroutine.
		runtime.LockOSThread()
		if abi >= 1 {
			if err := restrictSelf(eff, abi); err != nil {
				errc <- fmt.Errorf("sandbox: landlock: %w", err)
				return
			}
		}
		errc <- cmd.Start()
	}()
	err := <-errc
	runtime.KeepAlive(pinned)
	return st, err
}

// openPinned opens cmd's binary above every descriptor number the child
// will be given, checks its pin, and reports whether it is a script.
func (s *Sandbox) openPinned(cmd *exec.Cmd, spec leash.Spec) (*os.File, bool, error) {
	t, err := openTarget(cmd.Path, true)
	if err != nil {
		return nil, false, fmt.Errorf("sandbox: %w", err)
	}
	defer t.f.Close()
	if err := checkPin(spec, cmd.Path, t.hash); err != nil {
		return nil, false, fmt.Errorf("sandbox: %w", err)
	}
	var magic [2]byte
	n, _ := unix.Pread(t.fd, magic[:], 0)
	script := n == 2 && magic == [2]byte{'#', '!'}
	// The child dup2s stdio and ExtraFiles onto 0..n-1 before exec; the
	// pinned descriptor must sit above them.
	low := 3 + len(cmd.ExtraFiles)
	fd, err := unix.FcntlInt(uintptr(t.fd), unix.F_DUPFD_CLOEXEC, low)
	if err != nil {
		return nil, false, fmt.Errorf("sandbox: %w", err)
	}
	return os.NewFile(uintptr(fd), cmd.Path), script, nil
}
