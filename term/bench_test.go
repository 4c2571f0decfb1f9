package term

import (
	"context"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func spawnB(b *testing.B, opts SpawnOptions) *PTY {
	b.Helper()
	if opts.Env == nil {
		opts.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	}
	p, err := Spawn(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), long)
		defer cancel()
		_, _ = p.Close(ctx)
	})
	return p
}

// fullScreen starts a program that fills an 80x24 screen with 80-column lines.
func fullScreen(b *testing.B) *PTY {
	p := spawnB(b, SpawnOptions{Argv: []string{"sh", "-c",
		`i=0; while [ $i -lt 23 ]; do printf '%080d\n' $i; i=$((i+1)); done; printf 'end'; exec sleep 1000`}})
	s, err := p.Read(b.Context(), ReadOptions{UntilText: "end", WaitMs: int(long / time.Millisecond)})
	if err != nil || !s.Matched {
		b.Fatalf("screen never filled: %v %q", err, s.Lines)
	}
	return p
}

func reportP50(b *testing.B, samples []time.Duration) {
	slices.Sort(samples)
	if len(samples) > 0 {
		b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(samples[len(samples)*99/100].Nanoseconds()), "p99-ns")
	}
}

// BenchmarkRead measures pty.read of an unchanged full 80x24 screen (the cached path).
func BenchmarkRead(b *testing.B) {
	p := fullScreen(b)
	ctx := b.Context()
	var samples []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := p.Read(ctx, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
	}
	reportP50(b, samples)
}

// BenchmarkReadChanged measures pty.read when the screen changed since the last read,
// so the emulator is asked for a fresh snapshot each time.
func BenchmarkReadChanged(b *testing.B) {
	p := fullScreen(b)
	ctx := b.Context()
	var samples []time.Duration
	for b.Loop() {
		p.mu.Lock()
		p.dirty = true // what the reader goroutine does after each chunk of output
		p.mu.Unlock()
		t0 := time.Now()
		if _, err := p.Read(ctx, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
	}
	reportP50(b, samples)
}

// BenchmarkPTYMemory reports the Go heap held per open PTY running sleep.
func BenchmarkPTYMemory(b *testing.B) {
	const n = 16
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := NewManager(nil)
		for i := range n {
			p, err := m.Open(b.Context(), Owner{Principal: strconv.Itoa(i)}, SpawnOptions{
				Argv: []string{"sleep", "1000"}, Env: []string{"PATH=/usr/bin:/bin"}})
			if err != nil {
				b.Fatal(err)
			}
			// Make sure each emulator has parsed output, as a live one would.
			_, _ = p.Read(b.Context(), ReadOptions{})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n/(1<<20), "MiB/pty")
		m.CloseAll(b.Context())
	}
}

// BenchmarkSeqVsTmux times how long the last line of `seq 1 100000` takes to reach the
// screen, against tmux doing the same in the same run.
func BenchmarkSeqVsTmux(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux not installed")
	}
	var ours, theirs time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		p, err := Spawn(b.Context(), SpawnOptions{
			Argv: []string{"sh", "-c", "seq 1 100000; sleep 5"}, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			b.Fatal(err)
		}
		s, err := p.Read(b.Context(), ReadOptions{UntilText: "100000", WaitMs: int(MaxWait / time.Millisecond)})
		ours += time.Since(t0)
		if err != nil || !s.Matched {
			b.Fatalf("last line never appeared: %v", err)
		}
		_, _ = p.Close(b.Context())

		theirs += tmuxSeq(b, "shoal-bench-"+strconv.Itoa(i))
	}
	n := float64(b.N)
	b.ReportMetric(float64(ours.Milliseconds())/n, "shoal-ms")
	b.ReportMetric(float64(theirs.Milliseconds())/n, "tmux-ms")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
}

func tmuxSeq(b *testing.B, sock string) time.Duration {
	defer exec.Command("tmux", "-L", sock, "kill-server").Run()
	t0 := time.Now()
	out, err := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d",
		"-x", "80", "-y", "24", "seq 1 100000; sleep 5").CombinedOutput()
	if err != nil {
		b.Fatalf("tmux: %v %s", err, out)
	}
	for deadline := time.Now().Add(long); time.Now().Before(deadline); {
		out, err := exec.Command("tmux", "-L", sock, "capture-pane", "-p").Output()
		if err == nil && strings.Contains(string(out), "100000") {
			return time.Since(t0)
		}
		// tmux offers no way to wait for pane content; polling is the only option.
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatal("tmux never showed the last line")
	return 0
}
