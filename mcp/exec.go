package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// handoff is how long a shoal_exec waits inside the kernel before the
// work is handed back as a task. Short execs answer in one round trip;
// longer ones become a task the facade awaits, so notifications/cancelled
// maps to task.cancel and progress can be reported.
const handoff = 200 * time.Millisecond

// awaitSlice bounds one task.await, so progress flows and cancellation is
// noticed between slices.
const awaitSlice = time.Second

// execCall is the kernel exec request a shoal_exec makes. The arguments were validated
// against the tool's input schema and pass through as decoded (json.Number stays exact).
type execCall struct {
	Src        any `json:"src"`
	Mode       any `json:"mode"`
	Position   any `json:"position"`
	Background any `json:"background,omitempty"`
	TimeoutMs  any `json:"timeout_ms,omitempty"`
	Elide      any `json:"elide,omitempty"`
}

func runExec(ctx context.Context, s *Server, a map[string]any) (json.RawMessage, error) {
	p := &execCall{Src: a["src"], Mode: "run", Position: "value", Background: a["background"], TimeoutMs: a["timeout_ms"], Elide: a["elide"]}
	if m, ok := a["mode"]; ok {
		p.Mode = m
	}
	if pos, ok := a["position"]; ok {
		p.Position = pos
	}
	if p.Mode == "plan" || p.Background == true || p.TimeoutMs != nil {
		return s.kernel.call(ctx, proto.MethodExec, p) // the caller asked for this shape
	}
	p.TimeoutMs = handoff.Milliseconds()

	// The exec call itself is not tied to ctx: if the client cancels while
	// it runs we still need the reply to learn the task to cancel. The call
	// returns within the handoff, so it is made on this goroutine (a helper
	// goroutine would cost a wakeup on every exec and could not return any
	// sooner: the reply is needed either way).
	raw, err := s.kernel.call(context.WithoutCancel(ctx), proto.MethodExec, p)
	if ctx.Err() != nil {
		if h, ok := taskHandle(raw); ok && err == nil {
			s.cancelTask(h.Task)
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	h, ok := taskHandle(raw)
	if !ok {
		return raw, nil
	}
	return s.awaitExec(ctx, h, a["elide"])
}

func taskHandle(raw json.RawMessage) (proto.TaskHandle, bool) {
	var h proto.TaskHandle
	// A handle is a small object with timed_out set; a result (with a value of any size)
	// has no such key at its top level, so most replies skip the full parse.
	if !bytes.Contains(raw, []byte(`"timed_out"`)) || json.Unmarshal(raw, &h) != nil || h.Task == "" || !h.TimedOut {
		return h, false
	}
	return h, true
}

// awaitExec waits for a handed-off exec, reporting progress, and builds
// the same result shape a quick exec returns.
func (s *Server) awaitExec(ctx context.Context, h proto.TaskHandle, elide any) (json.RawMessage, error) {
	start := time.Now()
	for tick := 1; ; tick++ {
		slice := awaitSlice.Milliseconds()
		var rec proto.TaskRecord
		raw, err := s.kernel.call(ctx, proto.MethodTaskAwait, proto.TaskAwaitParams{Task: h.Task, TimeoutMs: &slice})
		if err == nil {
			err = json.Unmarshal(raw, &rec)
		}
		if err != nil {
			if ctx.Err() != nil {
				s.cancelTask(h.Task)
				return nil, ctx.Err()
			}
			return nil, err
		}
		if proto.TaskTerminal(rec.State) {
			return s.finishedExec(ctx, rec, elide, time.Since(start))
		}
		progress(ctx, float64(tick), fmt.Sprintf("%s %s for %s", h.Task, rec.State, time.Since(start).Round(time.Second)))
	}
}

func (s *Server) finishedExec(ctx context.Context, rec proto.TaskRecord, elide any, waited time.Duration) (json.RawMessage, error) {
	if rec.Error != nil {
		data, _ := json.Marshal(rec.Error.Data)
		if rec.Error.Data == nil {
			data = nil
		}
		return nil, &jsonrpc.Error{Code: rec.Error.Code, Message: rec.Error.Message, Data: data}
	}
	if rec.ResultRef == nil {
		return json.Marshal(map[string]any{"task": rec.Task, "state": rec.State})
	}
	ref := *rec.ResultRef
	get := map[string]any{"ref": ref}
	if elide != nil {
		get["elide"] = elide
	}
	var val proto.ValueGetResult
	raw, err := s.kernel.call(ctx, proto.MethodValueGet, get)
	if err == nil {
		err = json.Unmarshal(raw, &val)
	}
	if err != nil {
		return nil, err
	}
	var rendered proto.ValueGetResult
	raw, err = s.kernel.call(ctx, proto.MethodValueGet, map[string]any{"ref": ref, "format": "render"})
	if err == nil {
		err = json.Unmarshal(raw, &rendered)
	}
	if err != nil {
		return nil, err
	}
	ms := waited.Milliseconds()
	return json.Marshal(proto.ExecResult{Ref: ref, URI: refURI(ref), Value: val.Value, Render: rendered.Render, ElapsedMs: &ms, Task: rec.Task})
}

// cancelTask asks the kernel to cancel; the client has already given up,
// so a failure is only logged.
func (s *Server) cancelTask(task string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.kernel.call(ctx, proto.MethodTaskCancel, proto.TaskCancelParams{Task: task}); err != nil && !errors.Is(err, context.Canceled) {
		s.log.Warn("mcp: cancelling task", "task", task, "error", err)
	}
}
