package kernel_test

import (
	"fmt"
	"testing"

	"github.com/shoal-sh/shoal/kernel/proto"
)

// Per-principal quotas answer RESOURCE_LIMIT instead of growing without bound.
func TestQuotas(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	c := k.Dial()
	for i := 1; i < 16; i++ { // "default" is the first of 16
		if _, err := c.Attach(ctx, proto.SessionAttachParams{Session: fmt.Sprintf("s%d", i)}); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	_, err := c.Attach(ctx, proto.SessionAttachParams{Session: "one-too-many"})
	wantCode(t, err, proto.CodeResourceLimit)
	if _, err := c.Attach(ctx, proto.SessionAttachParams{Session: "s3"}); err != nil {
		t.Fatalf("re-attach to an existing session: %v", err)
	}

	var tasks []string
	for i := range 64 {
		res, err := exec(t, k, proto.ExecParams{Src: ptr("sleep 30s"), Async: true})
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		tasks = append(tasks, res.Task)
	}
	_, err = exec(t, k, proto.ExecParams{Src: ptr("1"), Async: true})
	wantCode(t, err, proto.CodeResourceLimit)
	for _, task := range tasks {
		k.Client.TaskCancel(ctx, task)
	}
	rec, err := k.Client.TaskAwait(ctx, tasks[63], ptr(int64(10000)))
	if err != nil || rec.State != proto.TaskCancelled {
		t.Fatalf("last queued task after cancel = %+v, %v", rec, err)
	}
	if _, err := exec(t, k, proto.ExecParams{Src: ptr("1"), Async: true}); err != nil {
		t.Fatalf("task after the others ended: %v", err)
	}
}
