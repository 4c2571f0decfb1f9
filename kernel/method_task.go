package kernel

import (
	"context"
	"strings"
	"syscall"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

func (s *Server) handleTaskList(ctx context.Context, cs *connState, a *attachment, _ proto.TaskListParams) (proto.TaskListResult, error) {
	a.sess.pruneTasks(s.opts.now())
	a.sess.mu.Lock()
	tasks := append([]*task(nil), a.sess.tasks...)
	a.sess.mu.Unlock()
	out := make(proto.TaskListResult, len(tasks))
	for i, t := range tasks {
		out[i] = t.record()
	}
	return out, nil
}

func (s *Server) handleTaskGet(ctx context.Context, cs *connState, a *attachment, p proto.TaskGetParams) (proto.TaskGetResult, error) {
	t, err := s.lookupTask(a, p.Task)
	if err != nil {
		return proto.TaskRecord{}, err
	}
	return t.record(), nil
}

// handleTaskAwait waits for a terminal state, or timeout_ms, or the caller going away.
func (s *Server) handleTaskAwait(ctx context.Context, cs *connState, a *attachment, p proto.TaskAwaitParams) (proto.TaskAwaitResult, error) {
	t, err := s.lookupTask(a, p.Task)
	if err != nil {
		return proto.TaskRecord{}, err
	}
	var timeout <-chan time.Time
	if p.TimeoutMs != nil {
		tm := time.NewTimer(time.Duration(max(*p.TimeoutMs, 0)) * time.Millisecond)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-t.done:
	case <-timeout:
	case <-ctx.Done():
		return proto.TaskRecord{}, ctx.Err()
	}
	return t.record(), nil
}

func (s *Server) handleTaskCancel(ctx context.Context, cs *connState, a *attachment, p proto.TaskCancelParams) (*proto.TaskCancelResult, error) {
	t, err := s.lookupTask(a, p.Task)
	if err != nil {
		return nil, err
	}
	t.requestCancel()
	return &proto.TaskCancelResult{Task: t.ref(), CancelRequested: true}, nil
}

// handleTaskSuspend stops the task's live process groups.
func (s *Server) handleTaskSuspend(ctx context.Context, cs *connState, a *attachment, p proto.TaskSuspendParams) (proto.TaskSuspendResult, error) {
	return s.taskControl(a, p.Task, syscall.SIGSTOP, true)
}

// handleTaskResume continues them.
func (s *Server) handleTaskResume(ctx context.Context, cs *connState, a *attachment, p proto.TaskResumeParams) (proto.TaskResumeResult, error) {
	return s.taskControl(a, p.Task, syscall.SIGCONT, false)
}

func (s *Server) taskControl(a *attachment, ref string, sig syscall.Signal, stop bool) (proto.TaskRecord, error) {
	t, err := s.lookupTask(a, ref)
	if err != nil {
		return proto.TaskRecord{}, err
	}
	t.mu.Lock()
	state := t.state
	t.mu.Unlock()
	usable := state == proto.TaskRunning || state == proto.TaskSuspended || state == proto.TaskCancelling
	if !usable || !t.signal(sig) {
		return proto.TaskRecord{}, jsonrpc.NewError(proto.CodeTaskControlUnavailable, "task has no live process group to signal", map[string]string{"task": t.ref()})
	}
	t.mu.Lock()
	t.suspended = stop
	switch {
	case stop && t.state == proto.TaskRunning:
		t.state = proto.TaskSuspended
	case !stop && t.state == proto.TaskSuspended:
		t.state = proto.TaskRunning
	}
	t.mu.Unlock()
	return t.record(), nil
}

// handleTaskOutput reads the task's output ring from a byte offset.
func (s *Server) handleTaskOutput(ctx context.Context, cs *connState, a *attachment, p proto.TaskOutputParams) (*proto.TaskOutputResult, error) {
	t, err := s.lookupTask(a, p.Task)
	if err != nil {
		return nil, err
	}
	limit := proto.TaskOutputCap
	if p.Limit != nil {
		limit = min(max(*p.Limit, 0), proto.TaskOutputCap)
	}
	data, off, next, dropped := t.output.read(max(p.Since, 0), limit)
	return &proto.TaskOutputResult{Task: t.ref(), State: t.stateNow(), Offset: off, Next: next,
		Data: strings.ToValidUTF8(string(data), "\uFFFD"), DroppedBefore: dropped}, nil
}
