package jsonrpc

import (
	"io"
	"syscall"
	"unsafe"
)

// QuietIO returns a stream over c whose read(2) and write(2) calls bypass the Go scheduler's
// system-call bookkeeping, or nil when c is not a non-blocking descriptor in the runtime poller
// (a net.Conn, or an *os.File opened non-blocking). Waiting still happens in the poller, as
// usual; only the calls themselves differ, and they cannot block.
//
// Why: a system call made the usual way wakes the runtime's monitor thread (sysmon) when it
// sleeps, and sysmon then wakes every 20 µs for as long as the process stays busy. A process
// that idles between requests, as the MCP facade does behind an agent, pays that on every
// request; on the 2-vCPU CI VM, where each wakeup is a costly context switch, sysmon was 31%
// of the facade's CPU time (docs/architecture.md). Entering the syscall state is only needed
// for calls that may block, and these never do.
func QuietIO(c any) io.ReadWriteCloser {
	sc, ok := c.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return nil
	}
	cl, ok := c.(io.Closer)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) {
		fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = e == 0 && fl&syscall.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil
	}
	return &quietIO{rc: rc, c: cl}
}

type quietIO struct {
	rc syscall.RawConn
	c  io.Closer
}

func (q *quietIO) Read(p []byte) (n int, err error) {
	if len(p) == 0 {
		return 0, nil
	}
	werr := q.rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case 0:
				n = int(m)
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller, then call again
			default:
				err = e
			}
			return true
		}
	})
	switch {
	case werr != nil:
		return 0, werr // closed, or a deadline passed
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (q *quietIO) Write(p []byte) (n int, err error) {
	werr := q.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the peer is behind: wait in the poller for room
			default:
				err = e
				return true
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	return n, err
}

func (q *quietIO) Close() error { return q.c.Close() }
