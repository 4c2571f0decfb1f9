package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame is the frame cap used when [Options.MaxFrame] is zero: 16 MiB.
const DefaultMaxFrame = 16 << 20

// readChunk is the bufio buffer size; a frame is assembled from chunks of at most this size so
// that the cap is checked before each append, never after.
const readChunk = 64 << 10

// FrameTooLargeError reports a line longer than the reader's cap. The reader has not buffered
// more than Max bytes of it.
type FrameTooLargeError struct {
	Max int
}

func (e *FrameTooLargeError) Error() string { return "frame exceeds " + sizeString(e.Max) }

// sizeString renders a cap the way the spec words it ("16 MiB").
func sizeString(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// FrameReader splits a stream into newline-terminated frames of at most a fixed size. Memory
// stays bounded by the cap plus one read chunk whatever the input: an oversize line is refused
// as soon as it crosses the cap, and the next ReadFrame skips the rest of it without keeping it.
type FrameReader struct {
	r        *bufio.Reader
	max      int
	buf      []byte
	skipping bool // discarding the tail of an oversize line
}

// NewFrameReader reads frames of at most max bytes (excluding the newline); max <= 0 means
// [DefaultMaxFrame].
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &FrameReader{r: bufio.NewReaderSize(r, readChunk), max: max}
}

// ReadFrame returns the next non-blank line without its "\n" (or "\r\n"). The slice is only
// valid until the next call. A final line without a newline is returned before io.EOF. A line
// longer than the cap yields *FrameTooLargeError; calling ReadFrame again resumes after it.
func (f *FrameReader) ReadFrame() ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			// Blank lines (keep-alives, a stray "\r\n") are not frames; answering them with
			// parse errors would only confuse hand-typed sessions.
			continue
		}
		return line, nil
	}
}

func (f *FrameReader) readLine() ([]byte, error) {
	if f.skipping {
		if err := f.skipLine(); err != nil {
			return nil, err
		}
	}
	f.buf = f.buf[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if len(f.buf)+len(chunk) > f.max {
			f.buf = f.buf[:0]
			f.skipping = !complete
			return nil, &FrameTooLargeError{Max: f.max}
		}
		f.buf = f.grow(f.buf, len(chunk))
		f.buf = append(f.buf, chunk...)
		switch {
		case complete:
			return bytes.TrimSuffix(f.buf, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(f.buf) > 0:
			return bytes.TrimSuffix(f.buf, []byte("\r")), nil
		default:
			return nil, err
		}
	}
}

// grow makes room for n more bytes without ever reserving beyond the cap, so a line just under
// the cap costs at most the cap (append's doubling could reserve twice that).
func (f *FrameReader) grow(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := max(2*cap(b), need, 4096)
	c = min(c, f.max)
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// skipLine discards input up to and including the next newline.
func (f *FrameReader) skipLine() error {
	for {
		_, err := f.r.ReadSlice('\n')
		switch {
		case err == nil:
			f.skipping = false
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return err
		}
	}
}
