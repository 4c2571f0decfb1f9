package kernel

import (
	"context"
	"fmt"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/value"
	"github.com/zeebo/blake3"
)

// sessKey identifies a session: the same name under two principals is two sessions.
type sessKey struct{ principal, name string }

// session is one evaluator with its transcript and work queue. Evaluations run one at a time
// in submission order on a worker goroutine that exists only while there is work.
type session struct {
	srv *Server
	key sessKey
	ev  Evaluator
	cur atomic.Pointer[task] // the task whose job is running, for process tracking and output
	// liveTasks counts this session's tasks not yet in a terminal state (the task quota).
	liveTasks atomic.Int64

	mu      sync.Mutex
	outs    []value.Value // out:N is outs[N-1]; raised errors are stored as *value.ErrorVal
	queue   []*job
	running bool
	cwd     string   // snapshot at the last statement boundary
	env     []string // likewise
	tasks   []*task
	pruned  time.Time // the last pruneTasks pass

	hashMu  sync.Mutex
	hashEnv []string // the environment envHash last hashed, and its hash
	hashed  string
}

// envHash is envHash(env), remembered for the last environment: it rarely changes between
// execs, and sorting and hashing it was a tenth of an exec's own CPU.
func (ss *session) envHash(env []string) string {
	ss.hashMu.Lock()
	defer ss.hashMu.Unlock()
	if ss.hashEnv == nil || !slices.Equal(ss.hashEnv, env) {
		ss.hashEnv, ss.hashed = slices.Clone(env), envHash(env)
	}
	return ss.hashed
}

// job is one queued evaluation.
type job struct {
	ctx  context.Context
	task *task // nil for a synchronous exec
	run  func(ctx context.Context)
}

// session returns the session for key, creating it (cheaply: an evaluator, no goroutine)
// within the principal's session quota.
func (s *Server) session(key sessKey) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[key]; ss != nil {
		return ss, nil
	}
	q, n := s.quotas(key.principal), 0
	for k := range s.sessions {
		if k.principal == key.principal {
			n++
		}
	}
	if n >= q.Sessions {
		return nil, quotaError("sessions", q.Sessions)
	}
	ss := &session{srv: s, key: key, cwd: s.opts.Cwd, env: slices.Clone(s.opts.Env)}
	sink := &taskSink{sess: ss}
	ss.ev = s.opts.newEvaluator(&eval.Options{
		Cwd:    s.opts.Cwd,
		Env:    slices.Clone(s.opts.Env),
		Stdout: sink,
		Stderr: sink,
		Host: &eval.Host{
			WrapCmd:  ss.wrapCmd,
			StartCmd: ss.startCmd,
			OnSpawn:  ss.onSpawn,
			OnExit:   ss.onExit,
			Now:      s.opts.Now,
			Content:  s.content,
			Journal:  ss.journalPort,
			Emit:     ss.emitUser,
			OnChange: ss.onChange,
		},
	})
	s.sessions[key] = ss
	return ss, nil
}

// quotaError is the RESOURCE_LIMIT error of a per-principal quota.
func quotaError(resource string, limit int) *jsonrpc.Error {
	return jsonrpc.NewError(proto.CodeResourceLimit, fmt.Sprintf("quota exceeded: %d %s per principal", limit, resource),
		map[string]any{"resource": resource, "limit": limit})
}

// submit queues j; it never blocks.
func (ss *session) submit(j *job) {
	ss.mu.Lock()
	ss.queue = append(ss.queue, j)
	start := !ss.running
	ss.running = true
	ss.mu.Unlock()
	if start {
		ss.srv.workers.Add(1)
		go ss.work()
	}
}

// runNow runs j on the calling goroutine if the session is idle, and reports whether it did;
// otherwise the caller queues it with submit. A synchronous exec waits for its job anyway, so
// running it in place saves starting a worker and two goroutine switches. Jobs submitted
// meanwhile queue behind it, and a worker is started for them afterwards.
func (ss *session) runNow(j *job) bool {
	ss.mu.Lock()
	if ss.running {
		ss.mu.Unlock()
		return false
	}
	ss.running = true
	ss.mu.Unlock()
	ss.srv.workers.Add(1)
	ss.runJob(j)
	ss.mu.Lock()
	if len(ss.queue) == 0 {
		ss.running = false
		ss.mu.Unlock()
		ss.srv.workers.Done()
		return true
	}
	ss.mu.Unlock()
	go ss.work() // takes over this worker slot (and its workers count)
	return true
}

