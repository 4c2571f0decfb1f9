package kernel

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"golang.org/x/sys/unix"
)

// task is a background exec: its state machine, its own cancel token, the process groups it
// has alive, and a ring of its merged process output.
type task struct {
	id     int64
	sess   *session
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed by end, after the end event is published
	output *outRing
	ended  sync.Once

	mu              sync.Mutex
	state           string
	startedNs       *int64
	finishedNs      *int64
	finished        time.Time
	resultRef       *string
	reply           *execReply
	rpcErr          *jsonrpc.Error
	cancelRequested bool
	pids            map[int]struct{}
	suspended       bool
}

func (t *task) ref() string    { return "task:" + strconv.FormatInt(t.id, 10) }
func (t *task) events() string { return "task." + strconv.FormatInt(t.id, 10) }

// newTask allocates task:N (kernel-wide) in the queued state, within the principal's quota
// of live tasks.
func (s *Server) newTask(ss *session) (*task, error) {
	ctx, cancel := context.WithCancel(s.ctx)
	t := &task{sess: ss, cancel: cancel, done: make(chan struct{}), output: &outRing{}, state: proto.TaskQueued, pids: map[int]struct{}{}}
	t.ctx = context.WithValue(ctx, taskKey{}, t)
	q := s.quotas(ss.key.principal)
	s.mu.Lock()
	// Each session counts its live tasks, so the quota check costs a pass over the sessions
	// (at most the session quota of them per principal), not over every retained task.
	var live int64
	for k, o := range s.sessions {
		if k.principal == ss.key.principal {
			live += o.liveTasks.Load()
		}
	}
	if live >= int64(q.Tasks) {
		s.mu.Unlock()
		cancel()
		return nil, quotaError("live tasks", q.Tasks)
	}
	ss.liveTasks.Add(1)
	s.nextTask++
	t.id = s.nextTask
	s.tasks[t.id] = t
	s.mu.Unlock()
	now := s.opts.now()
	ss.mu.Lock()
	ss.tasks = append(ss.tasks, t)
	// Pruning walks every retained task, so a new task triggers it only when the count rule
	// may bite or the last pass is a while ago; task.list prunes on every call.
	prune := len(ss.tasks) > 2*maxFinishedTasks || now.Sub(ss.pruned) > pruneEvery
	ss.mu.Unlock()
	if prune {
		ss.pruneTasks(now)
	}
	return t, nil
}

// lookupTask finds a task of the caller's session.
func (s *Server) lookupTask(a *attachment, ref string) (*task, error) {
	n, ok := parseRef(ref, "task")
	if ok {
		s.mu.Lock()
		t := s.tasks[int64(n)]
		s.mu.Unlock()
		if t != nil && t.sess == a.sess {
			return t, nil
		}
	}
	return nil, jsonrpc.NewError(proto.CodeUnknownTask, proto.MsgUnknownTask, map[string]string{"task": ref})
}

// begin moves a queued task to running; false means it was cancelled while queued.
func (t *task) begin(now int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancelRequested {
		return false
	}
	t.state = proto.TaskRunning
	t.startedNs = &now
	return true
}

// finish records the terminal state by the rule of AGENT-SURFACE §2.5.6.
func (t *task) finish(reply *execReply, rpcErr *jsonrpc.Error) {
	t.mu.Lock()
	if proto.TaskTerminal(t.state) {
		t.mu.Unlock()
		return
	}
	now := t.sess.srv.opts.now()
	ns := now.UnixNano()
	t.finishedNs, t.finished = &ns, now
	t.reply, t.rpcErr = reply, rpcErr
	switch {
	case rpcErr != nil && t.cancelRequested:
		t.state = proto.TaskCancelled
	case rpcErr != nil:
		t.state = proto.TaskFailed
	case reply != nil && reply.failed:
		if t.cancelRequested && reply.signal != "" {
			t.state = proto.TaskCancelled
		} else {
			t.state = proto.TaskFailed
		}
	default:
		t.state = proto.TaskCompleted
	}
	t.sess.liveTasks.Add(-1) // the one move to a terminal state
	if reply != nil && reply.res.Ref != "" {
		r := reply.res.Ref
		t.resultRef = &r
	} else if rpcErr != nil {
		if r := raisedRef(rpcErr); r != "" {
			t.resultRef = &r
		}
	}
	t.mu.Unlock()
	t.cancel()
}

