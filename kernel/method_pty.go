package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
	"github.com/shoal-sh/shoal/term"
)

// The pty.* methods (AGENT-SURFACE §5.3) are thin: package term owns the processes, screens
// and ids; this file scopes them to the caller's (principal, session), counts them against
// the principal's quota, asks the policy before anything is spawned, maps term's errors onto
// the wire codes and publishes screen changes on pty.N.

// ptyShutdown bounds how long a kernel shutdown waits for its PTYs to end the polite way
// (SIGHUP, SIGTERM, SIGKILL); past it every group still alive is killed outright.
const ptyShutdown = 10 * time.Second

// PTYGate is an optional extension of [Policy]. When the configured Policy implements it,
// pty.open asks it about every spawn after the command has been resolved and before anything
// runs; the Leash policy uses it for proc_spawn pinning (hashing PTYSpawn.Path), the opaque
// verdict, the plan/approve path and the principal's sandbox. A Policy without it gets the
// default gate: the principal's opaque verdict from [Policy.Describe], no pinning, no sandbox.
type PTYGate interface {
	GatePTY(ctx context.Context, id Identity, spawn PTYSpawn) (PTYVerdict, error)
}

// PTYSpawn is the spawn pty.open is about to make.
type PTYSpawn struct {
	Argv    []string // as the caller gave it: cmd, then args
	Path    string   // the executable Argv[0] resolves to through Env's PATH
	Cwd     string
	Env     []string // the child's whole environment, overrides applied
	PlanRef string   // the approved plan the caller retries with, if any
	Session string   // the caller's session name (plans are owned by principal and session)
}

// PTYVerdict is a [PTYGate]'s answer. An error from GatePTY itself (hashing failed, a
// hermetic sandbox that cannot be enforced) is reported as PTY_SPAWN_FAILED.
type PTYVerdict struct {
	// Verdict is a Leash verdict name: "allow", "deny" or "approval_required".
	Verdict string
	// PlanRef names the stored plan to approve when Verdict is approval_required.
	PlanRef string
	// Reason, when set, is the message of a deny or approval_required error.
	Reason string
	// Wrap confines the child (see term.SpawnOptions.Wrap); nil runs it unconfined.
	Wrap func(*exec.Cmd) error
}

// Leash verdict names, as PTYVerdict and PolicyInfo.Opaque spell them.
const (
	verdictAllow    = "allow"
	verdictDeny     = "deny"
	verdictApproval = "approval_required"
)

// ptyTable is the kernel's side of term's manager: the manager owns the PTYs, their ids and
// scoping; the table counts each principal's PTYs against its policy quota [D29]. A PTY
// counts from pty.open until pty.close, even after its program exits.
type ptyTable struct {
	m *term.Manager

	mu     sync.Mutex
	counts map[string]int // open or opening PTYs per principal
}

func newPTYTable(s *Server) *ptyTable {
	m := term.NewManager(&term.ManagerOptions{
		// The policy quota, checked by the table, is the one that applies; term's own
		// must never be the tighter.
		Quota: math.MaxInt,
		Logf: func(format string, args ...any) {
			s.log.Warn("kernel: pty", "detail", fmt.Sprintf(format, args...))
		},
	})
	return &ptyTable{m: m, counts: map[string]int{}}
}

// open reserves a slot of owner's principal (at most limit), then spawns.
func (t *ptyTable) open(ctx context.Context, owner term.Owner, limit int, opts term.SpawnOptions) (*term.PTY, error) {
	t.mu.Lock()
	if t.counts[owner.Principal] >= limit {
		t.mu.Unlock()
		return nil, quotaError("ptys", limit)
	}
	t.counts[owner.Principal]++
	t.mu.Unlock()
	p, err := t.m.Open(ctx, owner, opts)
	if err != nil {
		t.release(owner.Principal)
		return nil, err
	}
	return p, nil
}

func (t *ptyTable) release(principal string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts[principal]--; t.counts[principal] <= 0 {
		delete(t.counts, principal)
	}
}

func (t *ptyTable) get(owner term.Owner, id string) (*term.PTY, error) { return t.m.Get(owner, id) }
func (t *ptyTable) list(owner term.Owner) []term.Info                  { return t.m.List(owner) }

// close removes owner's PTY (freeing its slot) and ends it.
func (t *ptyTable) close(ctx context.Context, owner term.Owner, id string) (*term.ExitStatus, error) {
	st, err := t.m.Close(ctx, owner, id)
	if errors.Is(err, term.ErrUnknownPTY) {
		return nil, err
	}
	// Anything else happened after the PTY left the manager: its slot is free.
	t.release(owner.Principal)
	return st, err
}

// closePTYs ends every PTY for shutdown, so no child outlives the kernel.
func (s *Server) closePTYs() {
	ctx, cancel := context.WithTimeout(context.Background(), ptyShutdown)
	defer cancel()
	s.ptys.m.CloseAll(ctx)
}

func ptyOwner(a *attachment) term.Owner {
	return term.Owner{Principal: a.id.Principal, Session: a.sess.key.name}
}

