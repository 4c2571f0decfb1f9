package lib

import (
	"context"
	"fmt"
	"testing"

	"github.com/shoal-sh/shoal/lang/value"
)

// bigTable is an ls-like table of n rows sharing one shape.
func bigTable(n int) *value.Table {
	shape := value.NewShape([]string{"name", "size", "type"})
	rows := make([]*value.Record, n)
	for i := range rows {
		// Names in a scrambled order so sorting has work to do.
		name := fmt.Sprintf("file-%07d.txt", (i*7919)%n)
		rows[i] = &value.Record{Shape: shape, Vals: []value.Value{value.Str(name), value.Size(uint64(i%1000) * 1000), value.Str("file")}}
	}
	return &value.Table{Rows: rows}
}

// directEnv calls Go closures without the test env's checks, so the
// benchmark measures the library rather than the stand-in evaluator.
type directEnv struct{}

func (directEnv) Call(ctx context.Context, fn value.Value, args ...value.Value) (value.Value, error) {
	return fn.(*value.Closure).Impl.(goFn)(args...)
}

// BenchmarkWhereSortBy is `.where(.size > 500kb).sort_by(.name)` over a
// million rows, the evaluator's latency target (150 ms in total).
func BenchmarkWhereSortBy(b *testing.B) {
	t := bigTable(1_000_000)
	big := fn(func(a ...value.Value) (value.Value, error) {
		s := a[0].(*value.Record).Vals[1].(value.Size)
		return value.Bool(s > 500_000), nil
	})
	name := fn(func(a ...value.Value) (value.Value, error) { return a[0].(*value.Record).Vals[0], nil })
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		w, _, err := Method(ctx, directEnv{}, t, "where", []value.Value{big}, nil)
		if err != nil {
			b.Fatal(err)
		}
		s, _, err := Method(ctx, directEnv{}, w, "sort_by", []value.Value{name}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.(*value.List).Items); n != 499_000 {
			b.Fatalf("%d rows", n)
		}
	}
}

func BenchmarkWhere(b *testing.B) {
	t := bigTable(1_000_000)
	big := fn(func(a ...value.Value) (value.Value, error) {
		return value.Bool(a[0].(*value.Record).Vals[1].(value.Size) > 500_000), nil
	})
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := Method(ctx, directEnv{}, t, "where", []value.Value{big}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSortByName(b *testing.B) {
	t := bigTable(1_000_000)
	name := fn(func(a ...value.Value) (value.Value, error) { return a[0].(*value.Record).Vals[0], nil })
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := Method(ctx, directEnv{}, t, "sort_by", []value.Value{name}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUniqInts(b *testing.B) {
	items := make([]value.Value, 1_000_000)
	for i := range items {
		items[i] = value.Int(i % 1000)
	}
	l := &value.List{Items: items}
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := Method(ctx, directEnv{}, l, "uniq", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
