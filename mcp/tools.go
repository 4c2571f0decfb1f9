package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shoal-sh/shoal/kernel/proto"
)

// tool is one MCP tool: its advertised literal schemas and the handler
// that turns validated arguments into kernel calls.
type tool struct {
	name, description string
	input             string // literal JSON Schema, advertised and enforced
	output            string // outputSchema for structuredContent
	in                *schema
	run               func(ctx context.Context, s *Server, args map[string]any) (json.RawMessage, error)
}

const elideSchema = `{"type":"object","properties":{"max_bytes":{"type":"integer"},"max_rows":{"type":"integer"},"max_items":{"type":"integer"}}}`

// objectOut is the output schema of tools whose structuredContent is a
// kernel result object or, on isError, {code, message, data}.
const objectOut = `{"type":"object"}`

const execOut = `{"type":"object","properties":{"ref":{"type":"string"},"uri":{"type":"string"},"value":{},"render":{"type":"string"},"elapsed_ms":{"type":"integer"},"task":{"type":"string"},"events":{"type":"string"},"timed_out":{"type":"boolean"},"code":{"type":"integer"},"message":{"type":"string"},"data":{}}}`

// tools is the table of the thirteen tools (AGENT-SURFACE §3.2), in the
// order tools/list shows them.
var tools = []*tool{
	{name: "shoal_exec", description: "Run Shoal source in the session and return a typed value (a transcript ref out:N, the elided tagged value and a bounded render). Commands return outcomes; tables, records, sizes and durations stay typed. Failing commands are returned as outcomes with ok:false in value position.",
		input: `{"type":"object","required":["src"],"additionalProperties":false,"properties":{` +
			`"src":{"type":"string"},"mode":{"enum":["run","plan"]},"position":{"enum":["stmt","value"]},` +
			`"background":{"type":"boolean"},"timeout_ms":{"type":"integer","minimum":1},"elide":` + elideSchema + `}}`,
		output: execOut, run: runExec},
	{name: "shoal_plan", description: "Derive the effects of Shoal source without running it: stores a plan (plan:<hex>) with its effects, reversibility and policy verdict.",
		input:  `{"type":"object","required":["src"],"additionalProperties":false,"properties":{"src":{"type":"string"}}}`,
		output: objectOut, run: func(ctx context.Context, s *Server, a map[string]any) (json.RawMessage, error) {
			return s.kernel.call(ctx, proto.MethodExec, map[string]any{"src": a["src"], "mode": "plan", "position": "value"})
		}},
	{name: "shoal_apply", description: "Run a stored, approved plan (plan.apply).",
		input:  `{"type":"object","required":["plan_ref"],"additionalProperties":false,"properties":{"plan_ref":{"type":"string"}}}`,
		output: execOut, run: forward(proto.MethodPlanApply)},
	{name: "shoal_get", description: "Read a stored value by ref (out:N, it, val:blake3:<hex>) without re-running anything: an optional path (.rows[0..5].name), slice [a, b) and elision budget.",
		input: `{"type":"object","required":["ref"],"additionalProperties":false,"properties":{"ref":{"type":"string"},"path":{"type":"string"},` +
			`"slice":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},"elide":` + elideSchema + `}}`,
		output: objectOut, run: forward(proto.MethodValueGet)},
	{name: "shoal_journal", description: "Query the journal of past execs, newest first, with filters applied before the limit.",
		input: `{"type":"object","additionalProperties":false,"properties":{"since":{"type":"integer"},"until":{"type":"integer"},` +
			`"principal":{"type":"string"},"head":{"type":"string"},"ok":{"type":"boolean"},"effects":{"type":"array","items":{"type":"string"}},"limit":{"type":"integer","minimum":1}}}`,
		output: `{"type":"object","properties":{"entries":{"type":"array"}}}`, run: runJournal},
	{name: "shoal_cancel", description: "Request cancellation of a background task (task:N).",
		input:  `{"type":"object","required":["task"],"additionalProperties":false,"properties":{"task":{"type":"string"}}}`,
		output: objectOut, run: forward(proto.MethodTaskCancel)},
	{name: "shoal_cap_request", description: "Approve a pending plan for the listed effects (approvers only).",
		input:  `{"type":"object","required":["plan_ref"],"additionalProperties":false,"properties":{"plan_ref":{"type":"string"},"effects":{"type":"array"}}}`,
		output: objectOut, run: runCapRequest},
	{name: "shoal_pty_open", description: "Start an interactive program on a real terminal (vim, less, a REPL, an installer); read it as a bounded screen with shoal_pty_read.",
		input: `{"type":"object","required":["cmd"],"additionalProperties":false,"properties":{"cmd":{"type":"string"},"args":{"type":"array","items":{"type":"string"}},` +
			`"cols":{"type":"integer","minimum":1,"maximum":1000},"rows":{"type":"integer","minimum":1,"maximum":1000},"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
		output: objectOut, run: forward(proto.MethodPTYOpen)},
	{name: "shoal_pty_send", description: `Send input to a PTY: a string, {"text":…}, {"key":"Enter"|"Escape"|"Up"|"Ctrl-C"|…}, {"bytes":base64}, or an array of these.`,
		input:  `{"type":"object","required":["pty_id","input"],"additionalProperties":false,"properties":{"pty_id":{"type":"string"},"input":{}}}`,
		output: objectOut, run: forward(proto.MethodPTYSend)},
	{name: "shoal_pty_read", description: "Read a PTY's screen as plain rows with cursor, changed, alive and exit. wait_ms blocks until the screen changes; until_text blocks until the text appears (up to wait_ms).",
		input: `{"type":"object","required":["pty_id"],"additionalProperties":false,"properties":{"pty_id":{"type":"string"},` +
			`"wait_ms":{"type":"integer","minimum":0,"maximum":30000},"until_text":{"type":"string"}}}`,
		output: objectOut, run: forward(proto.MethodPTYRead)},
	{name: "shoal_pty_resize", description: "Resize a PTY (the program receives SIGWINCH).",
		input: `{"type":"object","required":["pty_id","cols","rows"],"additionalProperties":false,"properties":{"pty_id":{"type":"string"},` +
			`"cols":{"type":"integer","minimum":1,"maximum":1000},"rows":{"type":"integer","minimum":1,"maximum":1000}}}`,
		output: objectOut, run: forward(proto.MethodPTYResize)},
	{name: "shoal_pty_close", description: "Close a PTY: hang up, terminate, then kill the program if it lingers; reports its exit.",
		input:  `{"type":"object","required":["pty_id"],"additionalProperties":false,"properties":{"pty_id":{"type":"string"}}}`,
		output: objectOut, run: forward(proto.MethodPTYClose)},
	{name: "shoal_pty_list", description: "List this session's PTYs (no screen contents).",
		input:  `{"type":"object","additionalProperties":false,"properties":{}}`,
		output: objectOut, run: forward(proto.MethodPTYList)},
}

var toolByName = func() map[string]*tool {
	m := make(map[string]*tool, len(tools))
	for _, t := range tools {
		t.in = mustSchema(t.input)
		mustSchema(t.output)
		m[t.name] = t
	}
	return m
}()

// forward sends the validated arguments verbatim.
func forward(method string) func(context.Context, *Server, map[string]any) (json.RawMessage, error) {
	return func(ctx context.Context, s *Server, a map[string]any) (json.RawMessage, error) {
		return s.kernel.call(ctx, method, a)
	}
}

func runJournal(ctx context.Context, s *Server, a map[string]any) (json.RawMessage, error) {
	raw, err := s.kernel.call(ctx, proto.MethodJournalQuery, a)
	if err != nil {
		return nil, err
	}
	// structuredContent must be an object; the kernel answers an array.
	if len(raw) > 0 && raw[0] == '[' {
		return json.Marshal(map[string]json.RawMessage{"entries": raw})
	}
	return raw, nil
}

func runCapRequest(ctx context.Context, s *Server, a map[string]any) (json.RawMessage, error) {
	if _, ok := a["effects"]; !ok {
		a["effects"] = []any{}
	}
	return s.kernel.call(ctx, proto.MethodCapRequest, a)
}

// describeTool is the tools/list entry.
func (t *tool) describe() map[string]any {
	return map[string]any{
		"name":         t.name,
		"description":  t.description,
		"inputSchema":  json.RawMessage(t.input),
		"outputSchema": json.RawMessage(t.output),
	}
}

func str(a map[string]any, k string) string {
	s, _ := a[k].(string)
	return s
}

var _ = fmt.Sprintf
