package e2e

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPABInterleaved compares two builds of shoal on the same shoal_exec, for a change
// whose effect is smaller than the drift between separate benchmark runs on a noisy VM.
// Each build runs its own facade and kernel; blocks of 100 calls alternate between them (in
// alternating order), so both see the same machine. It reports each build's p50 and, per
// block pair, how often B was faster. Skipped unless SHOAL_AB_A and SHOAL_AB_B name two
// binaries:
//
//	SHOAL_AB_A=/tmp/shoal.old SHOAL_AB_B=/tmp/shoal.new go test -run MCPABInterleaved -v ./e2e/
//
// SHOAL_AB_SRC changes the source (default "1 + 2").
func TestMCPABInterleaved(t *testing.T) {
	bins := [2]string{os.Getenv("SHOAL_AB_A"), os.Getenv("SHOAL_AB_B")}
	if bins[0] == "" || bins[1] == "" {
		t.Skip("SHOAL_AB_A and SHOAL_AB_B name the two builds to compare")
	}
	args := map[string]any{"src": "1 + 2"}
	if src := os.Getenv("SHOAL_AB_SRC"); src != "" {
		args["src"] = src
	}
	var cs [2]*mcp.ClientSession
	for i, bin := range bins {
		sb := newSandbox(t)
		cmd := exec.Command(bin, "mcp")
		cmd.Env, cmd.Dir, cmd.Stderr = sb.env, sb.dir, os.Stderr
		c := mcp.NewClient(&mcp.Implementation{Name: "ab", Version: "1"}, nil)
		s, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(); stopKernel(t, sb.socket()) })
		cs[i] = s
		for range 200 { // warm: the kernel started, the session made, the caches full
			callTool(t, s, "shoal_exec", args)
		}
	}
	const blocks, per = 40, 100
	var all [2][]time.Duration
	var medians [2][]time.Duration
	for blk := range blocks {
		for k := range 2 {
			i := (blk + k) % 2
			var bs []time.Duration
			for range per {
				start := time.Now()
				res := callTool(t, cs[i], "shoal_exec", args)
				bs = append(bs, time.Since(start))
				if res.IsError {
					t.Fatalf("%s: %s", bins[i], text(res))
				}
			}
			all[i] = append(all[i], bs...)
			medians[i] = append(medians[i], median(bs))
		}
	}
	var diffs []time.Duration
	faster := 0
	for j := range medians[0] {
		d := medians[1][j] - medians[0][j]
		diffs = append(diffs, d)
		if d < 0 {
			faster++
		}
	}
	t.Logf("p50 A=%v B=%v; median of block differences (B-A) %v; B faster in %d of %d blocks",
		median(all[0]), median(all[1]), median(diffs), faster, blocks)
}

func median(s []time.Duration) time.Duration {
	s = append([]time.Duration(nil), s...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}
