package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// ProtocolVersion is the MCP revision this server speaks.
const ProtocolVersion = "2025-06-18"

// Options configure the facade. Flags and environment are resolved by the
// caller (commands); nothing here reads the process environment.
type Options struct {
	Socket      string // kernel socket path (already resolved)
	Session     string // session name; "" means "default"
	Token       string // bearer token; "" attaches tokenless
	NoAutostart bool   // do not spawn a kernel when none listens
	// Executable and Argv0 select how an autostarted kernel is spawned
	// ("" means os.Executable() and "shoal").
	Executable, Argv0 string
	Version           string // reported in serverInfo
	Logger            *slog.Logger
}

// Server is one MCP session over one stdio connection.
type Server struct {
	opts   Options
	log    *slog.Logger
	kernel *backend
	subs   *subscriptions
	conn   *jsonrpc.Conn

	mu       sync.Mutex
	logLevel string
}

// Serve speaks MCP on in/out until the input ends or ctx is cancelled.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts *Options) error {
	s := &Server{}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Session == "" {
		s.opts.Session = "default"
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.opts.Logger = s.log
	s.kernel = newBackend(&s.opts)
	s.subs = newSubscriptions(s)
	defer s.kernel.close()
	defer s.subs.close()

	r := jsonrpc.NewRouter()
	r.Register("initialize", jsonrpc.HandlerFunc(s.initialize))
	r.Register("notifications/initialized", jsonrpc.HandlerFunc(noop))
	r.Register("ping", jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return struct{}{}, nil }))
	r.Register("logging/setLevel", jsonrpc.HandlerFunc(s.setLevel))
	r.Register("notifications/cancelled", jsonrpc.HandlerFunc(s.cancelled))
	r.Register("tools/list", jsonrpc.HandlerFunc(s.listTools))
	r.Register("tools/call", jsonrpc.HandlerFunc(s.callTool))
	r.Register("resources/list", jsonrpc.HandlerFunc(s.listResources))
	r.Register("resources/templates/list", jsonrpc.HandlerFunc(s.listTemplates))
	r.Register("resources/read", jsonrpc.HandlerFunc(s.readResource))
	r.Register("resources/subscribe", jsonrpc.HandlerFunc(s.subscribe))
	r.Register("resources/unsubscribe", jsonrpc.HandlerFunc(s.unsubscribe))
	in, out = stdio(in, out)
	s.conn = jsonrpc.NewConn(in, out, &jsonrpc.Options{Mode: jsonrpc.ModeConcurrent, Handler: r, Logger: s.log})
	return s.conn.Run(ctx)
}

func noop(context.Context, *jsonrpc.Request) (any, error) { return nil, nil }

func (s *Server) initialize(ctx context.Context, req *jsonrpc.Request) (any, error) {
	// The kernel is reached lazily, on the first call that needs it, so a
	// client always gets through initialize even with no kernel around.
	return map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities": map[string]any{
			"tools":     map[string]any{"listChanged": false},
			"resources": map[string]any{"subscribe": true, "listChanged": false},
			"logging":   map[string]any{},
		},
		"serverInfo": map[string]any{"name": "shoal-mcp", "version": s.opts.Version},
		"instructions": "Shoal is a structured shell. Use shoal_exec to run Shoal source (commands return typed " +
			"outcomes; `ls`, `stat`, `cat` return tables/bytes; `sh { … }` runs POSIX shell). Results are stored as " +
			"out:N: read them again with shoal_get or resources instead of re-running. Use shoal_pty_* for interactive programs.",
	}, nil
}

func (s *Server) setLevel(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := jsonrpc.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	switch p.Level {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid log level", map[string]string{"level": p.Level})
	}
	s.mu.Lock()
	s.logLevel = p.Level
	s.mu.Unlock()
	return struct{}{}, nil
}

func (s *Server) cancelled(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(req.Params, &p); err == nil && len(p.RequestID) > 0 {
		s.conn.CancelRequest(p.RequestID)
	}
	return nil, nil
}

