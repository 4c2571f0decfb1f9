package lib

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/value"
)

// step is one method call in a chain.
type step struct {
	meth string
	args []value.Value
}

func st(meth string, a ...value.Value) step { return step{meth, a} }

// chain applies the steps in order, like `recv.m1(…).m2(…)`.
func chain(t *testing.T, recv value.Value, steps ...step) (value.Value, error) {
	t.Helper()
	v := recv
	for _, s := range steps {
		r, ok, err := Method(t.Context(), testEnv{}, v, s.meth, s.args, nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			t.Fatalf("unknown method %s on %s", s.meth, value.TypeName(v))
		}
		v = r
	}
	return v, nil
}

type ccase struct {
	name  string
	recv  value.Value
	steps []step
	want  string
	err   string
}

func runChains(t *testing.T, cases []ccase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, err := chain(t, c.recv, c.steps...)
			checkResult(t, v, true, err, c.want, c.err, "")
		})
	}
}

// liveSource counts up forever, like every(d); Bounded is false.
type liveSource struct {
	n     atomic.Int64
	delay time.Duration
}

func (s *liveSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	return value.Int(s.n.Add(1) - 1), true, nil
}

func (s *liveSource) Bounded() bool { return false }

func live(delay time.Duration) *value.Stream {
	return value.NewStream("value", &liveSource{delay: delay})
}

