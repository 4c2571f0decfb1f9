package kernel_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/value"
)

// fixtures are values predefined in every test session, so tests do not depend on library
// methods to build large values.
func fixtures() map[string]value.Value {
	rows := make([]*value.Record, 150)
	shape := value.NewShape([]string{"name", "size"})
	for i := range rows {
		rows[i] = &value.Record{Shape: shape, Vals: []value.Value{value.Str("f" + string(rune('a'+i%26))), value.Size(i * 100)}}
	}
	return map[string]value.Value{
		"tbl": &value.Table{Rows: rows},
		"big": value.Str(strings.Repeat("x", 200<<10)),
	}
}

func withFixtures(o *eval.Options) kernel.Evaluator {
	e := eval.New(o)
	for k, v := range fixtures() {
		e.Define(k, v)
	}
	return e
}

// newKernel starts an in-process kernel whose sessions see PATH and the fixtures.
func newKernel(t *testing.T, o *kerneltest.Options) *kerneltest.Kernel {
	t.Helper()
	if o == nil {
		o = &kerneltest.Options{}
	}
	if o.Kernel == nil {
		o.Kernel = &kernel.Options{}
	}
	if o.Kernel.NewEvaluator == nil {
		o.Kernel.NewEvaluator = withFixtures
	}
	if o.Env == nil {
		o.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	}
	if o.Cwd == "" {
		o.Cwd = t.TempDir()
	}
	return kerneltest.New(t, o)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func rpcCode(t *testing.T, err error) int {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return e.Code
}

func wantCode(t *testing.T, err error, code int) *jsonrpc.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %d, got success", code)
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("want JSON-RPC error %d, got %v", code, err)
	}
	if e.Code != code {
		t.Fatalf("want error %d, got %d %q data=%s", code, e.Code, e.Message, e.Data)
	}
	return e
}

func ptr[T any](v T) *T { return &v }

func obj(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return m
}

func exec(t *testing.T, k *kerneltest.Kernel, p proto.ExecParams) (proto.ExecResult, error) {
	t.Helper()
	return k.Client.Exec(ctxT(t), p)
}

func mustExec(t *testing.T, k *kerneltest.Kernel, src string) proto.ExecResult {
	t.Helper()
	res, err := exec(t, k, proto.ExecParams{Src: &src})
	if err != nil {
		t.Fatalf("exec %q: %v", src, err)
	}
	return res
}

// isCode reports whether err is a JSON-RPC error with code.
func isCode(err error, code int) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == code
}
