package kernel

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/value"
)

// execReply is a finished exec: the reply, and what the task state rule needs to know.
type execReply struct {
	res    *proto.ExecResult
	failed bool   // the value was an outcome with ok:false
	signal string // that outcome's signal, if any
}

// handleExec serves exec (AGENT-SURFACE §2.5.3). Synchronous execs queue behind the session's
// running evaluation; async and timeout_ms execs become tasks and never block submission.
func (s *Server) handleExec(ctx context.Context, cs *connState, a *attachment, p proto.ExecParams) (any, error) {
	if p.Src == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing src")
	}
	switch p.Mode {
	case "", proto.ModeRun:
	case proto.ModePlan:
		return s.planNow(ctx, a, *p.Src) // always synchronous [D12]
	case proto.ModeApproved:
		if p.PlanRef == "" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: mode approved needs plan_ref")
		}
		pl, err := s.ownPlan(a, p.PlanRef)
		if err != nil {
			return nil, err
		}
		if pl.src != *p.Src {
			return nil, jsonrpc.NewError(proto.CodeLeashDenied, "src differs from the approved plan", map[string]string{"plan_ref": p.PlanRef})
		}
		return s.applyPlan(ctx, cs, a, pl, proto.CodeLeashDenied)
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: mode must be run, plan or approved", map[string]string{"mode": p.Mode})
	}
	pos := eval.Stmt
	switch p.Position {
	case "", proto.PositionStmt:
	case proto.PositionValue:
		pos = eval.Value
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: position must be stmt or value", map[string]string{"position": p.Position})
	}
	src, b := *p.Src, budgetFor(p.Elide)
	if p.Async || p.Background || p.TimeoutMs != nil {
		return s.execTask(ctx, cs, a, src, pos, b, p)
	}
	var (
		rep  *execReply
		rerr *jsonrpc.Error
		done = make(chan struct{})
	)
	j := &job{ctx: ctx, run: func(ctx context.Context) {
		defer close(done)
		rep, rerr = s.execOnce(ctx, cs, a, src, pos, b, nil)
	}}
	if !a.sess.runNow(j) {
		a.sess.submit(j)
	}
	<-done // the job sees ctx too, so a vanished client's exec ends promptly
	if rerr != nil {
		return nil, rerr
	}
	if rep == nil { // the evaluation panicked; the worker logged it
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: evaluation panicked")
	}
	return execJSON{rep.res}, nil
}

// execTask runs the exec as task:N and answers with the handle (async), or after waiting up
// to timeout_ms with the result or the handle; the task is never killed by the wait.
func (s *Server) execTask(ctx context.Context, cs *connState, a *attachment, src string, pos eval.Position, b budget, p proto.ExecParams) (any, error) {
	t, err := s.newTask(a.sess)
	if err != nil {
		return nil, err
	}
	own := owner{principal: a.id.Principal, session: a.sess.key.name}
	s.bus.publish(ctx, t.events(), own, EncodeWire(value.Str("started")), 0)
	j := &job{ctx: t.ctx, task: t, run: func(ctx context.Context) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("kernel: task panic", "task", t.ref(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				t.finish(nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: evaluation panicked"))
			}
			t.end()
		}()
		if !t.begin(s.opts.now().UnixNano()) {
			return
		}
		rep, rerr := s.execOnce(ctx, cs, a, src, pos, b, nil)
		t.finish(rep, rerr)
	}}
	handle := proto.TaskHandle{Task: t.ref(), Events: t.events()}
	if p.TimeoutMs == nil {
		a.sess.submit(j)
		return handle, nil
	}
	wait := time.Duration(max(*p.TimeoutMs, 0)) * time.Millisecond
	timedOut := handle
	timedOut.TimedOut = true
	// On an idle session the task runs right here, and the handle is answered early only if
	// it is still running when timeout_ms is up (or the client goes away); the connection then
	// serves its next requests on another worker while the task goes on. A quick exec so costs
	// no worker goroutine, no hand-over, no wakeup of a waiter and no timer of its own.
	stopLate := jsonrpc.AnswerAfter(ctx, wait, timedOut)
	stopCtx := context.AfterFunc(ctx, func() { jsonrpc.AnswerEarly(ctx, timedOut) })
	if a.sess.runNow(j) {
		stopLate()
		stopCtx()
		return t.result() // discarded if the handle went out already
	}
	stopLate()
	stopCtx()
	// The session is busy: the task queues behind its work, and this handler waits.
	a.sess.submit(j)
	wt := time.NewTimer(wait)
	defer wt.Stop()
	select {
	case <-t.done:
		return t.result()
	case <-wt.C:
	case <-ctx.Done():
	}
	return timedOut, nil
}

