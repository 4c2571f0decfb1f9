package kernel_test

import (
	"context"
	"fmt"
	"net"
	"os"
	execpkg "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/journal"
	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

func socketKernel(b *testing.B, state string) *kerneltest.Kernel {
	ko := &kernel.Options{StateDir: state}
	return kerneltest.New(b, &kerneltest.Options{Socket: true, Cwd: b.TempDir(), Kernel: ko})
}

// BenchmarkExecRoundTrip measures one `1 + 2` exec over the Unix socket and reports p50/p99,
// with the in-memory journal and with the SQLite journal; the -task variants send timeout_ms
// as the MCP facade does, so the exec runs as a task.
func BenchmarkExecRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name  string
		state bool
		task  bool
	}{{"memjournal", false, false}, {"sqlite", true, false}, {"memjournal-task", false, true}, {"sqlite-task", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			state := ""
			if tc.state {
				state = b.TempDir()
			}
			k := socketKernel(b, state)
			src := "1 + 2"
			p := proto.ExecParams{Src: &src}
			if tc.task {
				p.TimeoutMs = ptr[int64](200)
			}
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				if _, err := k.Client.Exec(ctx, p); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkSustainedExecs runs journaled `1 + 2` execs from 4 clients on 4 sessions.
func BenchmarkSustainedExecs(b *testing.B) {
	k := socketKernel(b, b.TempDir())
	ctx := context.Background()
	clients := make([]*client.Client, 4)
	for i := range clients {
		c, err := client.Dial(ctx, k.SocketPath, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Attach(ctx, proto.SessionAttachParams{Session: "s" + strconv.Itoa(i)}); err != nil {
			b.Fatal(err)
		}
		clients[i] = c
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	per := b.N/4 + 1
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := "1 + 2"
			for range per {
				if _, err := c.Exec(ctx, proto.ExecParams{Src: &src}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(per*4)/time.Since(start).Seconds(), "execs/s")
}

// BenchmarkJournalQuery queries 100,000 journal rows through the kernel.
func BenchmarkJournalQuery(b *testing.B) {
	state := b.TempDir()
	j, err := journal.Open(filepath.Join(state, "journal.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	principal := fmt.Sprintf("uid:%d", os.Geteuid())
	for i := range 100000 {
		src := "echo " + strconv.Itoa(i)
		if i%1000 == 0 {
			src = "x " + strconv.Itoa(i)
		}
		id, err := j.Begin(ctx, journal.ExecStart{Session: "default", Principal: principal, Src: src, StartedNs: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Finish(ctx, id, journal.ExecFinish{OK: true, DurNs: 1}); err != nil {
			b.Fatal(err)
		}
	}
	j.Close()
	k := socketKernel(b, state)
	for _, tc := range []struct {
		name string
		p    proto.JournalQueryParams
	}{{"limit50", proto.JournalQueryParams{Limit: 50}}, {"head-x-limit50", proto.JournalQueryParams{Head: ptr("x"), Limit: 50}}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				rows, err := k.Client.JournalQuery(ctx, tc.p)
				if err != nil || len(rows) != 50 {
					b.Fatalf("%d rows, %v", len(rows), err)
				}
			}
		})
	}
}

// TestIdleRSS starts a child kernel, attaches once, and checks its resident size.
func TestIdleRSS(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("RSS is meaningless under -race; slow in -short")
	}
	t.Parallel()
	sock, pid := childKernel(t)
	ctx := context.Background()
	c, err := client.Dial(ctx, sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Attach(ctx, proto.SessionAttachParams{}); err != nil {
		t.Fatal(err)
	}
	src := "1 + 2"
	if _, err := c.Exec(ctx, proto.ExecParams{Src: &src}); err != nil {
		t.Fatal(err)
	}
	rss := procStatusKiB(t, pid, "VmRSS")
	t.Logf("idle kernel RSS %d KiB (includes the test binary)", rss)
	if rss > 30<<10 {
		t.Errorf("idle kernel RSS %d KiB, want < 30 MiB", rss)
	}
}

// childKernel starts a kernel in a child process (TestHelperKernel) with its own state
// directory, waits until it listens, and kills it when the test ends.
func childKernel(t *testing.T) (sock string, pid int) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "k.sock")
	cmd := execpkg.Command(os.Args[0], "-test.run=^TestHelperKernel$")
	cmd.Env = append(os.Environ(), helperSocketEnv+"="+sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			return sock, cmd.Process.Pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("child kernel never listened: %v", err)
		}
	}
}

// procStatusKiB reads a "Name: N kB" field of /proc/PID/status.
func procStatusKiB(t *testing.T, pid int, name string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skip("no /proc")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", name, pid)
	return 0
}
