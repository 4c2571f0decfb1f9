//go:build unix

package mcp

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollable returns in as a file the runtime's poller can wait on, when in is a pipe or socket
// opened in blocking mode (as a client's spawn hands them over). A blocking read parks its
// thread in the system call with the scheduler's P, so every request would be handed to a
// goroutine the runtime must wake another thread to run; a polled read costs no thread hop.
// Terminals and regular files are left alone, as is anything else that is not an *os.File.
func pollable(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	if !ok {
		return in
	}
	fd := int(f.Fd()) // leaves f in blocking mode; made non-blocking below
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return in
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return in
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		return in
	}
	if syscall.SetNonblock(fd, true) != nil {
		return in
	}
	return os.NewFile(uintptr(fd), f.Name()) // non-blocking: registered with the poller
}
