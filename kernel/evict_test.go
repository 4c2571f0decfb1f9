package kernel_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Finished tasks are evicted after an hour (and beyond 256 per session).
func TestTaskEviction(t *testing.T) {
	t.Parallel()
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{Now: now}})
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("1 + 2"), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := k.Client.TaskAwait(ctx, res.Task, nil); err != nil || rec.State != proto.TaskCompleted {
		t.Fatalf("await = %+v, %v", rec, err)
	}
	for range 300 {
		r, err := exec(t, k, proto.ExecParams{Src: ptr("1"), Async: true})
		if err != nil {
			t.Fatal(err)
		}
		k.Client.TaskAwait(ctx, r.Task, nil)
	}
	list, err := k.Client.TaskList(ctx)
	if err != nil || len(list) != 256 {
		t.Fatalf("task.list after 301 finished tasks: %d, %v", len(list), err)
	}
	_, err = k.Client.TaskGet(ctx, res.Task)
	wantCode(t, err, proto.CodeUnknownTask)
	offset.Store(int64(2 * time.Hour))
	list, err = k.Client.TaskList(ctx)
	if err != nil || len(list) != 0 {
		t.Fatalf("task.list two hours later: %d, %v", len(list), err)
	}
}
