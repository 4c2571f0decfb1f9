package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient starts `shoal mcp` in the sandbox with the go-sdk client, an
// independent implementation of the protocol.
func mcpClient(t testing.TB, sb *sandbox, env []string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "shoal-e2e", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: sb.command(t, env, "mcp")}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

func text(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// Scenario 17: initialize, the 13 tools, exec results, argument errors and
// raised errors as isError results.
func TestMCPToolsScenario17(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, nil)
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-06-18" {
		t.Fatalf("protocol %q", got)
	}
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", tl.Name)
		}
	}
	sort.Strings(names)
	want := "shoal_apply shoal_cancel shoal_cap_request shoal_exec shoal_get shoal_journal shoal_plan shoal_pty_close shoal_pty_list shoal_pty_open shoal_pty_read shoal_pty_resize shoal_pty_send"
	if strings.Join(names, " ") != want {
		t.Fatalf("tools:\n got %s\nwant %s", strings.Join(names, " "), want)
	}

	res := callTool(t, cs, "shoal_exec", map[string]any{"src": "1 + 2"})
	if res.IsError {
		t.Fatalf("exec failed: %s", text(res))
	}
	sc := structured(t, res)
	if sc["ref"] != "out:1" || sc["render"] != "3" {
		t.Fatalf("structuredContent %v", sc)
	}
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	if link == nil || link.URI != "shoal://out/1" || link.Name != "out:1" {
		t.Fatalf("resource_link %+v", link)
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "1", "bogus": true}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("unknown argument: err = %v, want -32602", err)
	}

	res = callTool(t, cs, "shoal_exec", map[string]any{"src": "1 / 0", "position": "stmt"})
	if !res.IsError {
		t.Fatalf("1/0 should be an isError result: %s", text(res))
	}
	if code, _ := structured(t, res)["code"].(float64); code != -32002 {
		t.Fatalf("raised error code %v", structured(t, res)["code"])
	}
}

// Scenario 18: a 5000-line render is bounded and names where to fetch it.
func TestMCPBoundedRenderScenario18(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, nil)
	res := callTool(t, cs, "shoal_exec", map[string]any{"src": `(1..=5000).map(i => "line number {i} of the long render")`})
	if res.IsError {
		t.Fatalf("exec: %s", text(res))
	}
	txt := text(res)
	if len(txt) > 65536 {
		t.Fatalf("text is %d bytes", len(txt))
	}
	ref := structured(t, res)["ref"].(string)
	if !strings.HasSuffix(txt, "more lines, fetch via shoal://out/"+strings.TrimPrefix(ref, "out:")+")") {
		t.Fatalf("text ends %q", txt[len(txt)-80:])
	}
}

// Scenario 19: resources and templates, reading values by URI, live cwd.
func TestMCPResourcesScenario19(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, nil)
	ctx := context.Background()
	callTool(t, cs, "shoal_exec", map[string]any{"src": `{x: 42, s: "hi"}`})
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first []string
	for _, r := range lr.Resources[:6] {
		first = append(first, r.URI)
	}
	if got := strings.Join(first, " "); got != "shoal://journal shoal://jobs shoal://session/cwd shoal://session/env shoal://session/reef shoal://pty" {
		t.Fatalf("roots: %s", got)
	}
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(lt.ResourceTemplates) != 9 {
		t.Fatalf("templates: %v %v", lt, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "shoal://out/1?path=.x"})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Contents[0].MIMEType != "application/json" || !strings.Contains(rr.Contents[0].Text, `"$": "int"`) || !strings.Contains(rr.Contents[0].Text, "42") {
		t.Fatalf("path read: %+v", rr.Contents[0])
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "shoal://out/1?format=render"})
	if err != nil || rr.Contents[0].MIMEType != "text/plain" {
		t.Fatalf("render read: %+v %v", rr, err)
	}
	callTool(t, cs, "shoal_exec", map[string]any{"src": `mkdir sub; cd sub`})
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "shoal://session/cwd"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "/work/sub") {
		t.Fatalf("cwd after cd: %+v %v", rr, err)
	}
	// The kernel's own error comes through [D33]. (go-sdk's client maps
	// code -32004 to its internal "server closing" error and keeps only the
	// message, so the message is what can be checked here.)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "shoal://out/999"})
	if err == nil || !strings.Contains(err.Error(), "unknown value ref") {
		t.Fatalf("unknown ref read: %v, want the kernel's unknown value ref", err)
	}
}

