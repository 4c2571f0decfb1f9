package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long shoal_exec whose client context is cancelled (the go-sdk client then sends
// notifications/cancelled) ends quickly, and the facade's task.cancel kills the process: both
// while the exec is still inside the kernel's handoff window and after it became a task.
func TestMCPExecCancelKillsProcess(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cs := mcpClient(t, sb, nil, nil)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	callTool(t, cs, "shoal_exec", map[string]any{"src": "1"}) // kernel up, session made
	for i, after := range []time.Duration{50 * time.Millisecond, 700 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			marker := fmt.Sprintf("29.%d7", i+1) // a unique argv to find the process by
			ctx, cancel := context.WithTimeout(context.Background(), after)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "/bin/sleep " + marker}})
			if err == nil {
				t.Fatalf("cancelled shoal_exec returned a result: %s", text(res))
			}
			if d := time.Since(start); d > after+2*time.Second {
				t.Fatalf("cancelled shoal_exec took %v", d)
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output()
				if strings.TrimSpace(string(out)) == "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("sleep %s still running after the cancellation: pids %s", marker, out)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The session is usable at once.
			res = callTool(t, cs, "shoal_exec", map[string]any{"src": "1 + 2"})
			if res.IsError || !strings.Contains(text(res), "3") {
				t.Fatalf("exec after cancel: %s", text(res))
			}
		})
	}
}
