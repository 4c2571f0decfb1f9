//go:build unix

package mcp

import (
	"io"
	"os"
	"syscall"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"golang.org/x/sys/unix"
)

// stdio prepares the facade's stdin and stdout for the protocol stream.
//
// An end that is a pipe or socket in blocking mode (as a client's spawn hands them over) is
// reopened non-blocking, so the runtime's poller waits on it: a blocking read parks its thread
// in the system call with the scheduler's P, so every request would be handed to a goroutine
// the runtime must wake another thread to run, and a client that stops reading would pin a
// thread in write. Polled ends then go through [jsonrpc.QuietIO]. Terminals and regular files
// are left alone, as is anything that is not an *os.File.
func stdio(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	fi, _ := in.(*os.File)
	fo, _ := out.(*os.File)
	// Both ends are looked at before either changes: they may be one open socket passed
	// twice, whose non-blocking flag is then set once for both.
	reopenIn, reopenOut := blockingStream(fi), blockingStream(fo)
	if reopenIn {
		fi = reopenNonblocking(fi)
	}
	if reopenOut {
		fo = reopenNonblocking(fo)
	}
	if fi != nil {
		in = quiet(fi)
	}
	if fo != nil {
		out = quiet(fo)
	}
	return in, out
}

// blockingStream reports whether f is a pipe or socket in blocking mode.
func blockingStream(f *os.File) bool {
	fd, ok := fdOf(f)
	if !ok {
		return false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return false
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK == 0
}

// fdOf is f's descriptor. Unlike f.Fd, it leaves a polled file as it is.
func fdOf(f *os.File) (fd int, ok bool) {
	if f == nil {
		return 0, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	return fd, rc.Control(func(d uintptr) { fd = int(d) }) == nil
}

// reopenNonblocking returns a new file, which the runtime registers with its poller, for a
// duplicate of f's descriptor made non-blocking (the flag belongs to the open file, so f sees
// it too); f itself if that fails. The duplicate is the new file's own, so neither file can
// close the other's descriptor, and the same file may be reopened for both ends.
func reopenNonblocking(f *os.File) *os.File {
	fd, ok := fdOf(f)
	if !ok {
		return f
	}
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return f
	}
	if syscall.SetNonblock(nfd, true) != nil {
		unix.Close(nfd)
		return f
	}
	return os.NewFile(uintptr(nfd), f.Name())
}

// quiet wraps f in [jsonrpc.QuietIO] when the poller waits on it (only such files take a
// deadline), and returns f as it is otherwise.
func quiet(f *os.File) io.ReadWriter {
	if f.SetReadDeadline(time.Time{}) != nil {
		return f
	}
	if q := jsonrpc.QuietIO(f); q != nil {
		return q
	}
	return f
}