// Scenario 20: a task subscription notifies on completion, and stops
// after unsubscribe.
func TestMCPSubscriptionScenario20(t *testing.T) {
	sb := newSandbox(t)
	updates := make(chan *mcp.ResourceUpdatedNotificationParams, 16)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updates <- r.Params
	}})
	ctx := context.Background()
	res := callTool(t, cs, "shoal_exec", map[string]any{"src": "sleep 300ms; 7", "background": true})
	task, _ := structured(t, res)["task"].(string)
	if !strings.HasPrefix(task, "task:") {
		t.Fatalf("background exec: %v", structured(t, res))
	}
	uri := "shoal://task/" + strings.TrimPrefix(task, "task:")
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		if u.URI != uri {
			t.Fatalf("update for %s", u.URI)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated for the task")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// A second task on the same number space: nothing may arrive for uri.
	for len(updates) > 0 {
		<-updates
	}
	callTool(t, cs, "shoal_exec", map[string]any{"src": "sleep 50ms", "background": true})
	select {
	case u := <-updates:
		t.Fatalf("update after unsubscribe: %+v", u)
	case <-time.After(500 * time.Millisecond):
	}
}

// Scenario 24: with no kernel, shoal mcp re-execs itself as one; with
// SHOAL_NO_AUTOSTART the connection error is visible.
func TestMCPAutostartScenario24(t *testing.T) {
	sb := newSandbox(t)
	start := time.Now()
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, nil)
	res := callTool(t, cs, "shoal_exec", map[string]any{"src": "40 + 2"})
	if res.IsError || structured(t, res)["render"] != "42" {
		t.Fatalf("first call: %s", text(res))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("first tools/call took %v", d)
	}
	if _, err := kernelPid(sb.socket()); err != nil {
		t.Fatalf("no kernel on the socket after autostart: %v", err)
	}

	sb2 := newSandbox(t)
	cs2 := mcpClient(t, sb2, []string{"SHOAL_NO_AUTOSTART=1"}, nil)
	res = callTool(t, cs2, "shoal_exec", map[string]any{"src": "1"})
	if !res.IsError {
		t.Fatal("no kernel and no autostart must be an isError result")
	}
	if code, _ := structured(t, res)["code"].(float64); code != -32603 || !strings.Contains(text(res), "connect") {
		t.Fatalf("error result: %s", text(res))
	}
	if _, err := kernelPid(sb2.socket()); err == nil {
		t.Fatal("a kernel was started despite SHOAL_NO_AUTOSTART")
	}
}

// Two facades started at the same instant on one fresh socket share the one
// kernel that won, and see each other's bindings in the session.
func TestMCPRacingAutostart(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	var wg sync.WaitGroup
	sessions := make([]*mcp.ClientSession, 2)
	results := make([]*mcp.CallToolResult, 2)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sessions[i] = mcpClient(t, sb, nil, nil)
			results[i] = callTool(t, sessions[i], "shoal_exec", map[string]any{"src": "1"})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r == nil || r.IsError {
			t.Fatalf("facade %d failed", i)
		}
	}
	out, _ := exec.Command("pgrep", "-f", sb.socket()).Output()
	if n := len(strings.Fields(string(out))); n != 1 {
		t.Fatalf("%d kernel processes for the socket, want 1", n)
	}
	callTool(t, sessions[0], "shoal_exec", map[string]any{"src": "let shared = 99"})
	res := callTool(t, sessions[1], "shoal_exec", map[string]any{"src": "shared + 1"})
	if structured(t, res)["render"] != "100" {
		t.Fatalf("binding not shared: %s", text(res))
	}
}

// After the kernel restarts, the facade reconnects, re-attaches and
// re-subscribes [D26]: tool calls work again and subscribed events flow.
func TestMCPReconnectAfterKernelRestart(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	updates := make(chan *mcp.ResourceUpdatedNotificationParams, 16)
	cs := mcpClient(t, sb, nil, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updates <- r.Params
	}})
	callTool(t, cs, "shoal_exec", map[string]any{"src": "1"})
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "shoal://events/user.ping"}); err != nil {
		t.Fatal(err)
	}
	old, err := kernelPid(sb.socket())
	if err != nil {
		t.Fatal(err)
	}
	stopKernel(t, sb.socket())

	// The next call autostarts a new kernel through the facade.
	res := callTool(t, cs, "shoal_exec", map[string]any{"src": "6 * 7"})
	if res.IsError || structured(t, res)["render"] != "42" {
		t.Fatalf("call after restart: %s", text(res))
	}
	pid, err := kernelPid(sb.socket())
	if err != nil || pid == old {
		t.Fatalf("new kernel pid %d (old %d): %v", pid, old, err)
	}
	// The subscription comes back on its own; publish until it delivers.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := rawCall(sb.socket(), "events.publish", `{"channel":"user.ping","payload":{"n":1}}`); err != nil {
			t.Fatal(err)
		}
		select {
		case u := <-updates:
			if u.URI != "shoal://events/user.ping" {
				t.Fatalf("update for %s", u.URI)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("subscription was not re-established after the kernel restart")
		}
	}
}
