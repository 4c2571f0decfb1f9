package jsonrpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// patternReader yields n bytes of filler then tail, without ever holding the filler in memory.
type patternReader struct {
	n    int64
	tail []byte
}

// filler is copied rather than looped over byte by byte, which is slow under -race.
var filler = bytes.Repeat([]byte{'a'}, 64<<10)

func (r *patternReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := min(int64(len(p)), r.n, int64(len(filler)))
		copy(p, filler[:k])
		r.n -= k
		return int(k), nil
	}
	if len(r.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.tail)
	r.tail = r.tail[k:]
	return k, nil
}

// allocDuring reports the bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 64 MiB line is refused after the cap, skipped without being buffered, and the next frame
// is read normally.
func TestFrameReaderSkipsHugeLineWithBoundedMemory(t *testing.T) {
	const capBytes = 1 << 20
	src := &patternReader{n: 64 << 20, tail: []byte("\n{\"ok\":1}\n")}
	var first, second error
	var next []byte
	alloc := allocDuring(func() {
		fr := NewFrameReader(src, capBytes)
		_, first = fr.ReadFrame()
		next, second = fr.ReadFrame()
		next = bytes.Clone(next)
	})
	var tooBig *FrameTooLargeError
	if !errors.As(first, &tooBig) || tooBig.Max != capBytes || first.Error() != "frame exceeds 1 MiB" {
		t.Fatalf("first frame: %v", first)
	}
	if second != nil || string(next) != `{"ok":1}` {
		t.Fatalf("frame after the huge line: %q, %v", next, second)
	}
	if src.n != 0 {
		t.Fatalf("huge line not consumed: %d bytes left", src.n)
	}
	// The cap plus one read chunk plus slack; far below the 64 MiB streamed through.
	if alloc > 3*capBytes {
		t.Fatalf("allocated %d bytes reading a 64 MiB line with a 1 MiB cap", alloc)
	}
}

// Through a whole connection at the default 16 MiB cap: a 1 GiB line gets the spec's answer,
// the connection stops reading right after the cap, and memory stays near the cap.
func TestConnRefusesGiantFrameWithBoundedMemory(t *testing.T) {
	src := &patternReader{n: 1 << 30, tail: []byte("\n")}
	var out bytes.Buffer
	alloc := allocDuring(func() {
		c := NewConn(src, &out, &Options{Logger: quietLogger()})
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		err := c.Run(ctx)
		var tooBig *FrameTooLargeError
		if !errors.As(err, &tooBig) {
			t.Errorf("Run returned %v, want *FrameTooLargeError", err)
		}
	})
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"frame exceeds 16 MiB"}}` + "\n"
	if out.String() != want {
		t.Fatalf("reply %q, want %q", out.String(), want)
	}
	if read := int64(1<<30) - src.n; read > DefaultMaxFrame+2*readChunk {
		t.Fatalf("read %d bytes of a refused frame; should stop at the cap", read)
	}
	// The frame buffer doubles up to the cap, so the total ever allocated is at most about
	// twice the cap (and at most the cap is live at once), whatever the line's length.
	if alloc > 2*DefaultMaxFrame+4<<20 {
		t.Fatalf("allocated %d bytes for a refused 1 GiB frame, cap is %d", alloc, DefaultMaxFrame)
	}
}

func TestFrameReaderFinalLineWithoutNewline(t *testing.T) {
	t.Parallel()
	fr := NewFrameReader(strings.NewReader("a\r\n\n  \nb"), 0)
	var got []string
	for {
		f, err := fr.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(f))
	}
	if strings.Join(got, "|") != "a|b" {
		t.Fatalf("frames %q", got)
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\r\n"), 8)
	f.Add([]byte(strings.Repeat("x", 100)+"\nyy\n"), 16)
	f.Add([]byte("\n\n\n"), 1)
	f.Add([]byte("abc"), 3)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		max = max%200 + 1
		if max <= 0 {
			max += 200
		}
		fr := NewFrameReader(bytes.NewReader(data), max)
		total := 0
		for range len(data) + 2 {
			frame, err := fr.ReadFrame()
			var tooBig *FrameTooLargeError
			switch {
			case errors.Is(err, io.EOF):
				return
			case errors.As(err, &tooBig):
				continue
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if len(frame) > max {
				t.Fatalf("frame of %d bytes exceeds cap %d", len(frame), max)
			}
			if bytes.IndexByte(frame, '\n') >= 0 {
				t.Fatalf("frame contains a newline: %q", frame)
			}
			total += len(frame)
			if total > len(data) {
				t.Fatalf("frames longer than the input")
			}
		}
		t.Fatalf("reader did not reach EOF")
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, derr := decode(line)
		if derr != nil {
			if msg.req != nil || msg.resp != nil {
				t.Fatal("error with a message")
			}
			// Whatever went wrong, the reply must be one valid JSON frame.
			b, err := appendResponse(nil, derr.id, nil, derr.err)
			if err != nil || !isJSON(b) {
				t.Fatalf("error reply %q not valid JSON: %v", b, err)
			}
			return
		}
		if (msg.req == nil) == (msg.resp == nil) {
			t.Fatalf("decoded to %+v", msg)
		}
		if msg.req != nil {
			if msg.req.ID != nil && !validID(msg.req.ID) {
				t.Fatalf("accepted id %q", msg.req.ID)
			}
			if b, _ := appendResponse(nil, msg.req.ID, []byte("1"), nil); !isJSON(b) {
				t.Fatalf("echoing id %q gives invalid JSON %q", msg.req.ID, b)
			}
			if b := appendRequest(nil, msg.req.ID, msg.req.Method, msg.req.Params); !isJSON(b) {
				t.Fatalf("re-encoding request gives invalid JSON %q", b)
			}
		}
	})
}

func isJSON(b []byte) bool {
	_, derr := decode(b)
	return derr == nil || derr.err.Code != CodeParseError
}

// BenchmarkRoundTripUnixSocket measures one Call/response over a real Unix socket pair, with
// the server in in-order mode as the kernel runs it. p50 and p99 are reported per call.
func BenchmarkRoundTripUnixSocket(b *testing.B) {
	sa, sb := socketPair(b)
	r := NewRouter()
	type p struct{ Src string }
	r.Register("exec", Typed(func(ctx context.Context, req *Request, params p) (map[string]any, error) {
		return map[string]any{"ref": "out:1", "value": map[string]any{"$": "int", "v": 3}, "render": "3"}, nil
	}))
	server := NewConn(sa, sa, &Options{Handler: r, Logger: quietLogger()})
	startConn(b, server)
	client := NewConn(sb, sb, &Options{Logger: quietLogger()})
	startConn(b, client)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		var res struct{ Ref string }
		if err := client.Call(ctx, "exec", p{Src: "1 + 2"}, &res); err != nil || res.Ref != "out:1" {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	if len(lat) > 0 {
		sortDurations(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

func sortDurations(d []time.Duration) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}