func (ss *session) work() {
	defer ss.srv.workers.Done()
	for {
		ss.mu.Lock()
		if len(ss.queue) == 0 {
			ss.running = false
			ss.mu.Unlock()
			return
		}
		j := ss.queue[0]
		ss.queue[0] = nil
		ss.queue = ss.queue[1:]
		ss.mu.Unlock()
		ss.runJob(j)
	}
}

// runJob runs one job, recovering a panic so one bad evaluation never kills the worker.
func (ss *session) runJob(j *job) {
	if j.task != nil {
		ss.cur.Store(j.task)
		defer ss.cur.Store(nil)
	}
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("kernel: evaluation panic", "session", ss.key.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if j.task != nil {
				j.task.finish(nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: evaluation panicked"))
				j.task.end()
			}
		}
	}()
	j.run(j.ctx)
}

// snapshot records cwd and env after an evaluation, for readers that must not wait.
func (ss *session) snapshot() {
	cwd, env := ss.ev.Cwd(), ss.ev.Environ()
	ss.mu.Lock()
	ss.cwd, ss.env = cwd, env
	ss.mu.Unlock()
}

func (ss *session) cwdEnv() (string, []string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.cwd, ss.env
}

// store appends v to the transcript and returns its N.
func (ss *session) store(v value.Value) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.outs = append(ss.outs, v)
	return len(ss.outs)
}

// out returns out:N.
func (ss *session) out(n int) (value.Value, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if n < 1 || n > len(ss.outs) {
		return nil, false
	}
	return ss.outs[n-1], true
}

// taskOf finds the task a context belongs to.
type taskKey struct{}

func taskFrom(ctx context.Context) *task {
	t, _ := ctx.Value(taskKey{}).(*task)
	return t
}

func (ss *session) onSpawn(ctx context.Context, pid int) {
	if t := taskFrom(ctx); t != nil {
		t.addPid(pid)
	}
}

func (ss *session) onExit(ctx context.Context, pid int) {
	if t := taskFrom(ctx); t != nil {
		t.removePid(pid)
	}
}

// wrapCmd tees a task's process stderr into its output ring. Stdout needs no tee: the
// evaluator streams statement-position output to its Stdout, which is the task sink. Files
// (redirections, pipes between processes) are left alone.
func (ss *session) wrapCmd(ctx context.Context, cmd *exec.Cmd) error {
	t := taskFrom(ctx)
	if t == nil {
		return nil
	}
	if cmd.Stderr != nil && !isFile(cmd.Stderr) {
		cmd.Stderr = teeWriter{cmd.Stderr, t.output}
	}
	return nil
}

// content serves val:blake3 references to the evaluator from the CAS.
func (s *Server) content(ctx context.Context, hash string) ([]byte, error) {
	return s.journal.Blob(ctx, strings.TrimPrefix(hash, "val:blake3:"))
}

// envHash is hex BLAKE3 of the sorted NAME=VALUE\0 pairs.
func envHash(env []string) string {
	sorted := slices.Clone(env)
	slices.Sort(sorted)
	h := blake3.New()
	for _, kv := range sorted {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// Finished tasks are kept for taskTTL, at most maxFinishedTasks per session.
const (
	taskTTL          = time.Hour
	maxFinishedTasks = 256
	pruneEvery       = time.Minute // newTask prunes at least this often (see newTask)
)

// pruneTasks evicts finished tasks older than taskTTL or beyond maxFinishedTasks per session.
func (ss *session) pruneTasks(now time.Time) {
	ss.mu.Lock()
	ss.pruned = now
	var keep, gone []*task
	finished := 0
	for i := len(ss.tasks) - 1; i >= 0; i-- {
		t := ss.tasks[i]
		fin, at := t.finishedAt()
		if fin {
			finished++
			if finished > maxFinishedTasks || now.Sub(at) > taskTTL {
				gone = append(gone, t)
				continue
			}
		}
		keep = append(keep, t)
	}
	slices.Reverse(keep)
	ss.tasks = keep
	ss.mu.Unlock()
	if len(gone) > 0 {
		ss.srv.mu.Lock()
		for _, t := range gone {
			delete(ss.srv.tasks, t.id)
		}
		ss.srv.mu.Unlock()
		// The evicted tasks' task.N channels go with them (their events are ring-only).
		for _, t := range gone {
			ss.srv.bus.remove(t.events())
		}
	}
}
