package kernel_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Scenario 8: timeout_ms hands back a task, cancel ends it, task.N saw started then cancelled.
func TestTaskTimeoutCancel(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("sleep 30s"), TimeoutMs: ptr(int64(50))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Task == "" || !res.TimedOut || res.Events != "task."+res.Task[len("task:"):] {
		t.Fatalf("timeout reply = %+v", res)
	}
	rec, err := k.Client.TaskGet(ctx, res.Task)
	if err != nil || rec.State != proto.TaskRunning {
		t.Fatalf("task.get = %+v, %v", rec, err)
	}
	c, err := k.Client.TaskCancel(ctx, res.Task)
	if err != nil || !c.CancelRequested {
		t.Fatalf("cancel = %+v, %v", c, err)
	}
	start := time.Now()
	rec, err = k.Client.TaskAwait(ctx, res.Task, nil)
	if err != nil || rec.State != proto.TaskCancelled || rec.FinishedNs == nil {
		t.Fatalf("await = %+v, %v", rec, err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("cancel took %v", el)
	}
	evs, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: res.Events})
	if err != nil || len(evs.Events) != 2 {
		t.Fatalf("task events = %+v, %v", evs, err)
	}
	if string(evs.Events[0].Payload) != `{"$":"str","v":"started"}` {
		t.Errorf("first event = %s", evs.Events[0].Payload)
	}
	end := obj(t, evs.Events[1].Payload)
	if st := end["v"].(map[string]any)["state"].(map[string]any)["v"]; st != "cancelled" {
		t.Errorf("end event = %s", evs.Events[1].Payload)
	}
	// Other sessions do not see the task.
	c2 := k.Dial()
	k.AttachClient(c2, "other")
	_, err = c2.TaskGet(ctx, res.Task)
	wantCode(t, err, proto.CodeUnknownTask)
	_, err = k.Client.TaskGet(ctx, "task:999")
	wantCode(t, err, proto.CodeUnknownTask)
}

// A finished timeout_ms exec answers with the normal result.
func TestTaskTimeoutFinished(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("1 + 2"), TimeoutMs: ptr(int64(10000))})
	if err != nil || res.Ref == "" || string(res.Value) != `{"$":"int","v":3}` || res.Task != "" {
		t.Fatalf("finished timeout exec = %+v, %v", res, err)
	}
	list, err := k.Client.TaskList(ctxT(t))
	if err != nil || len(list) != 1 || list[0].State != proto.TaskCompleted || list[0].ResultRef == nil || *list[0].ResultRef != res.Ref {
		t.Fatalf("task.list = %+v, %v", list, err)
	}
}

// Scenario 9: a background submission on a busy session returns at once, queued.
func TestBackgroundQueued(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	first, err := exec(t, k, proto.ExecParams{Src: ptr("sh { exec sleep 30.25 }"), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, k, first.Task, proto.TaskRunning)
	start := time.Now()
	second, err := exec(t, k, proto.ExecParams{Src: ptr("1 + 2"), Background: true})
	if el := time.Since(start); err != nil || el > 50*time.Millisecond*10 {
		t.Fatalf("background submission took %v, %v", el, err)
	}
	rec, err := k.Client.TaskGet(ctx, second.Task)
	if err != nil || rec.State != proto.TaskQueued {
		t.Fatalf("second task = %+v, %v", rec, err)
	}
	// Suspend and resume signal the running task's process group.
	for deadline := time.Now().Add(10 * time.Second); procState(t, first.Task, k) == ""; {
		if time.Now().After(deadline) {
			rec, _ := k.Client.TaskGet(ctx, first.Task)
			t.Fatalf("sleep process never appeared; task %+v %+v", rec, rec.Error)
		}
		time.Sleep(2 * time.Millisecond)
	}
	// The process can show in /proc a moment before the evaluator registers its group
	// (between fork and the spawn hook): until then suspend honestly finds nothing to stop.
	sus, err := k.Client.TaskSuspend(ctx, first.Task)
	for deadline := time.Now().Add(10 * time.Second); isCode(err, proto.CodeTaskControlUnavailable) && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
		sus, err = k.Client.TaskSuspend(ctx, first.Task)
	}
	if err != nil || sus.State != proto.TaskSuspended {
		t.Fatalf("suspend = %+v, %v", sus, err)
	}
	// SIGSTOP is delivered asynchronously: poll (10× bound) for the stopped state.
	for deadline := time.Now().Add(10 * time.Second); procState(t, first.Task, k) != "T"; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("suspended process state = %q, want T", procState(t, first.Task, k))
		}
	}
	res, err := k.Client.TaskResume(ctx, first.Task)
	if err != nil || res.State != proto.TaskRunning {
		t.Fatalf("resume = %+v, %v", res, err)
	}
	// A queued task has no process to stop.
	_, err = k.Client.TaskSuspend(ctx, second.Task)
	wantCode(t, err, proto.CodeTaskControlUnavailable)
	if _, err := k.Client.TaskCancel(ctx, first.Task); err != nil {
		t.Fatal(err)
	}
	rec, err = k.Client.TaskAwait(ctx, second.Task, ptr(int64(10000)))
	if err != nil || rec.State != proto.TaskCompleted {
		t.Fatalf("queued task after cancel of the first = %+v, %v", rec, err)
	}
	// task.await with a timeout returns the current record.
	third, _ := exec(t, k, proto.ExecParams{Src: ptr("sleep 30s"), Async: true})
	rec, err = k.Client.TaskAwait(ctx, third.Task, ptr(int64(20)))
	if err != nil || proto.TaskTerminal(rec.State) {
		t.Fatalf("await with timeout = %+v, %v", rec, err)
	}
	k.Client.TaskCancel(ctx, third.Task)
}

// waitState polls until the task reaches state (10× the expected bound).
func waitState(t *testing.T, k *kerneltest.Kernel, task string, state string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, err := k.Client.TaskGet(ctxT(t), task)
		if err != nil {
			t.Fatal(err)
		}
		if rec.State == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s stuck in %s, want %s", task, rec.State, state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// task.output carries a running task's process output.
func TestTaskOutput(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr(`sh { echo hello; sleep 30 }`), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var out proto.TaskOutputResult
	for time.Now().Before(deadline) {
		out, err = k.Client.TaskOutput(ctx, proto.TaskOutputParams{Task: res.Task})
		if err != nil {
			t.Fatal(err)
		}
		if out.Data != "" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	k.Client.TaskCancel(ctx, res.Task)
	if out.Data != "hello\n" || out.Next != 6 || out.Offset != 0 {
		b, _ := json.Marshal(out)
		t.Fatalf("task.output = %s", b)
	}
}

// procState finds the task's `sleep 30.25` process among our children and returns its state letter.
func procState(t *testing.T, task string, k *kerneltest.Kernel) string {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) S ppid …
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if i < 0 || string(cmdline) != "sleep\x0030.25\x00" {
			continue // only this test's sleep, not another test's child
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			return f[0]
		}
	}
	return ""
}
