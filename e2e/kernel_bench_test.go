package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkKernelExecIdle: exec {src:"1 + 2"} from another process straight to a kernel
// over its socket, as the MCP facade sends it, after the client has computed for 300 µs
// (gap-300µs) so the kernel is idle when each request arrives, as it is behind an MCP
// client; gap-0 sends back to back. Reports the p50 round trip and the kernel's CPU time
// per exec, every thread included (journal writer, runtime), from /proc.
func BenchmarkKernelExecIdle(b *testing.B) {
	for _, gap := range []time.Duration{0, 300 * time.Microsecond} {
		b.Run(fmt.Sprintf("gap-%v", gap), func(b *testing.B) {
			sb := newSandbox(b)
			k := sb.command(b, nil, "kernel", "--socket", sb.socket())
			k.Stderr = nil // not its "ready" line amid the results
			if err := k.Start(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { k.Process.Signal(syscall.SIGTERM); k.Wait() }) // our child: reap it
			c := dialWhenListening(b, sb.socket(), 10*time.Second)
			defer c.Close()
			rl := &rawLines{w: c, r: bufio.NewReader(c)}
			rl.call(b, "session.attach", `{"session":"default","token":null,"client":{"kind":"mcp","tty":false}}`)
			const exec = `{"src":"1 + 2","mode":"run","position":"value","timeout_ms":200}`
			rl.call(b, "exec", exec)
			samples := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime(k.Process.Pid)
			b.ResetTimer()
			for range b.N {
				for t0 := time.Now(); time.Since(t0) < gap; {
				}
				start := time.Now()
				line := rl.call(b, "exec", exec)
				samples = append(samples, time.Since(start))
				if !bytes.Contains(line, []byte(`"ref":"out:`)) {
					b.Fatalf("%s", line)
				}
			}
			b.StopTimer()
			cpu := cpuTime(k.Process.Pid) - cpu0
			reportP50(b, samples, "p50-µs")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "kernel-cpu-µs/op")
		})
	}
}
