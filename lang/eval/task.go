package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// session is per-evaluator state that is not lexical: tasks, channels,
// the module cache and the trash.
type session struct {
	// ctx lives as long as the session; closing it ends every task.
	ctx   context.Context
	close context.CancelFunc

	mu       sync.Mutex
	nextTask int64
	tasks    []*taskImpl
	channels map[string]*channel
	modules  map[string]*value.Record
	loading  map[string]bool
	trashDir string
	trashSeq int
}

func newSession() *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{ctx: ctx, close: cancel,
		channels: map[string]*channel{}, modules: map[string]*value.Record{}, loading: map[string]bool{}}
}

// trash moves p into the session's trash directory and returns where.
func (s *session) trash(p string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trashDir == "" {
		d, err := os.MkdirTemp("", "shoal-trash-")
		if err != nil {
			return "", err
		}
		s.trashDir = d
	}
	s.trashSeq++
	dst := filepath.Join(s.trashDir, fmt.Sprintf("%d-%s", s.trashSeq, filepath.Base(p)))
	if err := os.Rename(p, dst); err != nil {
		if err := copyTree(p, dst); err != nil {
			return "", err
		}
		if err := os.RemoveAll(p); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// taskImpl runs a body on its own goroutine and implements
// value.TaskHandle.
type taskImpl struct {
	id     int64
	desc   string
	cancel context.CancelFunc
	done   chan struct{}
	val    value.Value
	err    error
	mu     sync.Mutex
	susp   bool
	pids   map[int]struct{} // live child process groups
}

// track registers (add) or forgets a child process group of the task; a
// process started while the task is suspended is stopped at once.
func (k *taskImpl) track(pid int, add bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !add {
		delete(k.pids, pid)
		return
	}
	if k.pids == nil {
		k.pids = map[int]struct{}{}
	}
	k.pids[pid] = struct{}{}
	if k.susp {
		_ = unix.Kill(-pid, unix.SIGSTOP)
	}
}

// signal sends sig to every live process group of the task.
func (k *taskImpl) signal(sig unix.Signal) {
	for pid := range k.pids {
		_ = unix.Kill(-pid, sig) // the group may have just exited
	}
}

func (k *taskImpl) Await(ctx context.Context) (value.Value, error) {
	select {
	case <-k.done:
		return k.val, k.err
	case <-ctx.Done():
		return nil, diag.New(diag.Cancelled, "cancelled")
	}
}

// Cancel cancels the task's context, which kills its processes; stopped
// processes are continued so they can receive the termination signal.
func (k *taskImpl) Cancel() {
	k.cancel()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.susp {
		k.susp = false
		k.signal(unix.SIGCONT)
	}
}

func (k *taskImpl) Done() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// Suspend stops the task's processes (SIGSTOP to each process group);
// the evaluation itself simply waits for them.
func (k *taskImpl) Suspend() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.susp = true
	k.signal(unix.SIGSTOP)
	return nil
}

// Resume continues the task's processes.
func (k *taskImpl) Resume() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.susp = false
	k.signal(unix.SIGCONT)
	return nil
}

func (k *taskImpl) Suspended() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.susp
}

func (t *thread) spawn(sc *scope, body *syntax.Block) (value.Value, error) {
	snap := t.e.snapshot(sc)
	return t.spawnFunc(func(ct *thread) (value.Value, error) {
		return ct.stmts(newScope(snap), body.Stmts, true)
	}, "spawn")
}

// snapshot copies the scope chain from sc up to the root, so a task never
// shares mutable bindings with the thread that spawned it (§6.8: spawn
// runs on a copy of the scope); tasks talk through channels. Closures and
// aliases bound in the chain are re-pointed at the copies, so recursive
// functions keep working inside the task.
func (e *Evaluator) snapshot(sc *scope) *scope {
	var chain []*scope
	for s := sc; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	m := make(map[*scope]*scope, len(chain))
	e.mu.Lock() // root declarations happen under e.mu
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i]
		c := &scope{exports: s.exports, vars: append([]binding(nil), s.vars...)}
		if i < len(chain)-1 {
			c.parent = m[chain[i+1]]
		}
		m[s] = c
	}
	e.mu.Unlock()
	for _, c := range m {
		for j := range c.vars {
			c.vars[j].val = rebind(c.vars[j].val, m)
		}
	}
	return m[sc]
}

