package e2e

import (
	"sort"
	"testing"
	"time"
)

// reportP50 adds the median of the samples as a custom metric.
func reportP50(b *testing.B, samples []time.Duration, unit string) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), unit)
}

// BenchmarkMCPColdStart: from spawning `shoal mcp` (no kernel running) to
// the first tools/call result, as an MCP client sees it (target < 100 ms).
func BenchmarkMCPColdStart(b *testing.B) {
	var samples []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sb := newSandbox(b)
		b.StartTimer()
		start := time.Now()
		cs := mcpClient(b, sb, nil, nil)
		res := callTool(b, cs, "shoal_exec", map[string]any{"src": "1 + 2"})
		samples = append(samples, time.Since(start))
		b.StopTimer()
		if res.IsError {
			b.Fatal(text(res))
		}
		cs.Close()
		stopKernel(b, sb.socket())
		b.StartTimer()
	}
	reportP50(b, samples, "p50-µs")
}

func benchExec(b *testing.B, src string) {
	sb := newSandbox(b)
	cs := mcpClient(b, sb, nil, nil)
	b.Cleanup(func() { stopKernel(b, sb.socket()) })
	callTool(b, cs, "shoal_exec", map[string]any{"src": src}) // warm: kernel started, session made
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res := callTool(b, cs, "shoal_exec", map[string]any{"src": src})
		samples = append(samples, time.Since(start))
		if res.IsError {
			b.Fatal(text(res))
		}
	}
	reportP50(b, samples, "p50-µs")
}

// BenchmarkMCPExecArith: shoal_exec {src:"1 + 2"} (target p50 < 0.5 ms).
func BenchmarkMCPExecArith(b *testing.B) { benchExec(b, "1 + 2") }

// BenchmarkMCPExecEcho: shoal_exec {src:"^echo hi"}, a real child process
// (target p50 < 2 ms).
func BenchmarkMCPExecEcho(b *testing.B) { benchExec(b, "^echo hi") }
