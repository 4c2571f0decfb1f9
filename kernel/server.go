package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
)

// Server is one kernel: its sessions, tasks, event bus and journal. Every counter (client,
// task, PTY ids) lives here, so several servers can share a process (tests do).
type Server struct {
	opts    Options
	log     *slog.Logger
	journal Journal
	bus     *bus
	auth    Authenticator
	policy  Policy
	lp      *leashPolicy // the Leash policy and sandbox; nil when Options.Policy is another Policy
	plans   *planStore
	euid    int
	started time.Time
	router  *jsonrpc.Router
	blobs   blobCache
	ptys    *ptyTable

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu         sync.Mutex
	sessions   map[sessKey]*session
	tasks      map[int64]*task
	nextTask   int64
	nextClient int64
	conns      map[*connState]struct{}
	closed     bool
	wg         sync.WaitGroup // connection handlers
	workers    sync.WaitGroup // session workers
}

// New builds a server from opts (nil means an ephemeral kernel).
func New(opts *Options) (*Server, error) {
	s := &Server{sessions: map[sessKey]*session{}, tasks: map[int64]*task{}, conns: map[*connState]struct{}{}}
	if opts != nil {
		s.opts = *opts
	}
	s.log = s.opts.logger()
	s.euid = s.opts.euid()
	s.started = s.opts.now()
	s.journal = s.opts.Journal
	if s.journal == nil {
		j, err := openJournal(s.opts.StateDir, s.log)
		if err != nil {
			return nil, err
		}
		s.journal = j
	}
	s.auth = s.opts.Auth
	if s.auth == nil && s.opts.TokenStore != "" {
		s.auth = TokenAuthenticator(s.opts.TokenStore)
	}
	s.plans = newPlanStore()
	s.policy = s.opts.Policy
	if s.policy == nil {
		lp, err := newLeashPolicy(s)
		if err != nil {
			return nil, err
		}
		s.policy, s.lp = lp, lp
	}
	if s.opts.Cwd == "" {
		s.opts.Cwd = "/"
	}
	s.bus = newBus(s.journal, func() int64 { return s.opts.now().UnixNano() }, s.log)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ptys = newPTYTable(s)
	s.router = s.routes()
	return s, nil
}

// openJournal opens the durable journal under dir, or a memory journal when dir is "".
func openJournal(dir string, log *slog.Logger) (Journal, error) {
	if dir == "" {
		return NewMemJournal(), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	return openSQLJournal(filepath.Join(dir, "journal.db"), log)
}

// Run is the whole daemon: listen on opts.Socket with full socket hygiene, call opts.Ready,
// serve until ctx is cancelled, then shut down (tasks' process groups killed, socket removed).
func Run(ctx context.Context, opts *Options) error {
	if opts == nil || opts.Socket == "" {
		return errors.New("kernel: no socket path")
	}
	s, err := New(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := Listen(opts.Socket, s.euid)
	if err != nil {
		return err
	}
	ino := inode(opts.Socket)
	defer removeSocket(opts.Socket, ino)
	if opts.Ready != nil {
		opts.Ready(opts.Socket)
	}
	return s.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx is cancelled or ln fails; it closes ln. Peers of
// a Unix listener whose uid differs from the kernel's are dropped before any byte is read.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer ln.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || s.ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				s.log.Warn("kernel: accept", "error", err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		if uc, ok := c.(*net.UnixConn); ok {
			uid, err := peerUID(uc)
			if err != nil || uid != s.euid {
				s.log.Warn("kernel: dropping peer", "uid", uid, "error", err)
				c.Close()
				continue
			}
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.ServeConn(ctx, quiet(c))
		}()
	}
}

// quiet makes a connection's reads and writes raw system calls that leave the runtime's
// monitor thread asleep (see jsonrpc.QuietIO); together with the redo log's raw append
// (journal.appendRedo) a quick exec makes no call that wakes it.
func quiet(c net.Conn) io.ReadWriteCloser {
	if q := jsonrpc.QuietIO(c); q != nil {
		return q
	}
	return c
}

// ServeConn serves one client stream (a socket, or one end of net.Pipe in tests) until it
// ends. Requests of a connection are answered strictly in order.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) {
	cs := s.newConn()
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return s.router.Handle(context.WithValue(ctx, connStateKey{}, cs), req)
	})
	cs.conn = jsonrpc.NewConn(rwc, rwc, &jsonrpc.Options{Handler: h, Logger: s.log})
	stop := context.AfterFunc(s.ctx, func() { cs.conn.Close() })
	defer stop()
	if err := cs.conn.Run(ctx); err != nil {
		s.log.Debug("kernel: connection ended", "client", cs.id, "error", err)
	}
	s.dropConn(cs)
}

// Close stops every task (killing their process groups), closes every PTY (SIGHUP, then
// SIGTERM, then SIGKILL to each group), ends all connections and closes the journal. It
// waits for connection handlers to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	tasks := make([]*task, 0, len(s.tasks))
	for _, t := range s.tasks {
		tasks = append(tasks, t)
	}
	s.mu.Unlock()
	for _, t := range tasks {
		t.kill()
	}
	s.closePTYs()
	s.cancel()
	s.wg.Wait()
	// Evaluations see their contexts cancelled; let them finish their journal rows before the
	// journal closes, but never hang shutdown on an evaluator that ignores cancellation.
	drained := make(chan struct{})
	go func() { s.workers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(workerDrain):
		s.log.Warn("kernel: evaluations still running at shutdown")
	}
	return s.journal.Close()
}

// workerDrain bounds how long Close waits for running evaluations to return.
const workerDrain = 10 * time.Second
