package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestQuietIORoundTripAndBackpressure(t *testing.T) {
	a, b := socketPair(t)
	qa, qb := QuietIO(a), QuietIO(b)
	if qa == nil || qb == nil {
		t.Fatal("QuietIO refused a polled socket")
	}
	// Far more than the socket buffers hold: the writer must wait for room (EAGAIN) and the
	// reader for data, both in the poller.
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	errc := make(chan error, 1)
	go func() {
		n, err := qa.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		errc <- err
		qa.Close()
	}()
	got, err := io.ReadAll(qb)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want %d identical ones", len(got), len(want))
	}
	if n, err := qb.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read after EOF: %d, %v", n, err)
	}
}

func TestQuietIOCloseWakesReader(t *testing.T) {
	a, _ := socketPair(t)
	q := QuietIO(a)
	errc := make(chan error, 1)
	go func() {
		_, err := q.Read(make([]byte, 16))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it wait in the poller
	q.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("read on a closed stream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake the pending Read")
	}
	if _, err := q.Write([]byte("x")); err == nil {
		t.Fatal("write on a closed stream succeeded")
	}
}

func TestQuietIOBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe() // both ends polled
	if err != nil {
		t.Fatal(err)
	}
	qw := QuietIO(w)
	if qw == nil {
		t.Fatal("QuietIO refused a polled pipe")
	}
	r.Close()
	// EPIPE comes back as an error; the process is not killed by SIGPIPE.
	if _, err := qw.Write([]byte("x")); !errors.Is(err, unix.EPIPE) {
		t.Fatalf("write to a pipe without reader: %v", err)
	}
	qw.Close()
}

func TestQuietIORefusesWhatItCannotServe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, c := range map[string]any{
		"regular file (blocking, not polled)": f,
		"no descriptor":                       &bytes.Buffer{},
		"nil":                                 nil,
	} {
		if QuietIO(c) != nil {
			t.Errorf("%s: QuietIO accepted it", name)
		}
	}
}