// ptyGate is the policy check of pty.open: the configured [PTYGate], else the opaque verdict.
func (s *Server) ptyGate(ctx context.Context, a *attachment, sp PTYSpawn) (PTYVerdict, error) {
	if g, ok := s.policy.(PTYGate); ok {
		return g.GatePTY(ctx, a.id, sp)
	}
	// A PTY's program is opaque to the kernel: nothing says what it will do.
	switch op := s.policy.Describe(a.id).Opaque; op {
	case verdictAllow:
		return PTYVerdict{Verdict: verdictAllow}, nil
	case "ask", verdictApproval:
		return PTYVerdict{Verdict: verdictApproval, Reason: "opening a pty needs approval (opaque = ask)"}, nil
	default:
		return PTYVerdict{Verdict: verdictDeny, Reason: "policy denies opaque programs (opaque = " + op + ")"}, nil
	}
}

func (s *Server) handlePTYOpen(ctx context.Context, cs *connState, a *attachment, p proto.PTYOpenParams) (*proto.PTYOpenResult, error) {
	if p.Cmd == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: empty cmd")
	}
	argv := append([]string{p.Cmd}, p.Args...)
	cmdline := strings.Join(argv, " ")
	cwd, env := a.sess.cwdEnv()
	env = term.MergeEnv(env, p.Env)
	spawnFailed := func(msg string) error {
		return jsonrpc.NewError(proto.CodePTYSpawnFailed, msg, map[string]string{"cmd": p.Cmd})
	}
	path, err := term.ResolveCommand(p.Cmd, env, cwd)
	if err != nil {
		return nil, spawnFailed("spawn " + p.Cmd + ": " + err.Error())
	}
	v, err := s.ptyGate(ctx, a, PTYSpawn{Argv: argv, Path: path, Cwd: cwd, Env: env, PlanRef: p.PlanRef, Session: a.sess.key.name})
	if err != nil {
		return nil, spawnFailed("spawn " + p.Cmd + ": " + err.Error())
	}
	switch v.Verdict {
	case verdictAllow:
	case verdictApproval:
		data := map[string]string{"cmd": p.Cmd}
		if v.PlanRef != "" {
			data["plan_ref"] = v.PlanRef
		}
		return nil, jsonrpc.NewError(proto.CodeApprovalRequired, orDefault(v.Reason, "opening this pty needs approval"), data)
	default:
		return nil, jsonrpc.NewError(proto.CodeLeashDenied, orDefault(v.Reason, "policy denies opening this pty"), map[string]string{"cmd": p.Cmd})
	}

	own := owner{principal: a.id.Principal, session: a.sess.key.name}
	pty, err := s.ptys.open(ctx, ptyOwner(a), s.quotas(a.id.Principal).PTYs, term.SpawnOptions{
		Argv:    argv,
		Cwd:     cwd,
		Env:     env,
		Cols:    ptySize(p.Cols),
		Rows:    ptySize(p.Rows),
		Wrap:    v.Wrap,
		OnEvent: func(e term.Event) { s.publishPTY(own, e) },
	})
	if err != nil {
		var je *jsonrpc.Error
		switch {
		case errors.As(err, &je):
			return nil, je
		case errors.Is(err, term.ErrClosed):
			return nil, spawnFailed("kernel is shutting down")
		}
		return nil, ptyError(err, "")
	}
	info := pty.Info()
	return &proto.PTYOpenResult{PTYID: info.ID, Pid: info.Pid, Cols: info.Cols, Rows: info.Rows, Cmd: cmdline}, nil
}

// ptySize clamps an explicit size to 1..1000; absent stays 0, term's default.
func ptySize(n *int) int {
	if n == nil {
		return 0
	}
	return min(max(*n, 1), term.MaxSize)
}

func (s *Server) handlePTYSend(ctx context.Context, cs *connState, a *attachment, p proto.PTYSendParams) (*proto.PTYSendResult, error) {
	pty, err := s.ptys.get(ptyOwner(a), p.PTYID)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	in, err := term.ParseInput(p.Input)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	n, err := pty.Send(ctx, in)
	if err != nil {
		if errors.Is(err, term.ErrUnknownPTY) || errors.Is(err, term.ErrInvalidInput) {
			return nil, ptyError(err, p.PTYID)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error(), map[string]any{"pty_id": p.PTYID, "sent": n})
	}
	return &proto.PTYSendResult{PTYID: pty.ID(), Sent: n}, nil
}

func (s *Server) handlePTYRead(ctx context.Context, cs *connState, a *attachment, p proto.PTYReadParams) (*proto.PTYReadResult, error) {
	pty, err := s.ptys.get(ptyOwner(a), p.PTYID)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	var opts term.ReadOptions
	if p.WaitMs != nil {
		opts.WaitMs = min(max(*p.WaitMs, 0), int(term.MaxWait/time.Millisecond))
	}
	if p.UntilText != nil {
		opts.UntilText = *p.UntilText
	}
	sc, err := pty.Read(ctx, opts)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	res := &proto.PTYReadResult{
		PTYID:     pty.ID(),
		Cmd:       strings.Join(pty.Argv(), " "),
		Cols:      sc.Cols,
		Rows:      sc.Rows,
		Cursor:    proto.PTYCursor{Row: sc.Cursor.Row, Col: sc.Cursor.Col, Hidden: sc.Cursor.Hidden},
		Screen:    sc.Lines,
		Changed:   sc.Changed,
		Alive:     sc.Alive,
		Exit:      ptyExit(sc.Exit),
		Pid:       sc.Pid,
		AltScreen: sc.AltScreen,
	}
	if p.UntilText != nil {
		// The empty text is on every screen.
		m := sc.Matched || *p.UntilText == ""
		res.Matched = &m
	}
	return res, nil
}