// rebind returns v with its captured scope replaced by its copy in m.
func rebind(v value.Value, m map[*scope]*scope) value.Value {
	switch x := v.(type) {
	case *value.Closure:
		if impl, ok := x.Impl.(*closureImpl); ok {
			if ns, ok := m[impl.sc]; ok {
				ni := *impl
				ni.sc = ns
				nc := *x
				nc.Impl = &ni
				return &nc
			}
		}
	case *value.Command:
		if a, ok := x.Impl.(*aliasImpl); ok {
			if ns, ok := m[a.sc]; ok {
				nc := *x
				nc.Impl = &aliasImpl{cmd: a.cmd, sc: ns}
				return &nc
			}
		}
	}
	return v
}

// isolate gives a callable that will run on another goroutine its own
// copy of the scope it captured.
func (e *Evaluator) isolate(fn value.Value) value.Value {
	switch x := fn.(type) {
	case *value.Closure:
		if impl, ok := x.Impl.(*closureImpl); ok && impl.sc != nil {
			snap := e.snapshot(impl.sc)
			return rebind(fn, map[*scope]*scope{impl.sc: snap})
		}
	case *value.Command:
		if a, ok := x.Impl.(*aliasImpl); ok && a.sc != nil {
			snap := e.snapshot(a.sc)
			return rebind(fn, map[*scope]*scope{a.sc: snap})
		}
	}
	return fn
}

// spawnFunc starts f on a new thread and returns its task. A task belongs
// to the session, not to the statement that spawned it: its context keeps
// the spawning context's values (hosts use them to attribute processes)
// but not its cancellation, and ends with task.cancel() or
// Evaluator.Close.
func (t *thread) spawnFunc(f func(ct *thread) (value.Value, error), desc string) (value.Value, error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.ctx))
	stop := context.AfterFunc(t.e.sess.ctx, cancel)
	s := t.e.sess
	s.mu.Lock()
	s.nextTask++
	k := &taskImpl{id: s.nextTask, desc: desc, cancel: cancel, done: make(chan struct{})}
	s.tasks = append(s.tasks, k)
	s.mu.Unlock()
	ct := &thread{e: t.e, ctx: ctx, depth: t.depth, inFn: t.inFn, task: k}
	go func() {
		defer close(k.done)
		defer stop()
		defer cancel()
		defer func() {
			// A task runs on its own goroutine: a panic there would end
			// the whole process, so it becomes the task's error.
			if r := recover(); r != nil {
				k.val, k.err = nil, diag.New(diag.Custom, "internal error: %v", r)
			}
		}()
		v, err := f(ct)
		if err != nil {
			err = t.e.topError(err)
		}
		k.val, k.err = v, err
	}()
	return &value.Task{ID: k.id, Handle: k}, nil
}

func (s *session) jobsTable() value.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	shape := value.NewShape([]string{"id", "desc", "state", "done", "suspended"})
	rows := []*value.Record{}
	for _, k := range s.tasks {
		done, susp := k.Done(), k.Suspended()
		state := "running"
		switch {
		case done:
			state = "done"
		case susp:
			state = "stopped"
		}
		rows = append(rows, &value.Record{Shape: shape, Vals: []value.Value{
			value.Int(k.id), value.Str(k.desc), value.Str(state), value.Bool(done), value.Bool(susp)}})
	}
	return &value.Table{Rows: rows}
}