// result is a finished task's exec reply.
func (t *task) result() (any, error) {
	t.mu.Lock()
	rep, rerr := t.reply, t.rpcErr
	t.mu.Unlock()
	if rerr != nil {
		return nil, rerr
	}
	if rep == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: evaluation panicked")
	}
	return execJSON{rep.res}, nil
}

// publishTaskEnd announces a task's terminal state on task.N.
func (s *Server) publishTaskEnd(t *task) {
	own := owner{principal: t.sess.key.principal, session: t.sess.key.name}
	rec := t.record()
	var ref value.Value = value.Null{}
	if rec.ResultRef != nil {
		ref = value.Str(*rec.ResultRef)
	}
	payload := value.NewRecord([]string{"state", "ref"}, []value.Value{value.Str(rec.State), ref})
	s.bus.publish(s.ctx, t.events(), own, EncodeWire(payload), 0)
}

// execOnce is one evaluation on the session worker: parse, derive and gate (approved is the
// plan being applied, nil for a run; see [Server.gateExec]), journal row, run, store out:N,
// finish the row with outputs, publish, reply.
func (s *Server) execOnce(ctx context.Context, cs *connState, a *attachment, src string, pos eval.Position, b budget, approved *plan) (*execReply, *jsonrpc.Error) {
	ss := a.sess
	start := s.opts.now()
	prog, err := ss.ev.Parse(src, false)
	if err != nil {
		return nil, parseError(err)
	}
	ast := s.marshalAST(prog)
	cwd, env := ss.ev.Cwd(), ss.ev.Environ()
	d := ss.derive(prog, cwd, env)
	if gerr := s.gateExec(a, src, ast, d, approved); gerr != nil {
		return nil, gerr
	}
	id, err := s.journal.Begin(ctx, JournalStart{Kind: "exec", Session: ss.key.name, Principal: a.id.Principal,
		Src: src, AST: ast, Cwd: []byte(cwd), EnvHash: ss.envHash(env), Effects: d.effectsJSON, StartedNs: start.UnixNano(),
		// An exec with effects is journaled as started before it runs, so a crash mid-exec
		// leaves its unfinished row; a pure one can share its end's write.
		Lazy: len(d.effects) == 0 && !d.opaque})
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "journal: %v", err)
	}
	runCtx, spawns := withSpawnRecorder(withUndo(ctx, id))
	v, runErr := ss.ev.Run(runCtx, prog, pos)
	ss.snapshot()
	dur := s.opts.now().Sub(start)

	var raised *diag.Error
	stored := v
	if runErr != nil {
		raised = asDiag(ctx, runErr)
		stored = &value.ErrorVal{Err: raised}
	}
	if stored == nil {
		stored = value.Null{}
	}
	n := ss.store(stored)
	cs.setIt(ss, n)
	ref, uri := "out:"+strconv.Itoa(n), "shoal://out/"+strconv.Itoa(n)

	fin := JournalFinish{DurNs: dur.Nanoseconds(), OK: true, Opaque: d.opaque, Meta: spawns.meta()}
	rep := &execReply{}
	zero := 0
	switch x := stored.(type) {
	case *value.Outcome:
		fin.Status, fin.OK = x.Status, x.OK
		rep.failed, rep.signal = !x.OK, x.Signal
	case *value.ErrorVal:
		if raised != nil {
			fin.Status, fin.OK = raised.Status, false
		} else {
			fin.Status = &zero // a caught error returned as a value is a success
		}
	default:
		fin.Status = &zero
	}
	render := renderBlock(stored)
	s.recordOutputs(ctx, &fin, stored, render)
	s.announce(ctx, a, id, &fin, src, n, ref, stored, render)

	if raised != nil {
		return nil, raisedError(raised, ref, uri)
	}
	bounded := boundRender(render, a.tty, uri)
	ms := dur.Milliseconds()
	rep.res = &proto.ExecResult{Ref: ref, URI: uri, Value: elide(stored, uri, b), Render: &bounded, ElapsedMs: &ms}
	return rep, nil
}

