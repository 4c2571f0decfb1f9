// Package kerneltest runs a real kernel in-process for tests: a [kernel.Server] with an
// in-memory journal (or a state directory), and typed clients connected over net.Pipe or a
// real Unix socket in t.TempDir(). The corpus harness uses [Kernel.Run] to evaluate each case
// through the wire and decode the value back.
//
// Imports: kernel, kernel/client, kernel/proto, kernel/jsonrpc, lang/*.
package kerneltest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Options configures [New]. The zero value (or nil) is an ephemeral kernel at "/" with no
// environment, a client over net.Pipe attached to session "default".
type Options struct {
	// Cwd is the cwd new sessions start in (the corpus case's temp dir).
	Cwd string
	// Env seeds new sessions' environment.
	Env []string
	// Session is the session the first client attaches to; "" means "default".
	Session string
	// Socket serves on a real Unix socket in t.TempDir() instead of net.Pipe.
	Socket bool
	// Kernel holds further kernel options (journal, evaluator factory, …); Cwd, Env and
	// Socket above override its fields.
	Kernel *kernel.Options
	// NoAttach leaves the first client unattached.
	NoAttach bool
}

// Kernel is a running in-process kernel with one attached client.
type Kernel struct {
	Server *kernel.Server
	Client *client.Client
	// Attach is the first client's attach result (zero with NoAttach).
	Attach proto.SessionAttachResult
	// SocketPath is set when Options.Socket was given.
	SocketPath string

	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	served chan struct{}
}

// New starts a kernel and connects the first client; both stop when the test ends.
func New(t testing.TB, opts *Options) *Kernel {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	var ko kernel.Options
	if o.Kernel != nil {
		ko = *o.Kernel
	}
	if o.Cwd != "" {
		ko.Cwd = o.Cwd
	}
	if o.Env != nil {
		ko.Env = o.Env
	}
	srv, err := kernel.New(&ko)
	if err != nil {
		t.Fatalf("kerneltest: new kernel: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kernel{Server: srv, t: t, ctx: ctx, cancel: cancel, served: make(chan struct{})}
	if o.Socket {
		k.SocketPath = filepath.Join(t.TempDir(), "k.sock")
		ln, err := kernel.Listen(k.SocketPath, os.Geteuid())
		if err != nil {
			t.Fatalf("kerneltest: listen: %v", err)
		}
		go func() {
			defer close(k.served)
			if err := srv.Serve(ctx, ln); err != nil {
				t.Errorf("kerneltest: serve: %v", err)
			}
		}()
	} else {
		close(k.served)
	}
	t.Cleanup(k.Close)
	k.Client = k.Dial()
	if !o.NoAttach {
		k.Attach = k.AttachClient(k.Client, o.Session)
	}
	return k
}

// Dial connects another client (unattached); it is closed when the test ends.
func (k *Kernel) Dial() *client.Client {
	k.t.Helper()
	var c *client.Client
	if k.SocketPath != "" {
		var err error
		c, err = client.Dial(k.ctx, k.SocketPath, nil)
		if err != nil {
			k.t.Fatalf("kerneltest: dial: %v", err)
		}
	} else {
		a, b := net.Pipe()
		go k.Server.ServeConn(k.ctx, a)
		c = client.New(b, nil)
	}
	k.t.Cleanup(func() { c.Close() })
	return c
}

// AttachClient attaches c to session (tokenless).
func (k *Kernel) AttachClient(c *client.Client, session string) proto.SessionAttachResult {
	k.t.Helper()
	res, err := c.Attach(k.ctx, proto.SessionAttachParams{Session: session})
	if err != nil {
		k.t.Fatalf("kerneltest: attach: %v", err)
	}
	return res
}

// Close stops the kernel (idempotent).
func (k *Kernel) Close() {
	k.cancel()
	<-k.served
	k.Server.Close()
}

// Context is cancelled when the kernel closes.
func (k *Kernel) Context() context.Context { return k.ctx }

// Exec runs src in statement position on the first client and returns the raw reply.
func (k *Kernel) Exec(src string) (proto.ExecResult, error) {
	ctx, cancel := context.WithTimeout(k.ctx, time.Minute)
	defer cancel()
	return k.Client.Exec(ctx, proto.ExecParams{Src: &src})
}

// wideElide keeps values inline as far as the kernel allows.
func wideElide() *proto.Elide {
	big, many := proto.DefaultElide.HardCap, 1<<30
	return &proto.Elide{MaxBytes: &big, MaxRows: &many, MaxItems: &many}
}

// Run evaluates src through the wire (statement position, like a script) and decodes the
// value. Language failures come back as *diag.Error: parse errors with Code parse_error, and
// raised errors rebuilt from the stored error value (code, message, hint, span, status).
// A value too large to travel inline (over 64 KiB encoded) is an error naming its ref.
func (k *Kernel) Run(src string) (value.Value, error) {
	ctx, cancel := context.WithTimeout(k.ctx, time.Minute)
	defer cancel()
	res, err := k.Client.Exec(ctx, proto.ExecParams{Src: &src, Elide: wideElide()})
	if err != nil {
		return nil, k.languageError(ctx, err)
	}
	return decodeInline(res.Ref, res.Value)
}

func decodeInline(ref string, raw json.RawMessage) (value.Value, error) {
	var tag struct {
		Tag string `json:"$"`
	}
	if json.Unmarshal(raw, &tag) == nil && tag.Tag == "ref" {
		return nil, errors.New("kerneltest: value of " + ref + " is too large to travel inline")
	}
	return kernel.DecodeWire(raw)
}

// languageError maps RPC errors back to language errors where they are ones.
func (k *Kernel) languageError(ctx context.Context, err error) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return err
	}
	switch rpc.Code {
	case proto.CodeParseError:
		var d proto.ParseErrorData
		_ = json.Unmarshal(rpc.Data, &d)
		return &diag.Error{Code: diag.ParseError, Msg: rpc.Message, Hint: d.Hint, Span: diag.Span{Start: d.Span.Start, End: d.Span.End}}
	case proto.CodeRaised:
		var d proto.RaisedData
		_ = json.Unmarshal(rpc.Data, &d)
		got, gerr := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: d.Ref})
		if gerr == nil {
			if v, derr := kernel.DecodeWire(got.Value); derr == nil {
				if ev, ok := v.(*value.ErrorVal); ok && ev.Err != nil {
					return ev.Err
				}
			}
		}
		e := &diag.Error{Code: d.Code, Msg: rpc.Message, Hint: d.Hint, Status: d.Status}
		if d.Span != nil {
			e.Span = diag.Span{Start: d.Span.Start, End: d.Span.End}
		}
		return e
	}
	return err
}