// end publishes the task's end event on task.N and then releases awaiters, exactly once, so
// whoever sees the task finished can already read its end event.
func (t *task) end() {
	t.ended.Do(func() {
		t.sess.srv.publishTaskEnd(t)
		close(t.done)
	})
}

func (t *task) finishedAt() (bool, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return proto.TaskTerminal(t.state), t.finished
}

// record is the wire TaskRecord.
func (t *task) record() proto.TaskRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := proto.TaskRecord{Task: t.ref(), Session: t.sess.key.name, State: t.state, StartedNs: t.startedNs,
		FinishedNs: t.finishedNs, ResultRef: t.resultRef}
	if t.rpcErr != nil {
		r.Error = &proto.ErrorReply{Code: t.rpcErr.Code, Message: t.rpcErr.Message, Data: t.rpcErr.Data}
	}
	return r
}

func (t *task) stateNow() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// requestCancel sets the flag, moves running to cancelling and fires the task's own token.
// A queued task never starts.
func (t *task) requestCancel() {
	t.mu.Lock()
	t.cancelRequested = true
	queued := t.state == proto.TaskQueued
	if t.state == proto.TaskRunning || t.state == proto.TaskSuspended {
		t.state = proto.TaskCancelling
	}
	pids := t.pidList()
	t.mu.Unlock()
	if len(pids) > 0 {
		// A stopped group cannot act on the cancellation until it runs again.
		for _, pid := range pids {
			_ = unix.Kill(-pid, syscall.SIGCONT) // the group may already be gone
		}
	}
	t.cancel()
	if queued {
		t.finish(nil, jsonrpc.Errorf(proto.CodeRaised, "cancelled before it started"))
		t.end()
	}
}

func (t *task) addPid(pid int) {
	t.mu.Lock()
	t.pids[pid] = struct{}{}
	t.mu.Unlock()
}

func (t *task) removePid(pid int) {
	t.mu.Lock()
	delete(t.pids, pid)
	t.mu.Unlock()
}

func (t *task) pidList() []int {
	out := make([]int, 0, len(t.pids))
	for p := range t.pids {
		out = append(out, p)
	}
	return out
}

// signal sends sig to every live process group of the task; false when there is none.
func (t *task) signal(sig syscall.Signal) bool {
	t.mu.Lock()
	pids := t.pidList()
	t.mu.Unlock()
	sent := false
	for _, pid := range pids {
		if unix.Kill(-pid, sig) == nil {
			sent = true
		}
	}
	return sent
}

// kill ends the task at kernel shutdown: token fired, process groups killed.
func (t *task) kill() {
	t.mu.Lock()
	t.cancelRequested = true
	t.mu.Unlock()
	t.cancel()
	t.signal(syscall.SIGKILL)
}

// outRing keeps the newest 1 MiB of a task's output with absolute byte offsets.
type outRing struct {
	mu    sync.Mutex
	buf   []byte
	start int64 // absolute offset of buf[0]
}

func (r *outRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - proto.TaskOutputRing; over > 0 {
		r.buf = append(r.buf[:0:0], r.buf[over:]...)
		r.start += int64(over)
	}
	return len(p), nil
}

// read returns up to limit bytes from absolute offset since.
func (r *outRing) read(since int64, limit int) (data []byte, offset, next, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	offset = max(since, r.start)
	end := r.start + int64(len(r.buf))
	offset = min(offset, end)
	hi := min(end, offset+int64(limit))
	data = append([]byte(nil), r.buf[offset-r.start:hi-r.start]...)
	return data, offset, hi, r.start
}

// taskSink receives the evaluator's own stdout/stderr (bare statement output) and routes it
// to the running task's ring; outside a task it is discarded, as the reply carries the value.
type taskSink struct{ sess *session }

func (w *taskSink) Write(p []byte) (int, error) {
	if t := w.sess.cur.Load(); t != nil {
		t.output.Write(p)
	}
	return len(p), nil
}

// teeWriter copies a process's output into the task ring too.
type teeWriter struct {
	w    io.Writer
	ring *outRing
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.ring.Write(p)
	return t.w.Write(p)
}

func isFile(w io.Writer) bool { _, ok := w.(*os.File); return ok }
