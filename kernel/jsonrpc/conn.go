package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Mode chooses how a connection runs the requests it receives.
type Mode int

const (
	// ModeInOrder handles requests and notifications of one connection strictly one after the
	// other, in arrival order. Responses to the connection's own Calls and pushes written with
	// Notify still flow while a handler runs. The kernel uses it.
	ModeInOrder Mode = iota
	// ModeConcurrent runs each request in its own goroutine; notifications still run one at a
	// time in arrival order, on their own worker, so a cancellation notification is processed
	// while a long call is running. The MCP facade uses it.
	ModeConcurrent
)

// ErrClosed is returned by Call and Notify once the connection is closed or its stream ended.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Options configures a [Conn]. The zero value (or nil) means: 16 MiB frames, in-order handling,
// every incoming method unknown, logging to [slog.Default].
type Options struct {
	// MaxFrame caps one incoming frame in bytes; 0 means [DefaultMaxFrame].
	MaxFrame int
	// Mode selects in-order or concurrent request handling.
	Mode Mode
	// Handler serves incoming requests and notifications; nil answers every request -32601.
	Handler Handler
	// CancelOnEOF cancels the connection context as soon as the input ends. By default
	// requests already read are still answered first (a client may half-close after writing,
	// as `printf … | shoal mcp` does) and the context is cancelled when they are done.
	CancelOnEOF bool
	// Logger receives handler panics, dropped responses and write failures; nil means slog.Default().
	Logger *slog.Logger
	// QueueLen bounds the requests read ahead of the handlers (default 64); when full the
	// reader waits, which pushes back on a flooding peer instead of growing memory.
	QueueLen int
	// MaxConcurrent bounds the requests running at once in ModeConcurrent (default 64); the
	// reader waits for a free slot, for the same reason.
	MaxConcurrent int
}

// Conn is one JSON-RPC connection. All frames are written whole under one mutex, so responses,
// notifications and calls from any number of goroutines never interleave on the wire.
type Conn struct {
	r       io.Reader
	w       io.Writer
	opts    Options
	log     *slog.Logger
	handler Handler

	ctx    context.Context // cancelled on disconnect, Close or a failed write
	cancel context.CancelFunc

	wmu  sync.Mutex
	wbuf []byte

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]chan *Response // client side: outstanding Calls by id
	active  map[string]*running       // server side: running requests by id
	closed  bool
	done    chan struct{}
	runOnce sync.Once
	clOnce  sync.Once

	// worker starts another ordered worker; set by run, used when a request served by the
	// ordered worker is answered early (see [AnswerEarly]).
	worker func()
}

type connKey struct{}

// ConnFromContext returns the connection whose handler received ctx, so a handler can push
// notifications on it; nil outside a handler.
func ConnFromContext(ctx context.Context) *Conn {
	if r, _ := ctx.Value(connKey{}).(*running); r != nil {
		return r.conn
	}
	return nil
}

// AnswerEarly sends result as the response of the request whose handler received ctx while
// that handler goes on running, and reports whether it did; false means the handler has
// already returned (its own result is the answer) or ctx is not a request's. It may be called
// from any goroutine. On an in-order connection the next requests are then served by a new
// worker, so the handler's remaining work no longer holds up the connection (nor its end:
// [Conn.Run] does not wait for it). The handler's own return value is then discarded.
func AnswerEarly(ctx context.Context, result any) bool {
	r, _ := ctx.Value(connKey{}).(*running)
	if r == nil || r.req.IsNotification() {
		return false
	}
	raw, err := marshal(result)
	if err != nil {
		return false
	}
	if !r.state.CompareAndSwap(stateRunning, stateAnswered) {
		return false
	}
	r.conn.writeResponse(r.req.ID, raw, nil)
	if r.ordered {
		r.conn.worker() // takes over the ordered worker's slot
	}
	return true
}

// NewConn wraps a stream. Nothing is read until [Conn.Run] is called. If r or w implement
// io.Closer, [Conn.Close] closes them.
func NewConn(r io.Reader, w io.Writer, opts *Options) *Conn {
	c := &Conn{r: r, w: w, pending: map[string]chan *Response{}, active: map[string]*running{}, done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxFrame <= 0 {
		c.opts.MaxFrame = DefaultMaxFrame
	}
	if c.opts.QueueLen <= 0 {
		c.opts.QueueLen = 64
	}
	if c.opts.MaxConcurrent <= 0 {
		c.opts.MaxConcurrent = 64
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.Default()
	}
	c.handler = c.opts.Handler
	if c.handler == nil {
		c.handler = NewRouter()
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// Context is cancelled when the connection goes away (input error, [Conn.Close], a failed
// write, or the end of input once pending requests are answered).
func (c *Conn) Context() context.Context { return c.ctx }

// Done is closed when [Conn.Run] has finished.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Run reads and dispatches frames until the stream ends, the connection is closed or ctx is
// cancelled, then waits for its handlers and returns. A clean end of input returns nil. Run may
// be called once.
func (c *Conn) Run(ctx context.Context) error {
	err := errors.New("jsonrpc: Run called twice")
	c.runOnce.Do(func() { err = c.run(ctx) })
	return err
}

func (c *Conn) run(ctx context.Context) error {
	defer close(c.done)
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()

	// One worker runs, in arrival order, everything that must stay ordered: in in-order mode
	// every request and error reply, in concurrent mode notifications and error replies.
	var wg sync.WaitGroup
	queue := make(chan work, c.opts.QueueLen)
	// A worker whose request was answered early leaves the queue (and its wait-group slot)
	// to the worker started by AnswerEarly and ends when its handler returns.
	c.worker = func() {
		go func() {
			for w := range queue {
				if c.perform(w) {
					return
				}
			}
			wg.Done()
		}()
	}
	wg.Add(1)
	c.worker()
	enqueue := func(w work) bool {
		select {
		case queue <- w:
			return true
		case <-c.ctx.Done():
			return false
		}
	}

	slots := make(chan struct{}, c.opts.MaxConcurrent)
	idle := make(chan func()) // concurrent mode: a send succeeds only when a worker waits

	fr := NewFrameReader(c.r, c.opts.MaxFrame)
	var readErr error
	for {
		line, err := fr.ReadFrame()
		if err != nil {
			var tooBig *FrameTooLargeError
			switch {
			case errors.As(err, &tooBig):
				// Framing is lost mid-line, so after answering (behind the requests already
				// read) there is no safe way to go on.
				enqueue(work{reply: &decodeError{err: Errorf(CodeInvalidRequest, "%s", tooBig.Error())}})
				readErr = err
			case errors.Is(err, io.EOF):
				if c.opts.CancelOnEOF {
					c.cancel()
				}
			case !c.isClosed():
				readErr = err
				c.cancel()
			}
			break
		}
		msg, derr := decode(line)
		if derr != nil {
			if derr.noReply {
				c.log.Warn("jsonrpc: dropping malformed response", "error", derr.err.Message)
				continue
			}
			if !enqueue(work{reply: derr}) {
				break
			}
			continue
		}
		if msg.resp != nil {
			c.deliver(msg.resp)
			continue
		}
		req := msg.req
		if c.opts.Mode == ModeConcurrent && !req.IsNotification() {
			select {
			case slots <- struct{}{}:
			case <-c.ctx.Done():
			}
			if c.ctx.Err() != nil {
				break
			}
			ctx, run := c.register(req, false)
			wg.Add(1)
			job := func() {
				defer func() { <-slots; wg.Done() }()
				c.serveCtx(ctx, run, req)
			}
			select {
			case idle <- job: // a worker was waiting
			default:
				go c.concurrentWorker(job, idle)
			}
			continue
		}
		if !enqueue(work{req: req}) {
			break
		}
	}
	close(queue)
	wg.Wait()
	c.shutdown()
	if errors.Is(readErr, ErrClosed) {
		return nil
	}
	return readErr
}

// workerIdle is how long a concurrent-mode worker waits for another request before it ends.
const workerIdle = 30 * time.Second

// concurrentWorker serves job, then further requests handed to it through idle, until it has
// been idle for workerIdle or the connection is done. Reusing workers keeps their grown
// stacks: a fresh goroutine per request grew its stack through the JSON codec every time
// (about a tenth of the MCP facade's CPU per call).
func (c *Conn) concurrentWorker(job func(), idle chan func()) {
	job()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		select {
		case job := <-idle:
			job()
			t.Reset(workerIdle)
		case <-t.C:
			return
		case <-c.done:
			return
		}
	}
}

// work is one item for the ordered worker: a request to serve or an error to send.
type work struct {
	req   *Request
	reply *decodeError
}

// perform serves one item of the ordered queue; true means the request was answered early and
// another worker has taken over the queue.
func (c *Conn) perform(w work) bool {
	if c.ctx.Err() != nil {
		// The peer is gone or the connection was closed: running a queued request now (an
		// exec, say) would do work nobody can receive.
		return false
	}
	if w.reply != nil {
		c.writeResponse(w.reply.id, nil, w.reply.err)
		return false
	}
	ctx, run := c.register(w.req, true)
	return c.serveCtx(ctx, run, w.req)
}

// register gives a request its context and records it so [Conn.CancelRequest] can reach it.
// It runs on the reader goroutine, so a cancellation read later always finds it.
func (c *Conn) register(req *Request, ordered bool) (context.Context, *running) {
	run := &running{conn: c, req: req, ordered: ordered}
	ctx, cancel := context.WithCancel(context.WithValue(c.ctx, connKey{}, run))
	run.cancel = cancel
	if req.ID != nil {
		c.mu.Lock()
		c.active[idKey(req.ID)] = run
		c.mu.Unlock()
	}
	return ctx, run
}

// running is one request being served: its cancel handle, and whether it was answered early.
type running struct {
	conn    *Conn
	req     *Request
	ordered bool // served by the ordered worker
	cancel  context.CancelFunc
	state   atomic.Int32
}

const (
	stateRunning  = iota
	stateAnswered // answered early by AnswerEarly
	stateReturned // the handler returned first
)

// serveCtx runs one handler, recovers its panic, and answers unless req is a notification or
// was answered early; it reports the latter.
func (c *Conn) serveCtx(ctx context.Context, run *running, req *Request) (early bool) {
	defer func() {
		run.cancel()
		if req.ID != nil {
			c.mu.Lock()
			if c.active[idKey(req.ID)] == run {
				delete(c.active, idKey(req.ID))
			}
			c.mu.Unlock()
		}
	}()
	result, err := c.call(ctx, req)
	if req.IsNotification() {
		if err != nil {
			c.log.Warn("jsonrpc: notification handler failed", "method", req.Method, "error", err)
		}
		return false
	}
	if !run.state.CompareAndSwap(stateRunning, stateReturned) {
		return true
	}
	if e, isNil := err.(*Error); isNil && e == nil {
		// A handler returning a nil *Error through the error interface meant success;
		// treating it as a failure would replace its result with nothing.
		err = nil
	}
	if err != nil {
		c.writeResponse(req.ID, nil, toError(err, c.log, req.Method))
		return
	}
	raw, merr := marshal(result)
	if merr != nil {
		c.log.Error("jsonrpc: cannot encode result", "method", req.Method, "error", merr)
		c.writeResponse(req.ID, nil, Errorf(CodeInternalError, "internal error: encode result: %v", merr))
		return false
	}
	c.writeResponse(req.ID, raw, nil)
	return false
}

// call invokes the handler, turning a panic into -32603 so one bad request never takes the
// connection (or the daemon) down.
func (c *Conn) call(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: handler panic", "method", req.Method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, "internal error")
		}
	}()
	return c.handler.Handle(ctx, req)
}