func (t *thread) taskMethod(k *value.Task, name string, pos []value.Value, named []lib.Named) (value.Value, bool, error) {
	switch name {
	case "await", "wait":
		v, err := k.Handle.Await(t.ctx)
		return v, true, err
	case "cancel":
		k.Handle.Cancel()
		return value.Null{}, true, nil
	case "is_done":
		return value.Bool(k.Handle.Done()), true, nil
	case "suspend":
		return k, true, k.Handle.Suspend()
	case "resume":
		return k, true, k.Handle.Resume()
	case "is_suspended":
		return value.Bool(k.Handle.Suspended()), true, nil
	}
	return nil, false, nil
}

// ---- channels (§12.2) ----

const channelRing = 1024

type event struct {
	seq     int64
	ts      time.Time
	payload value.Value
}

// channel is a named session event bus keeping the latest events.
type channel struct {
	name string
	mu   sync.Mutex
	ring []event
	next int64
	subs map[chan event]struct{}
}

func (s *session) channel(name string) *channel {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[name]
	if c == nil {
		c = &channel{name: name, subs: map[chan event]struct{}{}}
		s.channels[name] = c
	}
	return c
}

func (c *channel) emit(v value.Value, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev := event{seq: c.next, ts: now, payload: v}
	c.next++
	c.ring = append(c.ring, ev)
	if len(c.ring) > channelRing {
		c.ring = c.ring[len(c.ring)-channelRing:]
	}
	for sub := range c.subs {
		select {
		case sub <- ev:
		default: // a lagging subscriber loses events rather than blocking emit
		}
	}
}

// hostEmit forwards a language emit on a user.* channel to Host.Emit.
func (e *Evaluator) hostEmit(ctx context.Context, name string, v value.Value) {
	if e.host.Emit != nil && strings.HasPrefix(name, "user.") && len(name) > len("user.") {
		e.host.Emit(ctx, name, v)
	}
}

func (c *channel) subscribe() (chan event, func()) {
	ch := make(chan event, 64)
	c.mu.Lock()
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		delete(c.subs, ch)
		c.mu.Unlock()
	}
}

// channelName reports whether r is a channel handle {channel: name}.
func channelName(r *value.Record) (string, bool) {
	if r.Len() != 1 || r.Keys()[0] != "channel" {
		return "", false
	}
	s, ok := r.Vals[0].(value.Str)
	return string(s), ok
}

var eventShape = value.NewShape([]string{"channel", "seq", "ts", "payload"})

func (c *channel) record(ev event) value.Value {
	return &value.Record{Shape: eventShape, Vals: []value.Value{value.Str(c.name), value.Int(ev.seq), value.Datetime{T: ev.ts}, ev.payload}}
}

func (t *thread) channelMethod(name, method string, pos []value.Value, named []lib.Named) (value.Value, bool, error) {
	c := t.e.sess.channel(name)
	switch method {
	case "emit":
		if len(pos) != 1 {
			return nil, true, diag.New(diag.ArgError, "emit requires a value")
		}
		c.emit(pos[0], t.e.now())
		t.e.hostEmit(t.ctx, name, pos[0])
		return value.Null{}, true, nil
	case "latest":
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.ring) == 0 {
			return value.Null{}, true, nil
		}
		return c.ring[len(c.ring)-1].payload, true, nil
	case "events":
		since := int64(-1)
		var sv value.Value
		if len(pos) > 0 {
			sv = pos[0]
		}
		for _, a := range named {
			if a.Name == "since" {
				sv = a.Value
			}
		}
		if sv != nil {
			n, ok := sv.(value.Int)
			if !ok {
				return nil, true, diag.New(diag.TypeError, "since must be an int")
			}
			since = int64(n)
		}
		sub, unsub := c.subscribe()
		c.mu.Lock()
		var replay []event
		for _, ev := range c.ring {
			if ev.seq > since {
				replay = append(replay, ev)
			}
		}
		c.mu.Unlock()
		return value.NewStream("event", &eventSource{c: c, replay: replay, sub: sub, unsub: unsub}), true, nil
	case "take":
		var timeout time.Duration = -1
		for _, a := range named {
			if a.Name == "timeout" {
				d, ok := a.Value.(value.Duration)
				if !ok {
					return nil, true, diag.New(diag.TypeError, "timeout must be a duration")
				}
				timeout = time.Duration(d)
			}
		}
		sub, unsub := c.subscribe()
		defer unsub()
		var tc <-chan time.Time
		if timeout >= 0 {
			tm := time.NewTimer(timeout)
			defer tm.Stop()
			tc = tm.C
		}
		select {
		case ev := <-sub:
			return ev.payload, true, nil
		case <-tc:
			return nil, true, diag.New(diag.Timeout, "no event on channel %s within %s", name, value.FormatDuration(int64(timeout)))
		case <-t.ctx.Done():
			return nil, true, diag.New(diag.Cancelled, "cancelled")
		}
	}
	return nil, false, nil
}