func TestStreams(t *testing.T) {
	even := pred(isEven)
	times10 := fn1(func(x value.Value) value.Value { return x.(value.Int) * 10 })
	runChains(t, []ccase{
		{"stream-where-map", Ints(1, 2, 3, 4, 5, 6), []step{st("stream"), st("where", even), st("map", times10), st("collect")}, "[20, 40, 60]", ""},
		{"stream-map-only", Ints(1, 2, 3), []step{st("stream"), st("map", fn1(func(x value.Value) value.Value { return x.(value.Int) + 1 })), st("collect")}, "[2, 3, 4]", ""},
		{"stream-scan-running-sum", Ints(1, 2, 3, 4), []step{st("stream"), st("scan", I(0), bin("+")), st("collect")}, "[1, 3, 6, 10]", ""},
		{"stream-take", Ints(1, 2, 3, 4, 5), []step{st("stream"), st("take", I(3)), st("collect")}, "[1, 2, 3]", ""},
		{"stream-take-until-pred", Ints(1, 2, 3, 4, 5), []step{st("stream"), st("take_until", pred(func(x value.Value) bool { return x == I(4) })), st("collect")}, "[1, 2, 3]", ""},
		{"stream-window-count", Ints(1, 2, 3, 4), []step{st("stream"), st("window", I(2)), st("collect")}, "[[1, 2], [2, 3], [3, 4]]", ""},
		{"stream3-window-on-empty-source-is-empty", L(), []step{st("stream"), st("window", I(2)), st("collect")}, "[]", ""},
		{"window-zero-is-arg-error", Ints(1), []step{st("stream"), st("window", I(0))}, "", "arg_error"},
		{"window-duration-instant-source-is-one-window", Ints(1, 2, 3), []step{st("stream"), st("window", value.Duration(time.Second)), st("collect")}, "[[1, 2, 3]]", ""},
		{"stream-dedupe", Ints(1, 1, 2, 2, 2, 3, 1), []step{st("stream"), st("dedupe"), st("collect")}, "[1, 2, 3, 1]", ""},
		{"stream-distinct", Ints(1, 1, 2, 2, 2, 3, 1), []step{st("stream"), st("distinct"), st("collect")}, "[1, 2, 3]", ""},
		{"stream-flat-map-lists", Ints(1, 2, 3), []step{st("stream"), st("flat_map", fn1(func(x value.Value) value.Value { return L(x, x.(value.Int)*10) })), st("collect")}, "[1, 10, 2, 20, 3, 30]", ""},
		{"stream-flat-map-substreams", Ints(1, 2), []step{st("stream"), st("flat_map", fn1(func(x value.Value) value.Value { return NewListStream("list", []value.Value{x}) })), st("collect")}, "[1, 2]", ""},
		{"stream-enumerate", Strs("a", "b", "c"), []step{st("stream"), st("enumerate"), st("collect")}, `[[0, "a"], [1, "b"], [2, "c"]]`, ""},
		{"stream-buffer-identity", Ints(1, 2, 3), []step{st("stream"), st("buffer", I(2)), st("collect")}, "[1, 2, 3]", ""},
		{"stream3-buffer-zero-is-identity", Ints(1, 2), []step{st("stream"), st("buffer", I(0)), st("collect")}, "[1, 2]", ""},
		{"stream-zip", Ints(1, 2, 3), []step{st("stream"), st("zip", NewListStream("list", Ints(10, 20).Items)), st("collect")}, "[[1, 10], [2, 20]]", ""},
		{"stream-merge-sum", Ints(1, 2), []step{st("stream"), st("merge", NewListStream("list", Ints(3, 4).Items)), st("sum")}, "10", ""},
		{"merge-interleaves", Ints(1, 2), []step{st("stream"), st("merge", NewListStream("list", Ints(3, 4, 5).Items)), st("collect")}, "[1, 3, 2, 4, 5]", ""},
		{"merge-non-stream-is-type-error", Ints(1), []step{st("stream"), st("merge", Ints(1))}, "", "type_error"},
		{"stream-throttle-finite-first", Ints(1, 2, 3), []step{st("stream"), st("throttle", value.Duration(time.Second)), st("collect")}, "[1]", ""},
		{"stream-debounce-finite-last", Ints(1, 2, 3), []step{st("stream"), st("debounce", value.Duration(time.Millisecond)), st("collect")}, "[3]", ""},
		{"debounce-negative-is-arg-error", Ints(1), []step{st("stream"), st("debounce", value.Duration(-1))}, "", "arg_error"},
		{"throttle-non-duration-is-arg-error", Ints(1), []step{st("stream"), st("throttle", I(5))}, "", "arg_error"},
		{"stream-from-range", value.Range{Start: 1, End: 5}, []step{st("stream"), st("map", fn1(func(x value.Value) value.Value { return x.(value.Int) * x.(value.Int) })), st("collect")}, "[1, 4, 9, 16]", ""},
		{"stream-from-huge-range-is-lazy", value.Range{Start: 0, End: 1 << 62}, []step{st("stream"), st("take", I(2)), st("collect")}, "[0, 1]", ""},
		{"stream-from-string-lines", S("error: a\ninfo: b\nerror: c"), []step{st("stream"), st("where", pred(func(x value.Value) bool { return len(x.(value.Str)) > 5 && x.(value.Str)[:5] == "error" })), st("collect")}, `["error: a", "error: c"]`, ""},
		{"bytes-stream-splits-into-lines", &value.Bytes{Data: []byte("a\nb")}, []step{st("stream"), st("collect")}, `["a", "b"]`, ""},
		{"stream-sum-sink", Ints(1, 2, 3, 4), []step{st("stream"), st("sum")}, "10", ""},
		{"stream-first-sink", Ints(5, 6, 7), []step{st("stream"), st("first")}, "5", ""},
		{"stream-len-sink", Ints(1, 2, 3, 4, 5), []step{st("stream"), st("take", I(3)), st("len")}, "3", ""},
		{"stream-sort-sink", Ints(3, 1, 2), []step{st("stream"), st("sort")}, "[1, 2, 3]", ""},
		{"stream2-skip-combinator", Ints(1, 2, 3, 4), []step{st("stream"), st("skip", I(2)), st("collect")}, "[3, 4]", ""},
		{"stream2-count-sink", Ints(1, 2), []step{st("stream"), st("count")}, "2", ""},
		{"stream2-empty-source-collects-to-empty-list", L(), []step{st("stream"), st("collect")}, "[]", ""},
		{"stream2-any-sink", Ints(1, 2, 3), []step{st("stream"), st("any", gt(2))}, "true", ""},
		{"stream2-all-sink", Ints(1, 2, 3), []step{st("stream"), st("all", gt(0))}, "true", ""},
		{"stream2-find-sink", Ints(1, 2, 3), []step{st("stream"), st("find", pred(func(x value.Value) bool { return x == I(2) }))}, "2", ""},
		{"streamsink-fallthrough-chunks", Ints(1, 2, 3, 4), []step{st("stream"), st("chunks", I(2))}, "[[1, 2], [3, 4]]", ""},
		{"streamsink-fallthrough-group", Ints(1, 1, 2), []step{st("stream"), st("group", fn1(func(x value.Value) value.Value { return x }))}, "[{key: 1, values: [1, 1]}, {key: 2, values: [2]}]", ""},
		{"streamsink-fallthrough-uniq-preserves-first-occurrence", Ints(3, 1, 3, 2), []step{st("stream"), st("uniq")}, "[3, 1, 2]", ""},
		{"streamsink-fallthrough-join", Strs("a", "b"), []step{st("stream"), st("join", S(","))}, `"a,b"`, ""},
		{"streamsink-fallthrough-reverse", Ints(1, 2, 3), []step{st("stream"), st("reverse")}, "[3, 2, 1]", ""},
		{"streamsink-fallthrough-min-max", Ints(3, 1, 2), []step{st("stream"), st("min")}, "1", ""},
		{"stream-each-returns-null", Ints(1, 2), []step{st("stream"), st("each", fn1(func(x value.Value) value.Value { return x }))}, "null", ""},
		{"stream-renders-with-label", Ints(1), []step{st("stream")}, "stream<list>", ""},
		{"tee-bounded-default-count-is-two", Ints(10, 20), []step{st("stream"), st("tee"), st("len")}, "2", ""},
		{"tee-count-three-yields-three-forks", Strs("a"), []step{st("stream"), st("tee", I(3)), st("map", methodFn("collect"))}, `[["a"], ["a"], ["a"]]`, ""},
		{"tee-zero-is-arg-error", Ints(1), []step{st("stream"), st("tee", I(0))}, "", "arg_error"},
		{"tee-on-a-list", Ints(1, 2), []step{st("tee"), st("map", methodFn("collect"))}, "[[1, 2], [1, 2]]", ""},
		{"stream-collect-unbounded-errors", live(0), []step{st("collect")}, "", "stream_unbounded"},
		{"live-fallback-is-unbounded", live(0), []step{st("sum")}, "", "stream_unbounded"},
		{"take-bounds-a-live-stream", live(0), []step{st("take", I(3)), st("collect")}, "[0, 1, 2]", ""},
		{"take-until-bounds-a-live-stream", live(0), []step{st("take_until", gt(2)), st("collect")}, "[0, 1, 2]", ""},
		{"tee-live-source-does-not-raise-stream-unbounded", live(time.Millisecond), []step{st("tee", I(2)), st("first"), st("take", I(2)), st("collect"), st("len")}, "2", ""},
	})
}

