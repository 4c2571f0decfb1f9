package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// backend owns the facade's kernel connections. Connections are made
// lazily, attached to the configured session, and replaced when the kernel
// goes away, so a restarted kernel is picked up by the next call.
//
// The kernel answers one connection's requests strictly in order, so a
// long await would block everything behind it; calls therefore borrow a
// connection from a small pool, each attached to the same session.
type backend struct {
	opts *Options

	mu   sync.Mutex
	idle []*client.Client
	// kernel is the last attach result, for diagnostics.
	kernel *proto.SessionAttachResult
}

func newBackend(opts *Options) *backend { return &backend{opts: opts} }

// maxIdle bounds the connections kept for reuse.
const maxIdle = 4

// connect dials (or, with autostart, starts) a kernel and attaches one new
// connection.
func (b *backend) connect(ctx context.Context, onEvent func(proto.Event), autostart bool) (*client.Client, error) {
	c, err := client.Activate(ctx, b.opts.Socket, &client.ActivateOptions{
		NoAutostart: b.opts.NoAutostart || !autostart,
		Executable:  b.opts.Executable,
		Argv0:       b.opts.Argv0,
		Client:      &client.Options{OnEvent: onEvent, Logger: b.opts.Logger},
	})
	if err != nil {
		return nil, err
	}
	p := proto.SessionAttachParams{Session: b.opts.Session, Client: &proto.Client{Kind: "mcp"}}
	if b.opts.Token != "" {
		tok := b.opts.Token
		p.Token = &tok
	}
	res, err := c.Attach(ctx, p)
	if err != nil {
		c.Close()
		return nil, err
	}
	b.mu.Lock()
	b.kernel = &res
	b.mu.Unlock()
	return c, nil
}

// get borrows an attached connection.
func (b *backend) get(ctx context.Context) (*client.Client, error) {
	b.mu.Lock()
	for len(b.idle) > 0 {
		c := b.idle[len(b.idle)-1]
		b.idle = b.idle[:len(b.idle)-1]
		select {
		case <-c.Done():
			continue // the kernel went away; drop it
		default:
		}
		b.mu.Unlock()
		return c, nil
	}
	b.mu.Unlock()
	return b.connect(ctx, nil, true)
}

// put returns a connection to the pool (or closes it when the pool is full
// or the connection broke).
func (b *backend) put(c *client.Client, broken bool) {
	if broken {
		c.Close()
		return
	}
	b.mu.Lock()
	if len(b.idle) < maxIdle {
		b.idle = append(b.idle, c)
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	c.Close()
}

// call runs one kernel method on a pooled connection and returns its raw
// result. A kernel that vanished mid-call is retried once on a fresh
// connection, since a restart loses nothing the call depends on except for
// non-idempotent methods, which are not retried.
func (b *backend) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	for attempt := 0; ; attempt++ {
		c, err := b.get(ctx)
		if err != nil {
			return nil, &connError{err}
		}
		var raw json.RawMessage
		err = c.Call(ctx, method, params, &raw)
		broken := errors.Is(err, jsonrpc.ErrClosed)
		b.put(c, broken)
		if broken && attempt == 0 && idempotent(method) {
			continue
		}
		if broken {
			return nil, &connError{fmt.Errorf("kernel connection lost during %s", method)}
		}
		return raw, err
	}
}

func idempotent(method string) bool {
	switch method {
	case proto.MethodExec, proto.MethodPlanApply, proto.MethodCapRequest, proto.MethodPTYOpen,
		proto.MethodPTYSend, proto.MethodPTYClose, proto.MethodTaskCancel, proto.MethodEventsPublish:
		return false
	}
	return true
}

// close drops every pooled connection.
func (b *backend) close() {
	b.mu.Lock()
	idle := b.idle
	b.idle = nil
	b.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// connError is a failure to reach the kernel at all; tools report it as
// an isError result with code -32603 so the client sees why.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }
