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

	// The ordered items (see run) are served one at a time: omu is held while one is served and
	// inflight counts those read but not yet done. The reader serves an item itself when
	// nothing is ahead of it, else queues it for the ordered worker.
	omu      sync.Mutex
	inflight atomic.Int64
	// owg counts what Run waits for before it ends: ordered workers, items a reader serves
	// itself, and concurrent-mode requests (a request answered early is not waited for).
	owg sync.WaitGroup
	// worker starts another ordered worker; set by run, used when a request served by the
	// ordered worker is answered early (see [AnswerEarly]).
	worker func()
	// reader starts another reader goroutine when the current one is taken over (see
	// serveInline); set by run.
	reader func()
	// inline is the item the reader is serving itself, if any; it is taken over after
	// takeoverAfter (see takeoverTick), or at once when a handler calls or answers early.
	inline   atomic.Pointer[running]
	takeover *time.Timer
	armed    atomic.Bool  // takeover is pending (or its tick is running)
	arms     atomic.Int64 // how often takeover was armed, for tests
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
	c := r.conn
	c.writeResponse(r.req.ID, raw, nil)
	if r.ordered {
		c.releaseOrdered()
		if r.byReader {
			c.owg.Done()
			c.takeOver(r) // reading goes on elsewhere; this goroutine keeps the handler
		} else {
			c.worker() // takes over the ordered worker's slot
		}
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

	// Everything that must stay ordered (in in-order mode every request, in concurrent mode
	// notifications, and in both error replies) is an ordered item. The reader serves an item
	// itself when nothing is ahead of it: a quick request so costs no hand-over to another
	// goroutine. Otherwise the item waits in queue for the ordered worker.
	queue := make(chan work, c.opts.QueueLen)
	// A worker whose request was answered early leaves the queue (and its wait-group slot)
	// to the worker started by AnswerEarly and ends when its handler returns.
	c.worker = func() {
		go func() {
			for w := range queue {
				c.omu.Lock()
				if c.perform(w, nil) {
					return
				}
				c.releaseOrdered()
			}
			c.owg.Done()
		}()
	}
	c.owg.Add(1)
	c.worker()
	rd := &reading{
		fr:    NewFrameReader(c.r, c.opts.MaxFrame),
		queue: queue,
		slots: make(chan struct{}, c.opts.MaxConcurrent),
		idle:  make(chan func()),
		end:   make(chan error, 1),
	}
	c.reader = func() { go c.readLoop(rd) }
	c.takeover = time.AfterFunc(time.Hour, c.takeoverTick)
	c.takeover.Stop()
	c.reader()
	readErr := <-rd.end
	close(queue)
	c.owg.Wait()
	c.shutdown()
	if errors.Is(readErr, ErrClosed) {
		return nil
	}
	return readErr
}

// reading is the state the reader role carries from one goroutine to the next.
type reading struct {
	fr    *FrameReader
	queue chan work
	slots chan struct{} // concurrent mode: bounds running requests
	idle  chan func()   // concurrent mode: a send succeeds only when a worker waits
	end   chan error    // the reader that sees the end of input reports it here
}

// readLoop reads and dispatches frames while this goroutine is the reader: until the input
// ends (reported on rd.end) or the role passes to another goroutine (see takeOver).
func (c *Conn) readLoop(rd *reading) {
	var readErr error
	defer func() {
		if readErr != errLostRole {
			rd.end <- readErr
		}
	}()
	for {
		line, err := rd.fr.ReadFrame()
		if err != nil {
			var tooBig *FrameTooLargeError
			switch {
			case errors.As(err, &tooBig):
				// Framing is lost mid-line, so after answering (behind the requests already
				// read) there is no safe way to go on.
				c.order(rd, work{reply: &decodeError{err: Errorf(CodeInvalidRequest, "%s", tooBig.Error())}})
				readErr = err
			case errors.Is(err, io.EOF):
				if c.opts.CancelOnEOF {
					c.cancel()
				}
			case !c.isClosed():
				readErr = err
				c.cancel()
			}
			return
		}
		msg, derr := decode(line)
		if derr != nil {
			if derr.noReply {
				c.log.Warn("jsonrpc: dropping malformed response", "error", derr.err.Message)
				continue
			}
			if _, stop := c.order(rd, work{reply: derr}); stop { // error replies are never taken over
				return
			}
			continue
		}
		if msg.resp != nil {
			c.deliver(msg.resp)
			continue
		}
		req := msg.req
		if c.opts.Mode == ModeConcurrent && !req.IsNotification() {
			if !c.dispatch(rd, req) {
				return
			}
			continue
		}
		lost, stop := c.order(rd, work{req: req})
		if lost {
			readErr = errLostRole
			return
		}
		if stop {
			return
		}
	}
}

// errLostRole marks a reader that handed its role on; it reports nothing on rd.end.
var errLostRole = errors.New("jsonrpc: reader role handed on")

// dispatch runs a concurrent-mode request on an idle worker or a new one; false means the
// connection is done.
func (c *Conn) dispatch(rd *reading, req *Request) bool {
	select {
	case rd.slots <- struct{}{}:
	case <-c.ctx.Done():
	}
	if c.ctx.Err() != nil {
		return false
	}
	run := &running{conn: c, req: req}
	ctx := c.register(run)
	c.owg.Add(1)
	job := func() {
		defer func() { <-rd.slots; c.owg.Done() }()
		c.serveCtx(ctx, run, req)
	}
	select {
	case rd.idle <- job: // a worker was waiting
	default:
		go c.concurrentWorker(job, rd.idle)
	}
	return true
}

// order serves an ordered item on the reader when nothing is ahead of it, else queues it. lost
// means the reader role passed to another goroutine meanwhile; stop that the connection is done.
func (c *Conn) order(rd *reading, w work) (lost, stop bool) {
	if c.inflight.Add(1) == 1 {
		return c.serveInline(w), false
	}
	select {
	case rd.queue <- w:
		return false, false
	case <-c.ctx.Done():
		c.inflight.Add(-1)
		return false, true
	}
}

// releaseOrdered ends the current ordered item, letting the next one run.
func (c *Conn) releaseOrdered() {
	c.omu.Unlock()
	c.inflight.Add(-1)
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

// perform serves one ordered item, as run (nil: a new one, for the ordered worker); true means
// the request was answered early and the ordered slot has been handed on.
func (c *Conn) perform(w work, run *running) bool {
	if c.ctx.Err() != nil {
		// The peer is gone or the connection was closed: running a queued request now (an
		// exec, say) would do work nobody can receive.
		return false
	}
	if w.reply != nil {
		c.writeResponse(w.reply.id, nil, w.reply.err)
		return false
	}
	if run == nil {
		run = &running{conn: c, req: w.req, ordered: true}
	}
	ctx := c.register(run)
	return c.serveCtx(ctx, run, w.req)
}

// register gives a request its context and records it so [Conn.CancelRequest] can reach it.
func (c *Conn) register(run *running) context.Context {
	ctx, cancel := context.WithCancel(context.WithValue(c.ctx, connKey{}, run))
	run.cancel = cancel
	if run.req.ID != nil {
		c.mu.Lock()
		c.active[idKey(run.req.ID)] = run
		c.mu.Unlock()
	}
	return ctx
}

// running is one request being served: its cancel handle, and whether it was answered early.
type running struct {
	conn     *Conn
	req      *Request
	ordered  bool // an ordered item (holds the ordered slot while it runs)
	byReader bool // served by the reader goroutine itself
	cancel   context.CancelFunc
	state    atomic.Int32
	reading  atomic.Int32               // byReader: whether its goroutine is still the reader
	start    time.Time                  // byReader: when the reader began serving it
	late     atomic.Pointer[lateAnswer] // byReader: an answer due after a while, see AnswerAfter
}

const (
	readerServing = iota + 1
	readerDone    // the handler returned; the goroutine reads on
	readerTaken   // another goroutine became the reader
)

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
	if r := c.inline.Load(); r != nil {
		c.takeOver(r) // the reply can only arrive through a reader that is not busy serving
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return ErrClosed
		}
		if resp.Error != nil {
			return resp.Error
		}
		if raw, ok := result.(*json.RawMessage); ok {
			*raw = resp.Result // validated by the frame scan, and a copy of its own
			return nil
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
	c.takeover.Stop()
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
