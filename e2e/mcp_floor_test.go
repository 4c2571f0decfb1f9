package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floorEnv makes the test binary a canned MCP server (see TestMain): it answers initialize
// and tools/call with fixed replies of the shape `shoal mcp` sends, doing no other work. The
// same go-sdk client against it measures what a tools/call costs before any of Shoal runs:
// the client library, two pipe hops and one JSON decode/encode on each side.
const floorEnv = "SHOAL_E2E_MCP_FLOOR"

// relayEnv makes the canned server a relay as well (see TestMain): each tools/call goes as one
// line over the Unix socket named by the variable to a line echo (echoSocketEnv), and is
// answered once that line comes back. That is the shape §1.5 gives `shoal mcp`, a facade
// process in front of a kernel process, with neither doing any work: the floor of the design.
const relayEnv = "SHOAL_E2E_MCP_RELAY"

// echoSocketEnv makes the test binary a line echo listening on the named Unix socket.
const echoSocketEnv = "SHOAL_E2E_ECHO_SOCKET"

// echoSpawnEnv makes that echo run `echo hi` (os/exec, output collected) before it answers
// each line: the floor of a shoal_exec that spawns a child.
const echoSpawnEnv = "SHOAL_E2E_ECHO_SPAWN"

const floorResult = `{"content":[{"type":"text","text":"3"},{"type":"resource_link","uri":"shoal://out/1","name":"out:1","mimeType":"application/json"}],"structuredContent":{"ref":"out:1","uri":"shoal://out/1","value":{"$":"int","v":3},"render":"3","elapsed_ms":0},"isError":false}`

func floorServer(in io.Reader, out io.Writer, relay string) int {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	var back net.Conn
	var backR *bufio.Reader
	if relay != "" {
		c, err := net.Dial("unix", relay)
		if err != nil {
			return 1
		}
		back, backR = c, bufio.NewReader(c)
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"floor","version":"1"}}`
		case "tools/call":
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if json.Unmarshal(req.Params, &p) != nil {
				continue
			}
			if back != nil {
				if _, err := back.Write(line); err != nil {
					return 1
				}
				if _, err := backR.ReadBytes('\n'); err != nil {
					return 1
				}
			}
			result = floorResult
		default:
			result = `{}`
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + "}\n")
		w.Flush()
	}
}

// echoSocket serves line echo on a Unix socket, one connection at a time.
func echoSocket(path string) int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return 1
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		if os.Getenv(echoSpawnEnv) != "" {
			echoLines(spawnFirst{c}, c)
		} else {
			echoLines(c, c)
		}
		c.Close()
	}
}

// spawnFirst runs `echo hi` whenever a read returns data, before handing the data on.
type spawnFirst struct{ r io.Reader }

func (s spawnFirst) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		if out, err := exec.Command("echo", "hi").Output(); err != nil || string(out) != "hi\n" {
			return 0, fmt.Errorf("echo: %q, %v", out, err)
		}
	}
	return n, err
}

// floorClient connects the go-sdk client to the canned server (this binary, see TestMain);
// with relay, the server relays each tools/call through an echo process on a Unix socket,
// started with echoEnv added to its environment.
func floorClient(tb testing.TB, relay bool, echoEnv ...string) *mcp.ClientSession {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorEnv+"=1")
	if relay {
		dir, err := os.MkdirTemp("", "shlfloor")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(dir) })
		sock := filepath.Join(dir, "echo.sock")
		echo := exec.Command(os.Args[0])
		echo.Env = append(append(os.Environ(), echoSocketEnv+"="+sock), echoEnv...)
		if err := echo.Start(); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { echo.Process.Kill(); echo.Wait() })
		dialWhenListening(tb, sock, 5*time.Second).Close() // the echo serves one connection at a time
		cmd.Env = append(cmd.Env, relayEnv+"="+sock)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	cs, err := c.Connect(tb.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkMCPClientFloor: the go-sdk client's tools/call against the canned server, the
// floor under BenchmarkMCPExecArith measured the same way (run them together to compare).
func BenchmarkMCPClientFloor(b *testing.B) { benchFloor(b, false) }

// BenchmarkMCPRelayFloor: the same, with each call relayed through a second process over a
// Unix socket, as a shoal_exec goes through the facade to the kernel; BenchmarkMCPExecArith
// minus this is what Shoal's own work costs.
func BenchmarkMCPRelayFloor(b *testing.B) { benchFloor(b, true) }

func benchFloor(b *testing.B, relay bool) { timeCalls(b, floorClient(b, relay), "1 + 2", 0) }

// BenchmarkMCPSpawnFloor: the relay floor whose echo spawns `echo hi` for every call, the
// floor under BenchmarkMCPExecSpawn: the client library, both hops and one child, and none of
// Shoal's work.
func BenchmarkMCPSpawnFloor(b *testing.B) {
	timeCalls(b, floorClient(b, true, echoSpawnEnv+"=1"), "1 + 2", 0)
}

// The canned server answers as the benchmark expects (so the floor measures a real exchange).
func TestMCPClientFloorAnswers(t *testing.T) {
	for _, c := range []struct {
		relay bool
		env   []string
	}{{false, nil}, {true, nil}, {true, []string{echoSpawnEnv + "=1"}}} {
		res := callTool(t, floorClient(t, c.relay, c.env...), "shoal_exec", map[string]any{"src": "1 + 2"})
		if res.IsError || len(res.Content) != 2 || structured(t, res)["ref"] != "out:1" {
			t.Fatalf("relay %v %v: floor result %+v", c.relay, c.env, res)
		}
	}
}

// BenchmarkMCPPaced: one tools/call every 10 ms, as an agent that thinks between calls makes
// them, so every process of the chain is idle when a call arrives. Shoal's shoal_exec
// {src:"1 + 2"} beside the two floors measured the same way; on a VM whose idle vCPUs halt,
// the wakeups alone cost more than the back-to-back figures.
func BenchmarkMCPPaced(b *testing.B) {
	const pause = 10 * time.Millisecond
	b.Run("client-floor", func(b *testing.B) { timeCalls(b, floorClient(b, false), "1 + 2", pause) })
	b.Run("relay-floor", func(b *testing.B) { timeCalls(b, floorClient(b, true), "1 + 2", pause) })
	b.Run("shoal", func(b *testing.B) {
		sb := newSandbox(b)
		cs := mcpClient(b, sb, nil, nil)
		b.Cleanup(func() { stopKernel(b, sb.socket()) })
		timeCalls(b, cs, "1 + 2", pause)
	})
}
