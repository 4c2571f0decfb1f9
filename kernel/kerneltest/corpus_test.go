package kerneltest_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval/evaltest"
	"github.com/shoal-sh/shoal/lang/value"
)

// TestCorpus runs every conformance case through a kernel session whose
// cwd is the case's temp dir: the value travels as tagged wire JSON and is
// decoded back before rendering (a round-trip test of the wire encoding),
// and errors come back from RAISED data. Known failures share the
// evaluator's expectations file, in the "kernel" column.
func TestCorpus(t *testing.T) {
	evaltest.RunCorpus(t, "kernel", func(ctx context.Context, dir, src string) evaltest.Result {
		k := kerneltest.New(t, &kerneltest.Options{Cwd: dir, Env: os.Environ()})
		defer k.Close()
		v, err := k.Run(src)
		if err != nil {
			d := diag.As(err)
			switch {
			case d == nil:
				return evaltest.Result{Code: "go_error", Msg: err.Error()}
			case d.Code == diag.ParseError:
				return evaltest.Result{Parse: true, ParseMsg: d.Msg}
			}
			return evaltest.Result{Code: d.Code, Msg: d.Msg, Hint: d.Hint}
		}
		if v == nil {
			return evaltest.Result{Code: "go_error", Msg: errors.New("no value").Error()}
		}
		return evaltest.Result{Value: value.RenderInline(v)}
	}, nil)
}
