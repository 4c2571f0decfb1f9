package kernel

import (
	"context"
	"sync"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// connState is one client connection: its id, its attachment and its subscriptions.
type connState struct {
	id   int64
	conn *jsonrpc.Conn

	mu   sync.Mutex
	att  *attachment
	it   map[*session]int // the last out:N this connection produced, per session
	subs map[string]*subscription
}

// attachment binds a connection to a session as an identity.
type attachment struct {
	sess *session
	id   Identity
	tty  bool
	// journal, readAll and approves are the policy's answers for event visibility, fixed at
	// attach.
	journal  bool
	readAll  bool
	approves func(owner string) bool
}

func (a *attachment) viewer() viewer {
	return viewer{principal: a.id.Principal, session: a.sess.key.name, local: a.id.Local, journal: a.journal, readAll: a.readAll, approves: a.approves}
}

type connStateKey struct{}

func connOf(ctx context.Context) *connState {
	cs, _ := ctx.Value(connStateKey{}).(*connState)
	return cs
}

func (s *Server) newConn() *connState {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextClient++
	cs := &connState{id: s.nextClient, it: map[*session]int{}, subs: map[string]*subscription{}}
	s.conns[cs] = struct{}{}
	return cs
}

// dropConn forgets a finished connection and its subscriptions; sessions and tasks survive.
func (s *Server) dropConn(cs *connState) {
	s.mu.Lock()
	delete(s.conns, cs)
	s.mu.Unlock()
	cs.mu.Lock()
	subs := cs.subs
	cs.subs = map[string]*subscription{}
	cs.mu.Unlock()
	for _, sub := range subs {
		s.bus.unsubscribe(sub)
	}
}

func (cs *connState) attachment() *attachment {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.att
}

func (cs *connState) setIt(sess *session, n int) {
	cs.mu.Lock()
	cs.it[sess] = n
	cs.mu.Unlock()
}

func (cs *connState) lastIt(sess *session) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.it[sess]
}

func errNotAttached() error { return jsonrpc.Errorf(proto.CodeNotAttached, proto.MsgNotAttached) }

// open registers a handler that works without attachment.
func open[P, R any](r *jsonrpc.Router, method string, f func(ctx context.Context, cs *connState, p P) (R, error)) {
	r.Register(method, jsonrpc.Typed(func(ctx context.Context, _ *jsonrpc.Request, p P) (R, error) {
		return f(ctx, connOf(ctx), p)
	}))
}

// attached registers a handler that needs session.attach first; the check runs before params
// are decoded, so an unattached caller learns that before anything else.
func attached[P, R any](r *jsonrpc.Router, method string, f func(ctx context.Context, cs *connState, a *attachment, p P) (R, error)) {
	typed := jsonrpc.Typed(func(ctx context.Context, _ *jsonrpc.Request, p P) (R, error) {
		cs := connOf(ctx)
		return f(ctx, cs, cs.attachment(), p)
	})
	r.Register(method, jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if cs := connOf(ctx); cs == nil || cs.attachment() == nil {
			return nil, errNotAttached()
		}
		return typed.Handle(ctx, req)
	}))
}

// routes builds the method table.
func (s *Server) routes() *jsonrpc.Router {
	r := jsonrpc.NewRouter()
	open(r, proto.MethodSessionAttach, s.handleSessionAttach)
	open(r, proto.MethodParse, s.handleParse)
	open(r, proto.MethodComplete, s.handleComplete)
	attached(r, proto.MethodSessionEnv, s.handleSessionEnv)
	attached(r, proto.MethodSessionCwd, s.handleSessionCwd)
	attached(r, proto.MethodSessionReef, s.handleSessionReef)
	attached(r, proto.MethodExplain, s.handleExplain)
	attached(r, proto.MethodExec, s.handleExec)
	attached(r, proto.MethodValueGet, s.handleValueGet)
	attached(r, proto.MethodBlobGet, s.handleBlobGet)
	attached(r, proto.MethodStreamPull, s.handleStreamPull)
	attached(r, proto.MethodJournalQuery, s.handleJournalQuery)
	attached(r, proto.MethodTaskList, s.handleTaskList)
	attached(r, proto.MethodTaskGet, s.handleTaskGet)
	attached(r, proto.MethodTaskAwait, s.handleTaskAwait)
	attached(r, proto.MethodTaskCancel, s.handleTaskCancel)
	attached(r, proto.MethodTaskSuspend, s.handleTaskSuspend)
	attached(r, proto.MethodTaskResume, s.handleTaskResume)
	attached(r, proto.MethodTaskOutput, s.handleTaskOutput)
	attached(r, proto.MethodEventsRead, s.handleEventsRead)
	attached(r, proto.MethodEventsPublish, s.handleEventsPublish)
	attached(r, proto.MethodEventsSubscribe, s.handleEventsSubscribe)
	attached(r, proto.MethodEventsUnsubscribe, s.handleEventsUnsubscribe)
	attached(r, proto.MethodPlanGet, s.handlePlanGet)
	attached(r, proto.MethodPlanList, s.handlePlanList)
	attached(r, proto.MethodPlanApply, s.handlePlanApply)
	attached(r, proto.MethodCapRequest, s.handleCapRequest)
	attached(r, proto.MethodPTYOpen, s.handlePTYOpen)
	attached(r, proto.MethodPTYSend, s.handlePTYSend)
	attached(r, proto.MethodPTYRead, s.handlePTYRead)
	attached(r, proto.MethodPTYResize, s.handlePTYResize)
	attached(r, proto.MethodPTYClose, s.handlePTYClose)
	attached(r, proto.MethodPTYList, s.handlePTYList)
	return r
}
