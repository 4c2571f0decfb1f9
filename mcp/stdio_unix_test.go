//go:build linux

package mcp

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
)

// blockingSocketPair is two connected Unix sockets in blocking mode, as a spawning client
// may hand one to the facade as both stdin and stdout.
func blockingSocketPair(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// One socket as both ends: its non-blocking flag is shared, so stdout must be polled too, or
// a write larger than the socket buffer would fail with EAGAIN instead of waiting.
func TestStdioOneSocketForBothEnds(t *testing.T) {
	t.Run("same descriptor", func(t *testing.T) {
		mine, peer := blockingSocketPair(t)
		checkStdioSocket(t, mine, mine, peer)
	})
	t.Run("duplicated descriptor", func(t *testing.T) {
		mine, peer := blockingSocketPair(t)
		fd, err := syscall.Dup(int(mine.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		dup := os.NewFile(uintptr(fd), "dup")
		defer dup.Close()
		checkStdioSocket(t, mine, dup, peer)
	})
}

func checkStdioSocket(t *testing.T, inFile, outFile, peer *os.File) {
	in, out := stdio(inFile, outFile)
	if _, ok := in.(*os.File); ok {
		t.Fatalf("stdin left as a blocking file")
	}
	if _, ok := out.(*os.File); ok {
		t.Fatalf("stdout left as a blocking file")
	}
	big := bytes.Repeat([]byte("x"), 4<<20)
	errc := make(chan error, 1)
	go func() {
		_, err := out.Write(big)
		errc <- err
	}()
	got := make([]byte, len(big))
	if _, err := io.ReadFull(peer, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("write through stdout: %v", err)
	}
	if _, err := peer.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(in, buf); err != nil || string(buf) != "ping\n" {
		t.Fatalf("read through stdin: %q, %v", buf, err)
	}
}

func TestStdioLeavesRegularFilesAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, out := stdio(f, f)
	if in != io.Reader(f) || out != io.Writer(f) {
		t.Fatalf("a regular file was replaced: %T, %T", in, out)
	}
}
