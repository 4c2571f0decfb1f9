package eval

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"testing"

	"github.com/shoal-sh/shoal/lang/value"
)

func benchEval(b *testing.B, ev *Evaluator, src string) value.Value {
	b.Helper()
	prog, err := ev.Parse(src, false)
	if err != nil {
		b.Fatal(err)
	}
	var v value.Value
	for b.Loop() {
		v, err = ev.Run(context.Background(), prog, Stmt)
		if err != nil {
			b.Fatal(err)
		}
	}
	return v
}

func BenchmarkFib22(b *testing.B) {
	ev := New(&Options{Cwd: b.TempDir()})
	v := benchEval(b, ev, "fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nfib(22)")
	if value.RenderInline(v) != "17711" {
		b.Fatalf("fib(22) = %s", value.RenderInline(v))
	}
}

func BenchmarkForLoop1M(b *testing.B) {
	ev := New(&Options{Cwd: b.TempDir()})
	v := benchEval(b, ev, "var s = 0\nfor i in 0..1000000 { s += i }\ns")
	if value.RenderInline(v) != "499999500000" {
		b.Fatalf("sum = %s", value.RenderInline(v))
	}
}

func BenchmarkWhereSortBy1M(b *testing.B) {
	shape := value.NewShape([]string{"id", "name", "size"})
	rows := make([]*value.Record, 1_000_000)
	for i := range rows {
		rows[i] = &value.Record{Shape: shape, Vals: []value.Value{
			value.Int(i), value.Str(fmt.Sprintf("file-%07d", (i*7919)%1_000_000)), value.Size(uint64(i%1000) * 1000)}}
	}
	ev := New(&Options{Cwd: b.TempDir()})
	ev.Define("t", &value.Table{Rows: rows})
	runtime.GC() // measure the query, not the collection of the setup garbage
	v := benchEval(b, ev, "t.where(.size > 500kb).sort_by(.name).len()")
	if value.RenderInline(v) != "499000" {
		b.Fatalf("len = %s", value.RenderInline(v))
	}
}

func BenchmarkShTrue1000(b *testing.B) {
	ev := New(&Options{Cwd: b.TempDir()})
	benchEval(b, ev, "for i in 0..1000 { sh { true } }")
}

// BenchmarkBashTrue1000 is the reference for BenchmarkShTrue1000.
func BenchmarkBashTrue1000(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", "for i in $(seq 1000); do /bin/true; done").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchTable(b *testing.B) *Evaluator {
	shape := value.NewShape([]string{"id", "name", "size"})
	rows := make([]*value.Record, 1_000_000)
	for i := range rows {
		rows[i] = &value.Record{Shape: shape, Vals: []value.Value{
			value.Int(i), value.Str(fmt.Sprintf("file-%07d", (i*7919)%1_000_000)), value.Size(uint64(i%1000) * 1000)}}
	}
	ev := New(&Options{Cwd: b.TempDir()})
	ev.Define("t", &value.Table{Rows: rows})
	runtime.GC() // measure the query, not the collection of the setup garbage
	return ev
}

func BenchmarkWhere1M(b *testing.B) {
	benchEval(b, benchTable(b), "t.where(.size > 500kb).len()")
}

func BenchmarkSortBy500k(b *testing.B) {
	ev := benchTable(b)
	if _, err := ev.Eval(context.Background(), "let w = t.where(.size > 500kb)"); err != nil {
		b.Fatal(err)
	}
	benchEval(b, ev, "w.sort_by(.name).len()")
}

// BenchmarkGoExecFloor is the cost of os/exec itself for the same work as
// BenchmarkShTrue1000 (sh -c true with captured stdout/stderr).
func BenchmarkGoExecFloor(b *testing.B) {
	for b.Loop() {
		for range 1000 {
			var o, e bytes.Buffer
			cmd := exec.Command("/bin/sh", "-c", "true")
			cmd.Stdout, cmd.Stderr = &o, &e
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
