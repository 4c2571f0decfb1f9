package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// roots are the six fixed resources, listed first (AGENT-SURFACE §4.1).
var roots = []map[string]any{
	{"uri": "shoal://journal", "name": "journal", "description": "Journal of execs, newest first", "mimeType": "application/json"},
	{"uri": "shoal://jobs", "name": "jobs", "description": "This session's tasks", "mimeType": "application/json"},
	{"uri": "shoal://session/cwd", "name": "cwd", "description": "The session's current directory (live)", "mimeType": "application/json"},
	{"uri": "shoal://session/env", "name": "env", "description": "The session environment (if policy allows reading it)", "mimeType": "application/json"},
	{"uri": "shoal://session/reef", "name": "reef", "description": "Tool resolution scope of the session", "mimeType": "application/json"},
	{"uri": "shoal://pty", "name": "pty", "description": "Open PTYs of this session", "mimeType": "application/json"},
}

var templates = []map[string]any{
	{"uriTemplate": "shoal://out/{n}{?path,slice,format}", "name": "transcript-value", "mimeType": "application/json"},
	{"uriTemplate": "shoal://val/{hash}", "name": "content-value", "mimeType": "application/json"},
	{"uriTemplate": "shoal://task/{id}", "name": "task", "mimeType": "application/json"},
	{"uriTemplate": "shoal://task/{id}/out{?path,slice,format}", "name": "task-output", "mimeType": "application/json"},
	{"uriTemplate": "shoal://plan/{ref}", "name": "plan", "mimeType": "application/json"},
	{"uriTemplate": "shoal://session/{view}", "name": "session-view", "mimeType": "application/json"},
	{"uriTemplate": "shoal://pty/{id}", "name": "pty-screen", "mimeType": "application/json"},
	{"uriTemplate": "shoal://journal{?since,until,head,principal,ok,effects,limit}", "name": "journal", "mimeType": "application/json"},
	{"uriTemplate": "shoal://events/{channel}{?since,limit}", "name": "events", "mimeType": "application/json"},
}

func (s *Server) listResources(ctx context.Context, req *jsonrpc.Request) (any, error) {
	list := append([]map[string]any(nil), roots...)
	// A snapshot of the session's tasks, plans and PTYs; any that cannot be
	// listed (no kernel, policy) are skipped rather than failing the list.
	if raw, err := s.kernel.call(ctx, proto.MethodTaskList, struct{}{}); err == nil {
		var recs []proto.TaskRecord
		if json.Unmarshal(raw, &recs) == nil {
			for _, r := range recs {
				list = append(list, entry(r.Task, "task "+r.State))
			}
		}
	}
	if raw, err := s.kernel.call(ctx, proto.MethodPlanList, struct{}{}); err == nil {
		var plans []proto.PlanSummary
		if json.Unmarshal(raw, &plans) == nil {
			for _, p := range plans {
				list = append(list, entry(p.PlanRef, "plan "+p.Verdict))
			}
		}
	}
	if raw, err := s.kernel.call(ctx, proto.MethodPTYList, struct{}{}); err == nil {
		var ptys struct {
			PTYs []struct {
				PTYID string `json:"pty_id"`
				Cmd   string `json:"cmd"`
			} `json:"ptys"`
		}
		if json.Unmarshal(raw, &ptys) == nil {
			for _, p := range ptys.PTYs {
				list = append(list, entry(p.PTYID, p.Cmd))
			}
		}
	}
	return map[string]any{"resources": list}, nil
}

func entry(ref, desc string) map[string]any {
	return map[string]any{"uri": refURI(ref), "name": ref, "description": desc, "mimeType": "application/json"}
}

func (s *Server) listTemplates(ctx context.Context, req *jsonrpc.Request) (any, error) {
	return map[string]any{"resourceTemplates": templates}, nil
}

// parsedURI is a shoal:// URI split into decoded path segments and query.
type parsedURI struct {
	segs  []string
	query url.Values
}