func TestStreamSingleConsumption(t *testing.T) {
	t.Parallel()
	s := NewListStream("list", Ints(1, 2, 3).Items)
	if _, err := chain(t, s, st("collect")); err != nil {
		t.Fatal(err)
	}
	_, err := chain(t, s, st("collect"))
	checkResult(t, nil, true, err, "", "stream_consumed", "")
	// A combinator consumes its upstream too.
	s2 := NewListStream("list", Ints(1).Items)
	if _, err := chain(t, s2, st("map", fn1(func(x value.Value) value.Value { return x }))); err != nil {
		t.Fatal(err)
	}
	_, err = chain(t, s2, st("sum"))
	checkResult(t, nil, true, err, "", "stream_consumed", "")
	// A bad call leaves the stream usable.
	s3 := NewListStream("list", Ints(1).Items)
	if _, err := chain(t, s3, st("take", I(-1))); err == nil {
		t.Fatal("take(-1) succeeded")
	}
	v, err := chain(t, s3, st("collect"))
	checkResult(t, v, true, err, "[1]", "", "")
	// A live stream is not consumed by a refused collect.
	l := live(0)
	if _, err := chain(t, l, st("collect")); err == nil {
		t.Fatal("collect of a live stream succeeded")
	}
	v, err = chain(t, l, st("take", I(1)), st("collect"))
	checkResult(t, v, true, err, "[0]", "", "")
}

func TestTeeLiveForksDriveIndependently(t *testing.T) {
	t.Parallel()
	forks, err := chain(t, live(0), st("tee", I(2)))
	if err != nil {
		t.Fatal(err)
	}
	fs := forks.(*value.List).Items
	a, err := chain(t, fs[0], st("take", I(2)), st("collect"))
	checkResult(t, a, true, err, "[0, 1]", "", "")
	b, err := chain(t, fs[1], st("take", I(2)), st("collect"))
	checkResult(t, b, true, err, "[0, 1]", "", "")
}

// TestTeeLiveLaggingForkSeesDropped drives one fork far ahead: the other
// keeps its first 64 items, then learns how many it lost.
func TestTeeLiveLaggingForkSeesDropped(t *testing.T) {
	t.Parallel()
	forks, err := chain(t, live(0), st("tee", I(2)))
	if err != nil {
		t.Fatal(err)
	}
	fs := forks.(*value.List).Items
	if _, err := chain(t, fs[0], st("take", I(100)), st("collect")); err != nil {
		t.Fatal(err)
	}
	got, err := chain(t, fs[1], st("take", I(66)), st("collect"))
	if err != nil {
		t.Fatal(err)
	}
	items := got.(*value.List).Items
	if items[0] != I(0) || items[63] != I(63) {
		t.Fatalf("lagging fork lost its queue: %s", value.RenderInline(got))
	}
	if r := value.RenderInline(items[64]); r != "{dropped: 36}" {
		t.Fatalf("item 64 = %s, want {dropped: 36}", r)
	}
	if items[65] != I(100) {
		t.Fatalf("item 65 = %s, want 100", value.RenderInline(items[65]))
	}
}

