//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// target is the executable, opened once so that the bytes hashed are the
// bytes executed.
type target struct {
	f    *os.File // held so its finalizer cannot close fd before exec
	fd   int
	path string
	hash string
}

// openTarget opens path and, when hash is set, hashes it through the
// descriptor. Hashing reads the whole binary, so it is done only for
// pinned specs.
func openTarget(path string, hash bool) (*target, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	t := &target{f: f, fd: fd, path: path}
	if hash {
		// SectionReader uses pread, leaving the descriptor's offset alone.
		h, err := hashReader(io.NewSectionReader(f, 0, 1<<62))
		if err != nil {
			return nil, fmt.Errorf("hash %s: %w", path, err)
		}
		t.hash = h
	}
	var magic [2]byte
	if n, _ := unix.Pread(fd, magic[:], 0); n == 2 && magic == [2]byte{'#', '!'} {
		// A script's interpreter reopens it as /dev/fd/N, so the
		// descriptor must survive exec.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
			return nil, fmt.Errorf("keep %s open: %w", path, err)
		}
	}
	return t, nil
}

// exec replaces the process with the opened file. The /proc/self/fd link
// resolves to the open file itself, not to a name that could be swapped;
// without /proc, execveat(fd, "", AT_EMPTY_PATH) does the same.
func (t *target) exec(argv, env []string) error {
	err := syscall.Exec("/proc/self/fd/"+strconv.Itoa(t.fd), argv, env)
	if err == syscall.ENOENT {
		err = execveat(t.fd, argv, env)
	}
	runtime.KeepAlive(t.f)
	return fmt.Errorf("exec %s: %w", t.path, err)
}

func execveat(fd int, argv, env []string) error {
	empty, err := unix.BytePtrFromString("")
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	_, _, errno := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
	return errno
}
