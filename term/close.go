package term

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reap waits for the child, records how it ended and wakes every waiter.
func (p *PTY) reap() {
	// Wait's error only restates the exit status, which ProcessState carries.
	_ = p.cmd.Wait()
	st := exitStatusOf(p.cmd.ProcessState)
	t := time.NewTimer(exitSettle)
	select {
	case <-p.readerDone:
	case <-t.C:
		// A grandchild still holds the terminal open; report the exit anyway.
	}
	t.Stop()
	p.mu.Lock()
	p.exit = st
	p.broadcastLocked()
	p.mu.Unlock()
	close(p.exited)
}

func exitStatusOf(ps *os.ProcessState) *ExitStatus {
	if ps == nil {
		return &ExitStatus{}
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		code := ps.ExitCode()
		return &ExitStatus{Status: &code}
	}
	switch {
	case ws.Signaled():
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = ws.Signal().String()
		}
		return &ExitStatus{Signal: &name}
	default:
		code := ws.ExitStatus()
		return &ExitStatus{Status: &code}
	}
}

// Close ends the PTY: it stops accepting calls, then signals the child's process group
// with SIGHUP, SIGTERM 500 ms later and SIGKILL 2 s after that, stopping as soon as the
// child is reaped, and returns its exit status. Processes left in the group after the
// child exits are killed too. It does not hang on a child that ignores SIGHUP and
// SIGTERM; it returns an error only if the child survives SIGKILL for 5 s or ctx ends
// first (the PTY is closed regardless). Later calls return the first call's result.
// Programs that left the group with setsid(2) are out of its reach.
func (p *PTY) Close(ctx context.Context) (*ExitStatus, error) {
	p.closeOnce.Do(func() { p.closeErr = p.terminate(ctx) })
	p.mu.Lock()
	st := p.exit
	p.mu.Unlock()
	return st, p.closeErr
}

func (p *PTY) terminate(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	p.broadcastLocked()
	p.mu.Unlock()

	var err error
	steps := []struct {
		sig  unix.Signal
		wait time.Duration
	}{
		{unix.SIGHUP, closeHup},
		{unix.SIGTERM, closeTerm},
		{unix.SIGKILL, closeKill},
	}
	for _, s := range steps {
		if p.waitExit(ctx, 0) {
			break
		}
		p.signalGroup(s.sig)
		if !p.waitExit(ctx, s.wait) {
			if ctx.Err() != nil {
				// Out of time for the polite way: never leave the group running.
				p.signalGroup(unix.SIGKILL)
				err = ctx.Err()
				break
			}
			continue
		}
		break
	}
	if err == nil && !p.waitExit(ctx, 0) {
		err = errors.New("close pty: child survived SIGKILL")
	}
	if err == nil {
		// The leader is gone; background jobs it left in its group go too. Its pid
		// is only reused after wrap-around, so the group id is still ours.
		_ = unix.Kill(-p.pid, unix.SIGKILL)
	}

	// Closing the master wakes the reader (the descriptor is non-blocking and in the
	// poller), which ends output; then the reply stream can end as well.
	_ = p.ptmx.Close()
	t := time.NewTimer(time.Second)
	select {
	case <-p.readerDone:
	case <-t.C:
	}
	t.Stop()
	p.mu.Lock()
	p.emu.CloseReplies()
	p.mu.Unlock()
	close(p.stop)
	return err
}

// signalGroup signals the child's process group, and continues it so that a stopped
// group sees the signal. ESRCH (already gone) is expected and ignored.
func (p *PTY) signalGroup(sig unix.Signal) {
	_ = unix.Kill(-p.pid, sig)
	if sig != unix.SIGKILL {
		_ = unix.Kill(-p.pid, unix.SIGCONT)
	}
}

// waitExit reports whether the child is reaped within d (0: right now) or before ctx ends.
func (p *PTY) waitExit(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