func TestTakeUntilStream(t *testing.T) {
	t.Parallel()
	// The other stream yields after ~20ms; the live source ticks every
	// millisecond, so some items pass and then the stream ends.
	stop := value.NewStream("value", &liveSource{delay: 20 * time.Millisecond})
	v, err := chain(t, live(time.Millisecond), st("take_until", stop), st("take", I(10000)), st("collect"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(v.(*value.List).Items)
	if n == 0 || n >= 10000 {
		t.Fatalf("take_until(stream) let %d items through", n)
	}
}

func TestDebounceLive(t *testing.T) {
	t.Parallel()
	// A burst of items 1ms apart, then the source blocks: debounce(50ms)
	// emits only the last item of the burst.
	src := &burstSource{n: 5, gap: time.Millisecond}
	s := value.NewStream("value", src)
	v, err := chain(t, s, st("debounce", value.Duration(50*time.Millisecond)), st("take", I(1)), st("collect"))
	checkResult(t, v, true, err, "[4]", "", "")
}

// burstSource yields n items gap apart, then blocks until cancelled.
type burstSource struct {
	n, i int
	gap  time.Duration
}

func (s *burstSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.i >= s.n {
		<-ctx.Done()
		return nil, false, ctx.Err()
	}
	time.Sleep(s.gap)
	s.i++
	return value.Int(s.i - 1), true, nil
}

func (s *burstSource) Bounded() bool { return false }

func TestDrainAndCollect(t *testing.T) {
	t.Parallel()
	var got []value.Value
	err := Drain(t.Context(), NewListStream("list", Ints(1, 2).Items), func(v value.Value) error {
		got = append(got, v)
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("Drain: %v, %d items", err, len(got))
	}
	items, err := Collect(t.Context(), NewListStream("list", Ints(7).Items))
	if err != nil || len(items) != 1 || items[0] != I(7) {
		t.Fatalf("Collect: %v %v", items, err)
	}
}

func TestLiveCombinators(t *testing.T) {
	runChains(t, []ccase{
		{"merge-live-streams", live(time.Millisecond), []step{st("merge", live(time.Millisecond)), st("take", I(6)), st("collect"), st("len")}, "6", ""},
		{"merge-live-is-unbounded", live(0), []step{st("merge", NewListStream("list", nil)), st("collect")}, "", "stream_unbounded"},
		{"zip-live-with-bounded-is-bounded", live(0), []step{st("zip", NewListStream("list", Strs("a", "b").Items)), st("collect")}, `[[0, "a"], [1, "b"]]`, ""},
		{"buffer-live-reads-ahead", live(0), []step{st("buffer", I(4)), st("take", I(3)), st("collect")}, "[0, 1, 2]", ""},
		{"throttle-live-zero-keeps-all", live(0), []step{st("throttle", value.Duration(0)), st("take", I(3)), st("collect")}, "[0, 1, 2]", ""},
		{"throttle-live-lets-items-through-after-the-window", live(time.Millisecond), []step{st("throttle", value.Duration(5*time.Millisecond)), st("take", I(2)), st("collect"), st("map", gt(0))}, "[false, true]", ""},
		{"window-duration-live-closes-on-time", &value.Stream{Src: &burstSource{n: 3, gap: time.Millisecond}}, []step{st("window", value.Duration(30*time.Millisecond)), st("take", I(1)), st("collect")}, "[[0, 1, 2]]", ""},
		{"map-error-stops-stream", Ints(1, 2), []step{st("stream"), st("map", fn(func(...value.Value) (value.Value, error) { return value.Binary("/", I(1), I(0)) })), st("collect")}, "", "div_zero"},
		{"where-non-bool-is-type-error", Ints(1), []step{st("stream"), st("where", fn1(func(x value.Value) value.Value { return x })), st("collect")}, "", "type_error"},
		{"flat-map-non-collection-is-type-error", Ints(1), []step{st("stream"), st("flat_map", fn1(func(x value.Value) value.Value { return x })), st("collect")}, "", "type_error"},
	})
	// Merging a stream with itself would read one source twice.
	s := NewListStream("list", Ints(1).Items)
	_, err := chain(t, s, st("merge", s))
	checkResult(t, nil, true, err, "", "arg_error", "")
}