// toError maps a handler error to the wire. *Error (possibly wrapped) is sent as is; anything
// else is an internal error whose text is kept because Shoal's clients are local and the text
// is the only clue.
func toError(err error, log *slog.Logger, method string) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	log.Warn("jsonrpc: handler error", "method", method, "error", err)
	return Errorf(CodeInternalError, "%v", err)
}

// CancelRequest cancels the context of the running request whose id is byte-identical to id.
// It reports whether one was found. The MCP facade calls it for notifications/cancelled. If a
// peer reuses an id while the first request still runs, only the newest is reachable.
func (c *Conn) CancelRequest(id json.RawMessage) bool {
	c.mu.Lock()
	run, ok := c.active[idKey(id)]
	c.mu.Unlock()
	if ok {
		run.cancel()
	}
	return ok
}

// Notify sends a notification. It is safe to call from any goroutine, including handlers.
func (c *Conn) Notify(method string, params any) error {
	raw, err := paramsJSON(params)
	if err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return c.writeFrame(func(b []byte) ([]byte, error) { return appendRequest(b, nil, method, raw), nil })
}

// Call sends a request and waits for its response, decoding the result into result (if
// non-nil). An error response is returned as *[Error]. Responses are matched by id while
// [Conn.Run] delivers any incoming notifications to the Handler. Run must be running.
func (c *Conn) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := paramsJSON(params)
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	id := json.RawMessage(strconv.AppendInt(nil, c.nextID.Add(1), 10))
	ch := make(chan *Response, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.pending[idKey(id)] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, idKey(id))
		c.mu.Unlock()
	}()
	if err := c.writeFrame(func(b []byte) ([]byte, error) { return appendRequest(b, id, method, raw), nil }); err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return ErrClosed
		}
		if resp.Error != nil {
			return resp.Error
		}
		if result != nil && resp.Result != nil {
			if err := json.Unmarshal(resp.Result, result); err != nil {
				return fmt.Errorf("call %s: decode result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// deliver hands a response to the waiting Call; an unknown id (a late answer to a cancelled
// Call) is logged and dropped.
func (c *Conn) deliver(resp *Response) {
	c.mu.Lock()
	ch, ok := c.pending[idKey(resp.ID)]
	delete(c.pending, idKey(resp.ID))
	c.mu.Unlock()
	if !ok {
		c.log.Debug("jsonrpc: response for unknown id", "id", string(resp.ID))
		return
	}
	ch <- resp
}

func paramsJSON(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return marshal(params)
}

func (c *Conn) writeResponse(id, result json.RawMessage, e *Error) {
	err := c.writeFrame(func(b []byte) ([]byte, error) { return appendResponse(b, id, result, e) })
	if err != nil && !errors.Is(err, ErrClosed) {
		c.log.Warn("jsonrpc: response not written", "id", string(id), "error", err)
	}
}

// writeFrame encodes into the shared buffer and writes frame plus newline in one Write under
// the lock. A failed write means the peer is gone: the connection context is cancelled.
func (c *Conn) writeFrame(enc func([]byte) ([]byte, error)) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isClosed() {
		return ErrClosed
	}
	b, err := enc(c.wbuf[:0])
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if cap(b) <= 1<<20 {
		c.wbuf = b // keep small buffers; drop huge ones so one big reply does not pin memory
	}
	if _, err := c.w.Write(b); err != nil {
		c.cancel()
		return err
	}
	return nil
}

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// shutdown fails outstanding Calls and marks the connection closed; it runs once Run ends.
func (c *Conn) shutdown() {
	c.cancel()
	c.mu.Lock()
	c.closed = true
	for k, ch := range c.pending {
		close(ch)
		delete(c.pending, k)
	}
	c.mu.Unlock()
	c.closeStreams()
}

// Close cancels the connection context and closes the underlying reader and writer (when they
// are io.Closers), which ends [Conn.Run]. Handlers still running see their contexts cancelled.
func (c *Conn) Close() error {
	c.cancel()
	c.mu.Lock()
	c.closed = true
	for k, ch := range c.pending {
		close(ch)
		delete(c.pending, k)
	}
	c.mu.Unlock()
	return c.closeStreams()
}

func (c *Conn) closeStreams() error {
	var err error
	c.clOnce.Do(func() {
		if rc, ok := c.r.(io.Closer); ok {
			err = rc.Close()
		}
		if wc, ok := c.w.(io.Closer); ok && any(c.w) != any(c.r) {
			if werr := wc.Close(); err == nil {
				err = werr
			}
		}
	})
	return err
}
