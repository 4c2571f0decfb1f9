package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ActivateOptions configures [Activate]. The zero value spawns os.Executable().
type ActivateOptions struct {
	// NoAutostart only connects (SHOAL_NO_AUTOSTART).
	NoAutostart bool
	// Executable is the binary to re-exec; "" means os.Executable() (never a PATH lookup).
	Executable string
	// Args are the arguments given to Executable before "--socket PATH"; nil means ["kernel"].
	Args []string
	// Argv0 is the spawned kernel's argv[0]; "" means "shoal", the multicall name that selects
	// the plain command tree whatever the executable file is called.
	Argv0 string
	// Wait bounds the polling after a spawn; 0 means 5 s.
	Wait time.Duration
	// Client configures the returned client.
	Client *Options
}

// Activate connects to the kernel at socket, starting one if none answers: it re-execs the
// executable as `kernel --socket PATH` in its own session with stdio on /dev/null (never
// waited for), then polls with an interval growing from 1 ms to 50 ms for about 5 s. Racing
// activators serialise the spawn on an exclusive flock of "<socket>.lock"; the loser of a bind
// race exits "already listening" and the winner serves both. The final connect error is the
// visible one.
func Activate(ctx context.Context, socket string, opts *ActivateOptions) (*Client, error) {
	var o ActivateOptions
	if opts != nil {
		o = *opts
	}
	if c, err := Dial(ctx, socket, o.Client); err == nil || o.NoAutostart {
		return c, err
	}
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return nil, fmt.Errorf("create socket dir: %w", err)
	}
	unlock, err := lockFile(ctx, socket+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another activator may have started it while we waited for the lock.
	if c, err := Dial(ctx, socket, o.Client); err == nil {
		return c, nil
	}
	spawn(o, socket) // spawn errors are not reported: the connect below says what matters
	wait := o.Wait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	deadline := time.Now().Add(wait)
	interval := time.Millisecond
	for {
		c, err := Dial(ctx, socket, o.Client)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
		interval = min(interval*2, 50*time.Millisecond)
	}
}

func spawn(o ActivateOptions, socket string) {
	exe := o.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return
		}
	}
	args := o.Args
	if args == nil {
		args = []string{"kernel"}
	}
	cmd := exec.Command(exe, append(append([]string(nil), args...), "--socket", socket)...)
	cmd.Args[0] = o.Argv0
	if cmd.Args[0] == "" {
		cmd.Args[0] = "shoal"
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Nil stdio means /dev/null for exec.Cmd.
	if err := cmd.Start(); err != nil {
		return
	}
	// Not waited for in the caller: the kernel outlives it. A background Wait only reaps the
	// child if it dies while we still run, so no zombie lingers.
	go func() { _ = cmd.Wait() }()
}

// lockFile takes an exclusive flock, polling so ctx can interrupt the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
