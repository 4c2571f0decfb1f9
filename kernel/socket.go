package kernel

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrAlreadyListening is returned by [Listen] when a live kernel owns the socket.
var ErrAlreadyListening = errors.New("kernel already listening")

// Listen prepares the socket path (AGENT-SURFACE §1.2) and binds it: the parent directory is
// created and chmod 0700 unless it pre-existed owned by someone else; an existing path with a
// live listener fails with [ErrAlreadyListening]; a stale socket owned by euid is unlinked;
// anything else is refused. The socket is bound under umask 0177, so it is born 0600 with no
// window in which others could connect.
func Listen(path string, euid int) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create socket dir: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("chmod socket dir: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("stat socket dir: %w", err)
	default:
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == euid {
			if err := os.Chmod(dir, 0o700); err != nil {
				return nil, fmt.Errorf("chmod socket dir: %w", err)
			}
		}
	}
	if err := clearStale(path, euid); err != nil {
		return nil, err
	}
	old := unix.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	// We unlink the path ourselves on shutdown, after checking it is still ours.
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// clearStale removes a dead socket of ours at path.
func clearStale(path string, euid int) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat socket: %w", err)
	}
	if fi.Mode().Type() != os.ModeSocket {
		return fmt.Errorf("refusing to remove unowned non-socket path %s", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("%s: %w", path, ErrAlreadyListening)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != euid {
		return fmt.Errorf("refusing to remove unowned non-socket path %s", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// peerUID returns the uid of the process at the other end of a Unix connection.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}

// removeSocket unlinks path if it is still the socket we bound (same inode).
func removeSocket(path string, ino uint64) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Ino == ino {
		_ = os.Remove(path) // best effort at exit; a leftover stale socket is cleared by the next start
	}
}

func inode(path string) uint64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
