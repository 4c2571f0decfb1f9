package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// echoEnv makes the test binary a line echo (see TestMain): the cheapest possible peer process.
const echoEnv = "SHOAL_E2E_ECHO"

func echoLines(in io.Reader, out io.Writer) int {
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		if _, err := out.Write(line); err != nil {
			return 0
		}
	}
}

// BenchmarkWakeRoundTrip measures what this machine charges for waking a process: one line
// to a trivial echo child and back, sent at once after the last reply (gap-0) or after the
// sender has computed for 300 µs (gap-300us), long enough for the idle side to sleep, as
// every process of a tools/call chain does between its hops. A shoal_exec from an MCP client
// crosses four such hops (client → facade → kernel → facade → client). Compare a run pinned
// to one CPU (taskset -c 0 go test …), where a wakeup is a plain context switch.
func BenchmarkWakeRoundTrip(b *testing.B) {
	for _, gap := range []time.Duration{0, 300 * time.Microsecond} {
		b.Run(fmt.Sprintf("gap-%v", gap), func(b *testing.B) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), echoEnv+"=1")
			in, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { in.Close(); cmd.Wait() })
			r := bufio.NewReader(out)
			samples := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				for t0 := time.Now(); time.Since(t0) < gap; { // busy, as a client between calls
				}
				start := time.Now()
				if _, err := io.WriteString(in, "ping\n"); err != nil {
					b.Fatal(err)
				}
				if line, err := r.ReadString('\n'); err != nil || line != "ping\n" {
					b.Fatalf("echo %q, %v", line, err)
				}
				samples = append(samples, time.Since(start))
			}
			reportP50(b, samples, "rtt-p50-µs")
		})
	}
}
