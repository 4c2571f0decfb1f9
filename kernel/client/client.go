package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Client is one connection to a kernel. Its methods are safe for concurrent use; the kernel
// answers a connection's requests in order. Pushed events go to the OnEvent callback.
type Client struct {
	conn *jsonrpc.Conn
	done chan struct{}

	mu      sync.Mutex
	onEvent func(proto.Event)
}

// Options configures a [Client]. Nil means defaults.
type Options struct {
	// OnEvent receives pushed events, in arrival order, on the connection's reader. It must
	// not block for long; nil drops them.
	OnEvent func(proto.Event)
	// Logger receives connection-level warnings; nil means slog.Default().
	Logger *slog.Logger
}

// Dial connects to the kernel socket at path.
func Dial(ctx context.Context, path string, opts *Options) (*Client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("connect to kernel %s: %w", path, err)
	}
	if q := jsonrpc.QuietIO(c); q != nil {
		return New(q, opts), nil
	}
	return New(c, opts), nil
}

// New runs a client over an established stream (a socket or one end of net.Pipe).
func New(rw io.ReadWriteCloser, opts *Options) *Client {
	cl := &Client{done: make(chan struct{})}
	var o Options
	if opts != nil {
		o = *opts
	}
	cl.onEvent = o.OnEvent
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method != proto.NotifyEvent {
			return nil, jsonrpc.MethodNotFound(req.Method)
		}
		var ev proto.Event
		if err := json.Unmarshal(req.Params, &ev); err != nil {
			return nil, err
		}
		cl.mu.Lock()
		f := cl.onEvent
		cl.mu.Unlock()
		if f != nil {
			f(ev)
		}
		return nil, nil
	})
	cl.conn = jsonrpc.NewConn(rw, rw, &jsonrpc.Options{Handler: h, Logger: o.Logger, CancelOnEOF: true})
	go func() {
		defer close(cl.done)
		_ = cl.conn.Run(context.Background()) // the end of the stream is reported by Done
	}()
	return cl
}

// SetOnEvent replaces the event callback.
func (c *Client) SetOnEvent(f func(proto.Event)) {
	c.mu.Lock()
	c.onEvent = f
	c.mu.Unlock()
}

// Close ends the connection; subscriptions die with it, sessions and tasks survive.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

// Done is closed once the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Call sends any method with raw params, decoding the result into result (if non-nil). Kernel
// errors are *jsonrpc.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.conn.Call(ctx, method, params, result)
}

func call[R any](ctx context.Context, c *Client, method string, params any) (R, error) {
	var r R
	err := c.conn.Call(ctx, method, params, &r)
	return r, err
}

// Attach attaches the connection to a session.
func (c *Client) Attach(ctx context.Context, p proto.SessionAttachParams) (proto.SessionAttachResult, error) {
	return call[proto.SessionAttachResult](ctx, c, proto.MethodSessionAttach, p)
}

// Exec runs source. A task handoff comes back with Task set.
func (c *Client) Exec(ctx context.Context, p proto.ExecParams) (proto.ExecResult, error) {
	return call[proto.ExecResult](ctx, c, proto.MethodExec, p)
}

// Parse parses source without a session.
func (c *Client) Parse(ctx context.Context, src string) (proto.ParseResult, error) {
	return call[proto.ParseResult](ctx, c, proto.MethodParse, proto.ParseParams{Src: &src})
}

// Complete asks for completions.
func (c *Client) Complete(ctx context.Context, p proto.CompleteParams) (proto.CompleteResult, error) {
	return call[proto.CompleteResult](ctx, c, proto.MethodComplete, p)
}

// ValueGet reads a transcript value.
func (c *Client) ValueGet(ctx context.Context, p proto.ValueGetParams) (proto.ValueGetResult, error) {
	return call[proto.ValueGetResult](ctx, c, proto.MethodValueGet, p)
}

// BlobGet reads a CAS blob.
func (c *Client) BlobGet(ctx context.Context, p proto.BlobGetParams) (proto.BlobGetResult, error) {
	return call[proto.BlobGetResult](ctx, c, proto.MethodBlobGet, p)
}

// SessionCwd returns the session's current directory.
func (c *Client) SessionCwd(ctx context.Context) (proto.SessionCwdResult, error) {
	return call[proto.SessionCwdResult](ctx, c, proto.MethodSessionCwd, struct{}{})
}

