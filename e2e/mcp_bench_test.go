package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	cs := mcpClient(b, sb, strings.Fields(os.Getenv("BENCH_MCP_ENV")), nil)
	b.Cleanup(func() { stopKernel(b, sb.socket()) })
	timeCalls(b, cs, src, 0)
}

// timeCalls reports the p50 of b.N shoal_exec calls of src, each after a pause, once one
// warming call has started the kernel and made the session. Every result must be a value
// with its text and its resource link.
func timeCalls(b *testing.B, cs *mcp.ClientSession, src string, pause time.Duration) {
	args := map[string]any{"src": src}
	callTool(b, cs, "shoal_exec", args)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		time.Sleep(pause)
		start := time.Now()
		res := callTool(b, cs, "shoal_exec", args)
		samples = append(samples, time.Since(start))
		if res.IsError || len(res.Content) != 2 {
			b.Fatalf("result %+v: %s", res, text(res))
		}
	}
	reportP50(b, samples, "p50-µs")
}

// BenchmarkMCPExecArith: shoal_exec {src:"1 + 2"} (target p50 < 0.5 ms).
func BenchmarkMCPExecArith(b *testing.B) { benchExec(b, "1 + 2") }

// BenchmarkMCPExecEcho: shoal_exec {src:"^echo hi"} (target p50 < 2 ms). The issue calls it a
// real child process, but by LANGUAGE.md §9.1 `^` skips only value shadows and adapters, so
// `^echo` is the structured builtin echo: see BenchmarkMCPExecSpawn for the child process.
func BenchmarkMCPExecEcho(b *testing.B) { benchExec(b, "^echo hi") }

// BenchmarkMCPExecSpawn: shoal_exec {src:`run("echo", "hi")`}, which always reaches the
// external echo (§9.1): the fork, exec and wait of a real child on every call, the case the
// issue's 2 ms target is meant for.
func BenchmarkMCPExecSpawn(b *testing.B) { benchExec(b, `run("echo", "hi")`) }

// BenchmarkSpawnFloor: what the same child costs with nothing around it, from this process:
// os/exec runs echo hi and collects its output. BenchmarkMCPExecSpawn minus this is the cost
// of the MCP client, the facade and the kernel around a spawn.
func BenchmarkSpawnFloor(b *testing.B) {
	samples := make([]time.Duration, 0, b.N)
	for range b.N {
		start := time.Now()
		out, err := exec.Command("echo", "hi").Output()
		samples = append(samples, time.Since(start))
		if err != nil || string(out) != "hi\n" {
			b.Fatalf("echo: %q, %v", out, err)
		}
	}
	reportP50(b, samples, "p50-µs")
}

// rawLines is a minimal line-delimited JSON-RPC peer, to measure a hop without
// any client library in the way.
type rawLines struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func (c *rawLines) call(b *testing.B, method, params string) []byte {
	c.id++
	fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(line, []byte(`"id":`)) && !bytes.Contains(line, []byte(`"method":`)) {
			return line
		}
	}
}

func benchRaw(b *testing.B, c *rawLines, method, params string) {
	c.call(b, method, params) // warm
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		line := c.call(b, method, params)
		samples = append(samples, time.Since(start))
		if bytes.Contains(line, []byte(`"error"`)) || bytes.Contains(line, []byte(`"isError":true`)) {
			b.Fatalf("%s", line)
		}
	}
	reportP50(b, samples, "p50-µs")
}

// BenchmarkMCPExecArithRaw: the same call as BenchmarkMCPExecArith from a raw
// JSON-RPC stdio client (no go-sdk), so the client library's share shows.
func BenchmarkMCPExecArithRaw(b *testing.B) {
	sb := newSandbox(b)
	cmd := sb.command(b, strings.Fields(os.Getenv("BENCH_MCP_ENV")), "mcp")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait(); stopKernel(b, sb.socket()) })
	c := &rawLines{w: in, r: bufio.NewReader(out)}
	c.call(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.call(b, "tools/call", `{"name":"shoal_exec","arguments":{"src":"1"}}`) // starts the kernel
	kpid, err := kernelPid(sb.socket())
	if err != nil {
		b.Fatal(err)
	}
	f0, k0 := cpuTime(cmd.Process.Pid), cpuTime(kpid)
	benchRaw(b, c, "tools/call", `{"name":"shoal_exec","arguments":{"src":"1 + 2"}}`)
	b.ReportMetric(float64((cpuTime(cmd.Process.Pid)-f0).Microseconds())/float64(b.N), "facade-cpu-µs/op")
	b.ReportMetric(float64((cpuTime(kpid)-k0).Microseconds())/float64(b.N), "kernel-cpu-µs/op")
}

// BenchmarkKernelExecArithRaw: the kernel hop alone, as the facade makes it
// (exec with timeout_ms 200 over the socket), from a raw client.
func BenchmarkKernelExecArithRaw(b *testing.B) {
	for _, tm := range []string{"", `,"timeout_ms":200`} {
		name := "sync"
		if tm != "" {
			name = "timeout_ms"
		}
		b.Run(name, func(b *testing.B) {
			sb := newSandbox(b)
			cs := mcpClient(b, sb, nil, nil)
			callTool(b, cs, "shoal_exec", map[string]any{"src": "1"}) // starts the kernel
			b.Cleanup(func() { stopKernel(b, sb.socket()) })
			conn, err := net.Dial("unix", sb.socket())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			c := &rawLines{w: conn, r: bufio.NewReader(conn)}
			c.call(b, "session.attach", `{"session":"default"}`)
			benchRaw(b, c, "exec", `{"src":"1 + 2","mode":"run","position":"value"`+tm+`}`)
		})
	}
}

// cpuTime is a process's user+system CPU time from /proc (Linux; 0 elsewhere).
func cpuTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * (time.Second / 100) // USER_HZ
}