// recordOutputs stores the value (full wire JSON), the render when non-empty, and an outcome's
// stdout and non-empty stderr. A failed store is logged: the exec itself succeeded.
func (s *Server) recordOutputs(ctx context.Context, fin *JournalFinish, v value.Value, render string) {
	put := func(kind string, data []byte) {
		if o, ok := s.blobs.known(kind, data); ok {
			fin.Outputs = append(fin.Outputs, o)
			return
		}
		o, err := s.journal.StoreOutput(ctx, kind, data)
		if err != nil {
			s.log.Error("kernel: store output", "kind", kind, "error", err)
			return
		}
		fin.Outputs = append(fin.Outputs, o)
		s.blobs.add(o.Hash)
	}
	put("value", EncodeWire(v))
	if render != "" {
		put("render", []byte(render))
	}
	if o, ok := v.(*value.Outcome); ok {
		put("stdout", o.Stdout)
		if len(o.Stderr) > 0 {
			put("stderr", o.Stderr)
		}
	}
}

// announce finishes the exec's journal row and publishes its journal, transcript and render
// events. The finish and both durable events are one journal write (one commit instead of
// three), committed before the events are delivered and before the exec is answered.
func (s *Server) announce(ctx context.Context, a *attachment, entryID int64, fin *JournalFinish, src string, n int, ref string, v value.Value, render string) {
	own := owner{principal: a.id.Principal, session: a.sess.key.name}
	jp := value.NewRecord([]string{"entry_id", "head", "ok", "principal"},
		[]value.Value{value.Int(entryID), value.Str(headOf(src)), value.Bool(fin.OK), value.Str(a.id.Principal)})

	var sb value.RecordBuilder
	sb.Add("type", value.Str(value.TypeName(v)))
	switch x := v.(type) {
	case *value.Outcome:
		sb.Add("ok", value.Bool(x.OK))
		sb.Add("cmd", value.Str(x.Cmd))
	case *value.Table:
		sb.Add("n", value.Int(len(x.Rows)))
	case *value.List:
		sb.Add("n", value.Int(len(x.Items)))
	}
	tp := value.NewRecord([]string{"n", "ref", "summary"}, []value.Value{value.Int(n), value.Str(ref), sb.Record()})
	s.bus.publishDurable(ctx, own, []durableEvent{
		{proto.ChannelJournal, EncodeWire(jp), entryID},
		{proto.ChannelTranscript, EncodeWire(tp), entryID},
	}, func(evs []StoredEvent) func() error {
		return s.journal.QueueFinish(ctx, entryID, fin, evs)
	})

	rp := value.NewRecord([]string{"ref", "render"}, []value.Value{value.Str(ref), value.Str(proto.BoundText(stripANSI(render), "shoal://out/"+strconv.Itoa(n)))})
	s.bus.publish(ctx, proto.ChannelRender, own, EncodeWire(rp), 0)
}

// asDiag turns any evaluation failure into a language error value.
func asDiag(ctx context.Context, err error) *diag.Error {
	if d := diag.As(err); d != nil {
		return d
	}
	var exit *eval.ExitError
	if errors.As(err, &exit) {
		st := exit.Code
		return &diag.Error{Code: diag.Custom, Msg: "exit " + strconv.Itoa(st), Status: &st}
	}
	if ctx.Err() != nil {
		return diag.New(diag.Cancelled, "cancelled")
	}
	return diag.New(diag.IOError, "%v", err)
}

func parseError(err error) *jsonrpc.Error {
	d := diag.As(err)
	if d == nil {
		return jsonrpc.NewError(proto.CodeParseError, err.Error(), proto.ParseErrorData{})
	}
	return jsonrpc.NewError(proto.CodeParseError, d.Msg, proto.ParseErrorData{Span: proto.Span{Start: d.Span.Start, End: d.Span.End}, Hint: d.Hint})
}

func raisedError(d *diag.Error, ref, uri string) *jsonrpc.Error {
	data := proto.RaisedData{Code: d.Code, Hint: d.Hint, Status: d.Status, Ref: ref, URI: uri}
	if !d.Span.IsZero() {
		data.Span = &proto.Span{Start: d.Span.Start, End: d.Span.End}
	}
	if d.Stderr != nil {
		data.Stderr = *d.Stderr
	}
	return jsonrpc.NewError(proto.CodeRaised, d.Msg, data)
}

// raisedRef extracts the stored ref of a RAISED error, for the task record.
func raisedRef(e *jsonrpc.Error) string {
	if e.Code != proto.CodeRaised || e.Data == nil {
		return ""
	}
	var d proto.RaisedData
	if jsonUnmarshal(e.Data, &d) != nil {
		return ""
	}
	return d.Ref
}