func parseURI(uri string) (parsedURI, error) {
	rest, ok := strings.CutPrefix(uri, "shoal://")
	if !ok {
		return parsedURI{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "not a shoal:// URI", map[string]string{"uri": uri})
	}
	path, rawQuery, _ := strings.Cut(rest, "?")
	var p parsedURI
	for _, seg := range strings.Split(path, "/") {
		if seg == "" {
			continue
		}
		d, err := url.PathUnescape(seg)
		if err != nil {
			return parsedURI{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad URI segment", map[string]string{"uri": uri})
		}
		p.segs = append(p.segs, d)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		q = url.Values{}
	}
	p.query = q
	if len(p.segs) == 0 {
		return parsedURI{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "empty shoal:// URI", map[string]string{"uri": uri})
	}
	return p, nil
}

// refPart accepts both "N" and the full ref "kind:N" in a URI segment.
func refPart(kind, seg string) string {
	return strings.TrimPrefix(seg, kind+":")
}

func intQuery(q url.Values, k string) (int64, bool) {
	v := q.Get(k)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// valueGetFromQuery builds value.get params for ref from path/slice/format/elide.
func valueGetFromQuery(ref string, q url.Values) map[string]any {
	p := map[string]any{"ref": ref}
	if v := q.Get("path"); v != "" {
		p["path"] = v
	}
	if v := q.Get("slice"); v != "" {
		a, b, ok := strings.Cut(v, "..")
		if !ok {
			a, b, ok = strings.Cut(v, ",")
		}
		x, e1 := strconv.Atoi(a)
		y, e2 := strconv.Atoi(b)
		if ok && e1 == nil && e2 == nil {
			p["slice"] = []int{x, y}
		}
	}
	if v := q.Get("format"); v != "" {
		p["format"] = v
	}
	if v := q.Get("elide"); v != "" && json.Valid([]byte(v)) {
		p["elide"] = json.RawMessage(v)
	}
	return p
}

// route maps a resource URI to one kernel call (AGENT-SURFACE §4.2).
func route(ctx context.Context, s *Server, p parsedURI, uri string) (json.RawMessage, error) {
	q := p.query
	bad := func() (json.RawMessage, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown resource", map[string]string{"uri": uri})
	}
	switch p.segs[0] {
	case "out":
		if len(p.segs) != 2 {
			return bad()
		}
		return s.kernel.call(ctx, proto.MethodValueGet, valueGetFromQuery("out:"+refPart("out", p.segs[1]), q))
	case "val":
		if len(p.segs) != 2 {
			return bad()
		}
		h := strings.TrimPrefix(refPart("val", p.segs[1]), "blake3:")
		return s.kernel.call(ctx, proto.MethodBlobGet, map[string]any{"hash": h})
	case "task":
		if len(p.segs) < 2 || len(p.segs) > 3 || (len(p.segs) == 3 && p.segs[2] != "out") {
			return bad()
		}
		task := "task:" + refPart("task", p.segs[1])
		raw, err := s.kernel.call(ctx, proto.MethodTaskGet, map[string]any{"task": task})
		if err != nil || len(p.segs) == 2 {
			return raw, err
		}
		var rec proto.TaskRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, err
		}
		if rec.ResultRef != nil {
			return s.kernel.call(ctx, proto.MethodValueGet, valueGetFromQuery(*rec.ResultRef, q))
		}
		if !proto.TaskTerminal(rec.State) {
			// Still running: the incremental output so far.
			return s.kernel.call(ctx, proto.MethodTaskOutput, map[string]any{"task": task})
		}
		return raw, nil
	case "plan":
		if len(p.segs) != 2 {
			return bad()
		}
		return s.kernel.call(ctx, proto.MethodPlanGet, map[string]any{"plan_ref": "plan:" + refPart("plan", p.segs[1])})
	case "session":
		if len(p.segs) != 2 {
			return bad()
		}
		switch p.segs[1] {
		case "cwd":
			return s.kernel.call(ctx, proto.MethodSessionCwd, struct{}{})
		case "env":
			return s.kernel.call(ctx, proto.MethodSessionEnv, struct{}{})
		case "reef":
			return s.kernel.call(ctx, proto.MethodSessionReef, struct{}{})
		}
		return bad()
	case "pty":
		switch len(p.segs) {
		case 1:
			return s.kernel.call(ctx, proto.MethodPTYList, struct{}{})
		case 2:
			return s.kernel.call(ctx, proto.MethodPTYRead, map[string]any{"pty_id": "pty:" + refPart("pty", p.segs[1])})
		}
		return bad()
	case "jobs":
		return s.kernel.call(ctx, proto.MethodTaskList, struct{}{})
	case "journal":
		jq := map[string]any{}
		for _, k := range []string{"since", "until", "limit"} {
			if n, ok := intQuery(q, k); ok {
				jq[k] = n
			}
		}
		for _, k := range []string{"head", "principal"} {
			if v := q.Get(k); v != "" {
				jq[k] = v
			}
		}
		if v := q.Get("ok"); v == "true" || v == "false" {
			jq["ok"] = v == "true"
		}
		if v := q.Get("effects"); v != "" {
			jq["effects"] = strings.Split(v, ",")
		}
		return s.kernel.call(ctx, proto.MethodJournalQuery, jq)
	case "events":
		if len(p.segs) != 2 {
			return bad()
		}
		eq := map[string]any{"channel": p.segs[1]}
		for _, k := range []string{"since", "limit"} {
			if n, ok := intQuery(q, k); ok {
				eq[k] = n
			}
		}
		return s.kernel.call(ctx, proto.MethodEventsRead, eq)
	}
	return bad()
}

func (s *Server) readResource(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := jsonrpc.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	pu, err := parseURI(p.URI)
	if err != nil {
		return nil, err
	}
	raw, err := route(ctx, s, pu, p.URI)
	if err != nil {
		// Kernel errors keep their code and data [D33]; an unreachable
		// kernel is an internal error naming the cause.
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "kernel unreachable: "+err.Error(), nil)
		}
		return nil, rpc
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	for _, k := range []string{"render", "raw"} {
		var text string
		if v, ok := top[k]; ok && json.Unmarshal(v, &text) == nil {
			return map[string]any{
				"contents":          []map[string]any{{"uri": p.URI, "mimeType": "text/plain", "text": proto.BoundText(text, p.URI)}},
				"structuredContent": raw,
			}, nil
		}
	}
	body := raw
	if v, ok := top["value"]; ok {
		body = v
	}
	return map[string]any{
		"contents":          []map[string]any{{"uri": p.URI, "mimeType": "application/json", "text": proto.BoundText(prettyJSON(body), p.URI)}},
		"structuredContent": body,
	}, nil
}