func (s *Server) listTools(ctx context.Context, req *jsonrpc.Request) (any, error) {
	list := make([]map[string]any, len(tools))
	for i, t := range tools {
		list[i] = t.describe()
	}
	return map[string]any{"tools": list}, nil
}

type progressKey struct{}

type progressTarget struct {
	conn  *jsonrpc.Conn
	token json.RawMessage
}

// progress sends notifications/progress when the current call carries a
// progress token.
func progress(ctx context.Context, n float64, msg string) {
	t, ok := ctx.Value(progressKey{}).(progressTarget)
	if !ok {
		return
	}
	_ = t.conn.Notify("notifications/progress", map[string]any{"progressToken": t.token, "progress": n, "message": msg})
}

func (s *Server) callTool(ctx context.Context, req *jsonrpc.Request) (any, error) {
	p, err := decodeCallParams(req.Params)
	if err != nil {
		return nil, err
	}
	t, ok := toolByName[p.name]
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool %q", p.name)
	}
	args, err := decodeArgs(p.arguments)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid arguments: %v", err)
	}
	if err := t.in.validate(args, "arguments"); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error(), map[string]string{"tool": t.name})
	}
	if len(p.progressToken) > 0 && string(p.progressToken) != "null" {
		ctx = context.WithValue(ctx, progressKey{}, progressTarget{s.conn, p.progressToken})
	}
	raw, err := t.run(ctx, s, args.(map[string]any))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return errorResult(err), nil
	}
	return toolResult(raw), nil
}

// toolResult is a successful tools/call reply (AGENT-SURFACE §3.3).
func toolResult(raw json.RawMessage) *callResult {
	var uri, ref, render string
	var value json.RawMessage
	hasRender := false
	// The kernel's result was validated with its frame; its top-level members are all
	// that is needed here, so they are picked out without decoding the value.
	_ = jsonrpc.Members(raw, func(k string, v json.RawMessage) error {
		switch k {
		case "uri":
			uri, _ = jsonrpc.String(v)
		case "ref":
			ref, _ = jsonrpc.String(v)
		case "render":
			render, hasRender = jsonrpc.String(v)
			hasRender = hasRender && string(v) != "null"
		case "value":
			value = v
		}
		return nil
	})
	if uri == "" && len(value) > 0 && value[0] == '{' {
		_ = jsonrpc.Members(value, func(k string, v json.RawMessage) error {
			if k == "uri" {
				uri, _ = jsonrpc.String(v)
			}
			return nil
		})
	}
	if uri == "" && ref != "" {
		uri = refURI(ref)
	}
	text := render
	if !hasRender {
		text = prettyJSON(raw)
	}
	res := &callResult{Content: []any{textContent{Type: "text", Text: proto.BoundText(text, uri)}}, StructuredContent: raw}
	if uri != "" {
		name := ref
		if name == "" {
			name = uriRef(uri)
		}
		res.Content = append(res.Content, linkContent{Type: "resource_link", URI: uri, Name: name, MimeType: "application/json"})
	}
	return res
}

// callResult is a tools/call result (AGENT-SURFACE §3.3). Typed rather than a map: the
// facade encodes one per call, and struct encoding skips the map's key sorting.
type callResult struct {
	Content           []any           `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type linkContent struct {
	Type     string `json:"type"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mimeType"`
}

// errorResult turns a kernel error (or a failure to reach the kernel) into
// a successful tools/call reply with isError set, so the agent sees why.
func errorResult(err error) *callResult {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		msg := err.Error()
		var ce *connError
		if errors.As(err, &ce) {
			msg = "kernel unreachable: " + msg
		}
		rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	body := map[string]any{"code": rpc.Code, "message": rpc.Message}
	if len(rpc.Data) > 0 {
		body["data"] = rpc.Data
	}
	raw, _ := json.Marshal(body)
	return &callResult{
		Content:           []any{textContent{Type: "text", Text: proto.BoundText(prettyJSON(raw), "")}},
		StructuredContent: raw,
		IsError:           true,
	}
}

func asRPCError(err error, target **jsonrpc.Error) bool { return errors.As(err, target) }
