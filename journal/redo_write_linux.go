package journal

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// quietWriteMax bounds the appends made as raw system calls (see appendRedo).
const quietWriteMax = 64 << 10

// appendRedo appends b to the redo log. A small append is made as a raw write(2): a system
// call made the usual Go way wakes the runtime's monitor thread (sysmon), which then wakes
// every 20 µs while the process is busy, and this write was the one call on a quick exec's
// path that still woke it (the kernel's sockets use jsonrpc.QuietIO). A raw call keeps the P
// while it runs, which a page-cache append of a few KiB makes harmless; with a single P, or a
// large record, the usual call lets other goroutines run should the write block (dirty-page
// throttling, say).
func appendRedo(f *os.File, fd uintptr, b []byte) error {
	if len(b) > quietWriteMax || runtime.GOMAXPROCS(0) < 2 {
		_, err := f.Write(b)
		return err
	}
	for len(b) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			b = b[n:]
		case syscall.EINTR:
		default:
			return &os.PathError{Op: "write", Path: f.Name(), Err: e}
		}
	}
	return nil
}
