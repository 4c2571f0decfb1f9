package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floorEnv makes the test binary a canned MCP server (see TestMain): it answers initialize
// and tools/call with fixed replies of the shape `shoal mcp` sends, doing no other work. The
// same go-sdk client against it measures what a tools/call costs before any of Shoal runs:
// the client library, two pipe hops and one JSON decode/encode on each side.
const floorEnv = "SHOAL_E2E_MCP_FLOOR"

const floorResult = `{"content":[{"type":"text","text":"3"},{"type":"resource_link","uri":"shoal://out/1","name":"out:1","mimeType":"application/json"}],"structuredContent":{"ref":"out:1","uri":"shoal://out/1","value":{"$":"int","v":3},"render":"3","elapsed_ms":0},"isError":false}`

func floorServer(in io.Reader, out io.Writer) int {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
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
			result = floorResult
		default:
			result = `{}`
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + "}\n")
		w.Flush()
	}
}

// floorClient connects the go-sdk client to the canned server (this binary, see TestMain).
func floorClient(tb testing.TB) *mcp.ClientSession {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorEnv+"=1")
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
func BenchmarkMCPClientFloor(b *testing.B) {
	cs := floorClient(b)
	args := map[string]any{"src": "1 + 2"}
	callTool(b, cs, "shoal_exec", args)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res := callTool(b, cs, "shoal_exec", args)
		samples = append(samples, time.Since(start))
		if res.IsError || len(res.Content) != 2 {
			b.Fatalf("floor result %+v", res)
		}
	}
	reportP50(b, samples, "p50-µs")
}

// The canned server answers as the benchmark expects (so the floor measures a real exchange).
func TestMCPClientFloorAnswers(t *testing.T) {
	res := callTool(t, floorClient(t), "shoal_exec", map[string]any{"src": "1 + 2"})
	if res.IsError || len(res.Content) != 2 || structured(t, res)["ref"] != "out:1" {
		t.Fatalf("floor result %+v", res)
	}
}
