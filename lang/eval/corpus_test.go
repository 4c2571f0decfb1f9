package eval_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/eval/evaltest"
	"github.com/shoal-sh/shoal/lang/value"
)

// TestCorpus runs the conformance corpus through a fresh evaluator per
// case (CASES.md §3). Run one case with
// -run 'TestCorpus/outcome.toml/outcome-echo-ok'.
func TestCorpus(t *testing.T) {
	evaltest.RunCorpus(t, "eval", evalHost, nil)
}

func evalHost(ctx context.Context, dir, src string) evaltest.Result {
	ev := eval.New(&eval.Options{Cwd: dir, Env: os.Environ()})
	prog, err := ev.Parse(src, false)
	if err != nil {
		d := diag.As(err)
		if d == nil {
			return evaltest.Result{Parse: true, ParseMsg: err.Error()}
		}
		return evaltest.Result{Parse: true, ParseMsg: d.Msg}
	}
	v, err := ev.Run(ctx, prog, eval.Stmt)
	if err != nil {
		var ex *eval.ExitError
		if errors.As(err, &ex) {
			return evaltest.Result{Value: "null"}
		}
		if d := diag.As(err); d != nil {
			return evaltest.Result{Code: d.Code, Msg: d.Msg, Hint: d.Hint}
		}
		return evaltest.Result{Code: "go_error", Msg: err.Error()}
	}
	return evaltest.Result{Value: value.RenderInline(v)}
}