func (s *Server) handlePTYResize(ctx context.Context, cs *connState, a *attachment, p proto.PTYResizeParams) (*proto.PTYResizeResult, error) {
	pty, err := s.ptys.get(ptyOwner(a), p.PTYID)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	if p.Cols < 1 || p.Rows < 1 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: cols and rows must be 1..1000",
			map[string]int{"cols": p.Cols, "rows": p.Rows})
	}
	// Resizing never reads the screen, so the forced change stays pending for the next
	// pty.read [D28].
	cols, rows, err := pty.Resize(min(p.Cols, term.MaxSize), min(p.Rows, term.MaxSize))
	if err != nil {
		if errors.Is(err, term.ErrUnknownPTY) {
			return nil, ptyError(err, p.PTYID)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error(), map[string]string{"pty_id": p.PTYID})
	}
	return &proto.PTYResizeResult{PTYID: pty.ID(), Cols: cols, Rows: rows}, nil
}

func (s *Server) handlePTYClose(ctx context.Context, cs *connState, a *attachment, p proto.PTYCloseParams) (*proto.PTYCloseResult, error) {
	// Get first for the canonical id: Close accepts a bare "N" too.
	pty, err := s.ptys.get(ptyOwner(a), p.PTYID)
	if err != nil {
		return nil, ptyError(err, p.PTYID)
	}
	st, err := s.ptys.close(ctx, ptyOwner(a), p.PTYID)
	if err != nil {
		if errors.Is(err, term.ErrUnknownPTY) {
			return nil, ptyError(err, p.PTYID)
		}
		// The PTY is gone from the table either way and its group was sent SIGKILL; the
		// reply still says closed, with whatever exit is known.
		s.log.Warn("kernel: pty close", "pty", pty.ID(), "error", err)
	}
	return &proto.PTYCloseResult{PTYID: pty.ID(), Closed: true, Exit: ptyExit(st)}, nil
}

func (s *Server) handlePTYList(ctx context.Context, cs *connState, a *attachment, _ proto.PTYListParams) (*proto.PTYListResult, error) {
	infos := s.ptys.list(ptyOwner(a))
	out := make([]proto.PTYInfo, len(infos))
	for i, in := range infos {
		out[i] = proto.PTYInfo{PTYID: in.ID, Cmd: strings.Join(in.Argv, " "), Pid: in.Pid, Cols: in.Cols, Rows: in.Rows, Alive: in.Alive}
	}
	return &proto.PTYListResult{PTYs: out}, nil
}

// ptyError maps term's errors to wire errors.
func ptyError(err error, id string) error {
	var se *term.SpawnError
	switch {
	case errors.Is(err, term.ErrUnknownPTY):
		return jsonrpc.NewError(proto.CodeUnknownPTY, "unknown pty", map[string]string{"pty_id": id})
	case errors.Is(err, term.ErrQuota):
		return jsonrpc.NewError(proto.CodeResourceLimit, err.Error(), map[string]any{"resource": "ptys"})
	case errors.As(err, &se):
		return jsonrpc.NewError(proto.CodePTYSpawnFailed, err.Error(), map[string]string{"cmd": se.Cmd})
	case errors.Is(err, term.ErrInvalidInput):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error(), nil)
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "pty: %v", err)
}

func ptyExit(st *term.ExitStatus) *proto.PTYExit {
	if st == nil {
		return nil
	}
	return &proto.PTYExit{Status: st.Status, Signal: st.Signal}
}

// publishPTY turns a term event into a pty.N event for the PTY's owner: {changed:true} for
// new output (term spaces them at most ten a second) and {alive:false, exit} once reaped.
func (s *Server) publishPTY(own owner, e term.Event) {
	var payload value.Value
	switch e.Kind {
	case term.EventChanged:
		payload = value.NewRecord([]string{"changed"}, []value.Value{value.Bool(true)})
	case term.EventExit:
		payload = value.NewRecord([]string{"alive", "exit"}, []value.Value{value.Bool(false), exitValue(e.Exit)})
	default:
		return
	}
	s.bus.publish(s.ctx, "pty."+strings.TrimPrefix(e.ID, "pty:"), own, EncodeWire(payload), 0)
}

func exitValue(st *term.ExitStatus) value.Value {
	var status, signal value.Value = value.Null{}, value.Null{}
	if st != nil && st.Status != nil {
		status = value.Int(*st.Status)
	}
	if st != nil && st.Signal != nil {
		signal = value.Str(*st.Signal)
	}
	return value.NewRecord([]string{"signal", "status"}, []value.Value{signal, status})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