// SessionEnv returns the session's environment.
func (c *Client) SessionEnv(ctx context.Context) (proto.SessionEnvResult, error) {
	return call[proto.SessionEnvResult](ctx, c, proto.MethodSessionEnv, struct{}{})
}

// SessionReef returns the session's Reef scope (cached state, no subprocess).
func (c *Client) SessionReef(ctx context.Context) (proto.SessionReefResult, error) {
	return call[proto.SessionReefResult](ctx, c, proto.MethodSessionReef, struct{}{})
}

// JournalQuery queries the journal.
func (c *Client) JournalQuery(ctx context.Context, p proto.JournalQueryParams) (proto.JournalQueryResult, error) {
	return call[proto.JournalQueryResult](ctx, c, proto.MethodJournalQuery, p)
}

// TaskList lists the session's tasks.
func (c *Client) TaskList(ctx context.Context) (proto.TaskListResult, error) {
	return call[proto.TaskListResult](ctx, c, proto.MethodTaskList, struct{}{})
}

// TaskGet returns one task.
func (c *Client) TaskGet(ctx context.Context, task string) (proto.TaskRecord, error) {
	return call[proto.TaskRecord](ctx, c, proto.MethodTaskGet, proto.TaskGetParams{Task: task})
}

// TaskAwait waits for a task (at most timeoutMs when non-nil).
func (c *Client) TaskAwait(ctx context.Context, task string, timeoutMs *int64) (proto.TaskRecord, error) {
	return call[proto.TaskRecord](ctx, c, proto.MethodTaskAwait, proto.TaskAwaitParams{Task: task, TimeoutMs: timeoutMs})
}

// TaskCancel requests cancellation.
func (c *Client) TaskCancel(ctx context.Context, task string) (proto.TaskCancelResult, error) {
	return call[proto.TaskCancelResult](ctx, c, proto.MethodTaskCancel, proto.TaskCancelParams{Task: task})
}

// TaskSuspend stops a task's processes.
func (c *Client) TaskSuspend(ctx context.Context, task string) (proto.TaskRecord, error) {
	return call[proto.TaskRecord](ctx, c, proto.MethodTaskSuspend, proto.TaskSuspendParams{Task: task})
}

// TaskResume continues a task's processes.
func (c *Client) TaskResume(ctx context.Context, task string) (proto.TaskRecord, error) {
	return call[proto.TaskRecord](ctx, c, proto.MethodTaskResume, proto.TaskResumeParams{Task: task})
}

// TaskOutput reads a task's output ring.
func (c *Client) TaskOutput(ctx context.Context, p proto.TaskOutputParams) (proto.TaskOutputResult, error) {
	return call[proto.TaskOutputResult](ctx, c, proto.MethodTaskOutput, p)
}

// EventsRead reads a channel.
func (c *Client) EventsRead(ctx context.Context, p proto.EventsReadParams) (proto.EventsReadResult, error) {
	return call[proto.EventsReadResult](ctx, c, proto.MethodEventsRead, p)
}

// EventsPublish publishes on a user.* channel.
func (c *Client) EventsPublish(ctx context.Context, channel string, payload any) (proto.EventsPublishResult, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return proto.EventsPublishResult{}, fmt.Errorf("encode payload: %w", err)
	}
	return call[proto.EventsPublishResult](ctx, c, proto.MethodEventsPublish, proto.EventsPublishParams{Channel: channel, Payload: raw})
}

// EventsSubscribe subscribes this connection to a channel.
func (c *Client) EventsSubscribe(ctx context.Context, p proto.EventsSubscribeParams) (proto.EventsSubscribeResult, error) {
	return call[proto.EventsSubscribeResult](ctx, c, proto.MethodEventsSubscribe, p)
}

// EventsUnsubscribe ends a subscription.
func (c *Client) EventsUnsubscribe(ctx context.Context, channel string) (proto.EventsSubscribeResult, error) {
	return call[proto.EventsSubscribeResult](ctx, c, proto.MethodEventsUnsubscribe, proto.EventsUnsubscribeParams{Channel: channel})
}

// Explain derives a program's effects without running it.
func (c *Client) Explain(ctx context.Context, p proto.ExplainParams) (proto.ExplainResult, error) {
	return call[proto.ExplainResult](ctx, c, proto.MethodExplain, p)
}