// eventSource is a live stream over a channel: the replayed ring, then
// future events.
type eventSource struct {
	c      *channel
	replay []event
	sub    chan event
	unsub  func()
}

func (s *eventSource) Next(ctx context.Context) (value.Value, bool, error) {
	if len(s.replay) > 0 {
		ev := s.replay[0]
		s.replay = s.replay[1:]
		return s.c.record(ev), true, nil
	}
	select {
	case ev := <-s.sub:
		return s.c.record(ev), true, nil
	case <-ctx.Done():
		s.unsub()
		return nil, false, diag.New(diag.Cancelled, "cancelled")
	}
}

func (s *eventSource) Bounded() bool { return false }

// on spawns a task calling handler for each future event.
func (t *thread) on(name string, handler value.Value) (value.Value, error) {
	handler = t.e.isolate(handler)
	c := t.e.sess.channel(name)
	sub, unsub := c.subscribe()
	return t.spawnFunc(func(ct *thread) (value.Value, error) {
		defer unsub()
		for {
			select {
			case ev := <-sub:
				if _, err := ct.callValue(handler, []value.Value{c.record(ev)}, nil, false); err != nil {
					return nil, err
				}
			case <-ct.ctx.Done():
				return value.Null{}, nil
			}
		}
	}, "on "+name)
}

// everySource ticks datetimes; a slow consumer sees coalesced ticks.
type everySource struct {
	e    *Evaluator
	d    time.Duration
	tick *time.Ticker
}

func (s *everySource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.tick == nil {
		s.tick = time.NewTicker(s.d)
	}
	select {
	case <-s.tick.C:
		return value.Datetime{T: s.e.now()}, true, nil
	case <-ctx.Done():
		s.tick.Stop()
		return nil, false, diag.New(diag.Cancelled, "cancelled")
	}
}

func (s *everySource) Bounded() bool { return false }

// streamSink implements the evaluator-side sinks: into, render, save,
// append.
func (t *thread) streamSink(s *value.Stream, name string, pos []value.Value) (value.Value, error) {
	if len(pos) != 1 && name != "render" {
		return nil, diag.New(diag.ArgError, ".%s() requires one argument", name)
	}
	each := func(f func(value.Value) error) error { return lib.Drain(t.ctx, s, f) }
	switch name {
	case "render":
		return value.Null{}, each(func(v value.Value) error {
			_, err := fmt.Fprintln(t.e.opts.Stdout, value.Display(v))
			return err
		})
	case "into":
		r, ok := pos[0].(*value.Record)
		ch, isCh := "", false
		if ok {
			ch, isCh = channelName(r)
		}
		if !isCh {
			return nil, diag.New(diag.TypeError, "into() expects a channel")
		}
		c := t.e.sess.channel(ch)
		return value.Null{}, each(func(v value.Value) error {
			c.emit(v, t.e.now())
			t.e.hostEmit(t.ctx, ch, v)
			return nil
		})
	}
	p, err := t.e.pathArg(pos[0])
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, diag.New(diag.Custom, "%s: %v", name, unwrapPathErr(err))
	}
	defer f.Close()
	err = each(func(v value.Value) error {
		data, err := t.serialize(v)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(data, '\n')); err != nil {
			return diag.New(diag.Custom, "%s: %v", name, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pos[0], nil
}
