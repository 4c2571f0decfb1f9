package kernel_test

import (
	"context"
	"testing"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// panicky panics when asked to run "boom", to prove one bad evaluation never takes the
// kernel down.
type panicky struct{ kernel.Evaluator }

func (p panicky) Run(ctx context.Context, prog *syntax.Program, pos eval.Position) (value.Value, error) {
	if prog.Src == "boom" {
		panic("evaluator bug")
	}
	return p.Evaluator.Run(ctx, prog, pos)
}

func TestEvaluationPanicIsContained(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{
		NewEvaluator: func(o *eval.Options) kernel.Evaluator { return panicky{withFixtures(o)} }}})
	_, err := exec(t, k, proto.ExecParams{Src: ptr("boom")})
	wantCode(t, err, jsonrpc.CodeInternalError)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("boom"), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := k.Client.TaskAwait(ctxT(t), res.Task, nil)
	if err != nil || rec.State != proto.TaskFailed || rec.Error == nil || rec.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("panicking task = %+v, %v", rec, err)
	}
	evs, err := k.Client.EventsRead(ctxT(t), proto.EventsReadParams{Channel: res.Events})
	if err != nil || len(evs.Events) != 2 {
		t.Fatalf("task events after a panic = %+v, %v", evs, err)
	}
	if got := mustExec(t, k, "1 + 2"); string(got.Value) != `{"$":"int","v":3}` {
		t.Fatalf("after panic: %s", got.Value)
	}
}
