package lib

import (
	"context"
	"time"

	"github.com/shoal-sh/shoal/lang/value"
)

// The lazy stream combinators of §12.1. Each validates its arguments,
// then claims the upstream (so a bad call does not consume the stream)
// and returns a new stream over a source that pulls on demand.

// combine claims the receiver and wraps its source.
func combine(c *call, wrap func(up value.StreamSource) value.StreamSource) (value.Value, error) {
	s := recvStream(c)
	up, err := take(s)
	if err != nil {
		return nil, err
	}
	return value.NewStream(s.Label, wrap(up)), nil
}

// stage holds what every derived source shares: the upstream and the
// evaluator for callbacks.
type stage struct {
	up  value.StreamSource
	env Env
}

func (s *stage) Bounded() bool { return s.up.Bounded() }
func (s *stage) instant() bool { return isInstant(s.up) }

func (s *stage) call(ctx context.Context, f value.Value, args ...value.Value) (value.Value, error) {
	if s.env == nil {
		return nil, noEnvErr()
	}
	return s.env.Call(ctx, f, args...)
}

type mapSource struct {
	stage
	f value.Value
}

func (s *mapSource) Next(ctx context.Context) (value.Value, bool, error) {
	v, ok, err := s.up.Next(ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	r, err := s.call(ctx, s.f, v)
	return r, err == nil, err
}

func streamMap(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &mapSource{stage{up, c.env}, f}
	})
}

type whereSource struct {
	stage
	p value.Value
}

func (s *whereSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		r, err := s.call(ctx, s.p, v)
		if err != nil {
			return nil, false, err
		}
		keep, err := value.Cond(r)
		if err != nil {
			return nil, false, err
		}
		if keep {
			return v, true, nil
		}
	}
}

func streamWhere(c *call) (value.Value, error) {
	p, err := c.one("p", "a predicate")
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &whereSource{stage{up, c.env}, p}
	})
}

// scanSource emits every intermediate accumulator.
type scanSource struct {
	stage
	acc, f value.Value
}

func (s *scanSource) Next(ctx context.Context) (value.Value, bool, error) {
	v, ok, err := s.up.Next(ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	if s.acc, err = s.call(ctx, s.f, s.acc, v); err != nil {
		return nil, false, err
	}
	return s.acc, true, nil
}

func streamScan(c *call) (value.Value, error) {
	a, err := c.params([]string{"init", "f"}, 2, "an initial value and a function")
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &scanSource{stage{up, c.env}, a[0], a[1]}
	})
}

// flatMapSource drains each result of f (a collection or a stream)
// before pulling the next upstream item.
type flatMapSource struct {
	stage
	f   value.Value
	cur value.StreamSource
}

func (s *flatMapSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		if s.cur != nil {
			v, ok, err := s.cur.Next(ctx)
			if err != nil {
				return nil, false, err
			}
			if ok {
				return v, true, nil
			}
			s.cur = nil
		}
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		r, err := s.call(ctx, s.f, v)
		if err != nil {
			return nil, false, err
		}
		if s.cur, err = sourceOf(r, "flat_map"); err != nil {
			return nil, false, err
		}
	}
}

// sourceOf turns a collection or a stream into a source (claiming the
// stream).
func sourceOf(v value.Value, what string) (value.StreamSource, error) {
	if st, ok := v.(*value.Stream); ok {
		return take(st)
	}
	if cl, ok := asColl(v); ok {
		return &collSource{c: cl}, nil
	}
	return nil, typeErr("%s expects a list, table, range or stream, found %s", what, value.TypeName(v))
}

func streamFlatMap(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &flatMapSource{stage: stage{up, c.env}, f: f}
	})
}

// takeSource ends after n items without pulling more, so taking from a
// live stream bounds it.
type takeSource struct {
	stage
	n, i int
}

func (s *takeSource) Bounded() bool { return true }

func (s *takeSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.i >= s.n {
		return nil, false, nil
	}
	v, ok, err := s.up.Next(ctx)
	if ok {
		s.i++
	}
	return v, ok, err
}

func streamTake(c *call) (value.Value, error) {
	v, err := c.one("n", "a count")
	if err != nil {
		return nil, err
	}
	n, err := count(v)
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &takeSource{stage: stage{up, c.env}, n: n}
	})
}

// takeUntilPred stops before the first item satisfying the predicate.
// Like take, it bounds a live stream: the caller has said when it ends.
type takeUntilPred struct {
	stage
	p    value.Value
	done bool
}

func (s *takeUntilPred) Bounded() bool { return true }

func (s *takeUntilPred) Next(ctx context.Context) (value.Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	v, ok, err := s.up.Next(ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	r, err := s.call(ctx, s.p, v)
	if err != nil {
		return nil, false, err
	}
	stop, err := value.Cond(r)
	if err != nil {
		return nil, false, err
	}
	if stop {
		s.done = true
		return nil, false, nil
	}
	return v, true, nil
}

// takeUntilStream stops when the other stream yields its first item. The
// other stream is watched from its own goroutine, and a blocked upstream
// read is cancelled when it fires.
type takeUntilStream struct {
	stage
	other   value.StreamSource
	fired   chan struct{}
	started bool
}

func (s *takeUntilStream) stopped() bool {
	select {
	case <-s.fired:
		return true
	default:
		return false
	}
}

func (s *takeUntilStream) Next(ctx context.Context) (value.Value, bool, error) {
	if !s.started {
		s.started = true
		go func() {
			if _, ok, _ := s.other.Next(ctx); ok {
				close(s.fired)
			}
		}()
	}
	if s.stopped() {
		return nil, false, nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.fired:
			cancel()
		case <-rctx.Done():
		}
	}()
	v, ok, err := s.up.Next(rctx)
	if s.stopped() {
		return nil, false, nil
	}
	return v, ok, err
}

func (s *takeUntilStream) instant() bool { return false }
func (s *takeUntilStream) Bounded() bool { return true }

func streamTakeUntil(c *call) (value.Value, error) {
	p, err := c.one("p", "a predicate or a stream")
	if err != nil {
		return nil, err
	}
	if other, ok := p.(*value.Stream); ok {
		if other == recvStream(c) {
			return nil, argErr("take_until cannot watch the stream it is taking from")
		}
		osrc, err := take(other)
		if err != nil {
			return nil, err
		}
		return combine(c, func(up value.StreamSource) value.StreamSource {
			return &takeUntilStream{stage: stage{up, c.env}, other: osrc, fired: make(chan struct{})}
		})
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &takeUntilPred{stage: stage{up, c.env}, p: p}
	})
}

// dedupeSource drops an item equal to the previous one.
type dedupeSource struct {
	stage
	prev value.Value
	have bool
}

func (s *dedupeSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		if s.have {
			eq, err := value.Equal(s.prev, v)
			if err != nil {
				return nil, false, err
			}
			if eq {
				continue
			}
		}
		s.prev, s.have = v, true
		return v, true, nil
	}
}

func streamDedupe(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &dedupeSource{stage: stage{up, c.env}}
	})
}

// distinctSource drops any item seen before.
type distinctSource struct {
	stage
	seen valueIndex
	n    int
}

func (s *distinctSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		_, found, err := s.seen.find(v)
		if err != nil {
			return nil, false, err
		}
		if !found {
			s.seen.add(v, s.n)
			s.n++
			return v, true, nil
		}
	}
}

func streamDistinct(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &distinctSource{stage: stage{up, c.env}}
	})
}

// bufferSource reads ahead: over a live source a goroutine keeps up to
// n items queued, so a slow consumer does not hold the producer back. An
// instant source, or buffer(0), passes items straight through.
type bufferSource struct {
	stage
	n  int
	ch chan pumped
}

func (s *bufferSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.n == 0 || s.instant() {
		return s.up.Next(ctx)
	}
	if s.ch == nil {
		s.ch = make(chan pumped, s.n)
		go func() {
			defer close(s.ch)
			for {
				v, ok, err := s.up.Next(ctx)
				select {
				case s.ch <- pumped{v, ok, err}:
				case <-ctx.Done():
					return
				}
				if !ok || err != nil {
					return
				}
			}
		}()
	}
	select {
	case it, open := <-s.ch:
		if !open {
			return nil, false, nil
		}
		return it.v, it.ok, it.err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func streamBuffer(c *call) (value.Value, error) {
	v, err := c.one("n", "a size")
	if err != nil {
		return nil, err
	}
	n, err := count(v)
	if err != nil {
		return nil, err
	}
	n = min(n, 1<<20)
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &bufferSource{stage: stage{up, c.env}, n: n}
	})
}

type enumerateSource struct {
	stage
	i int64
}

func (s *enumerateSource) Next(ctx context.Context) (value.Value, bool, error) {
	v, ok, err := s.up.Next(ctx)
	if !ok || err != nil {
		return nil, false, err
	}
	p := list([]value.Value{value.Int(s.i), v})
	s.i++
	return p, true, nil
}

func streamEnumerate(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &enumerateSource{stage: stage{up, c.env}}
	})
}

// otherStream reads the stream argument of merge and zip.
func otherStream(c *call) (*value.Stream, error) {
	v, err := c.one("other", "a stream")
	if err != nil {
		return nil, err
	}
	s, ok := v.(*value.Stream)
	if !ok {
		return nil, typeErr("%s expects a stream, found %s", c.name, value.TypeName(v))
	}
	if s == recvStream(c) {
		return nil, argErr("%s needs two different streams", c.name)
	}
	return s, nil
}

// zipSource pairs items until either side ends.
type zipSource struct {
	a, b value.StreamSource
	done bool
}

func (s *zipSource) Bounded() bool { return s.a.Bounded() || s.b.Bounded() }
func (s *zipSource) instant() bool { return isInstant(s.a) && isInstant(s.b) }

func (s *zipSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	x, ok, err := s.a.Next(ctx)
	if !ok || err != nil {
		s.done = true
		return nil, false, err
	}
	y, ok, err := s.b.Next(ctx)
	if !ok || err != nil {
		s.done = true
		return nil, false, err
	}
	return list([]value.Value{x, y}), true, nil
}

func streamZip(c *call) (value.Value, error) {
	return withOther(c, func(up, other value.StreamSource) value.StreamSource {
		return &zipSource{a: up, b: other}
	})
}

// withOther is the shape of the two-stream combinators (zip, merge): take
// the argument stream's source, then combine it with the receiver's.
func withOther(c *call, mk func(up, other value.StreamSource) value.StreamSource) (value.Value, error) {
	o, err := otherStream(c)
	if err != nil {
		return nil, err
	}
	osrc, err := take(o)
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource { return mk(up, osrc) })
}

// mergeSource interleaves two streams. Instant sources alternate
// deterministically; otherwise each side is pumped by its own goroutine
// and items are emitted as they arrive.
type mergeSource struct {
	a, b       value.StreamSource
	aEnd, bEnd bool
	turn       bool
	chA, chB   <-chan pumped
}

func (s *mergeSource) Bounded() bool { return s.a.Bounded() && s.b.Bounded() }
func (s *mergeSource) instant() bool { return isInstant(s.a) && isInstant(s.b) }

func (s *mergeSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.instant() {
		for !(s.aEnd && s.bEnd) {
			s.turn = !s.turn
			src, end := s.a, &s.aEnd
			if !s.turn {
				src, end = s.b, &s.bEnd
			}
			if *end {
				continue
			}
			v, ok, err := src.Next(ctx)
			if err != nil {
				return nil, false, err
			}
			if ok {
				return v, true, nil
			}
			*end = true
		}
		return nil, false, nil
	}
	if s.chA == nil {
		s.chA, s.chB = pump(ctx, s.a), pump(ctx, s.b)
	}
	for s.chA != nil || s.chB != nil {
		var it pumped
		var open bool
		select {
		case it, open = <-s.chA:
			if !open || !it.ok || it.err != nil {
				s.chA = nil
			}
		case it, open = <-s.chB:
			if !open || !it.ok || it.err != nil {
				s.chB = nil
			}
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if it.err != nil {
			return nil, false, it.err
		}
		if open && it.ok {
			return it.v, true, nil
		}
	}
	return nil, false, nil
}

func streamMerge(c *call) (value.Value, error) {
	return withOther(c, func(up, other value.StreamSource) value.StreamSource {
		return &mergeSource{a: up, b: other}
	})
}

// pumped is one upstream read handed over by a pump goroutine.
type pumped struct {
	v   value.Value
	ok  bool
	err error
}

// pump reads src from its own goroutine until it ends, fails or ctx is
// cancelled, so a consumer can wait on it together with a timer or a
// second stream.
func pump(ctx context.Context, src value.StreamSource) <-chan pumped {
	ch := make(chan pumped)
	go func() {
		defer close(ch)
		for {
			v, ok, err := src.Next(ctx)
			select {
			case ch <- pumped{v, ok, err}:
			case <-ctx.Done():
				return
			}
			if !ok || err != nil {
				return
			}
		}
	}()
	return ch
}

// durationArg reads the non-negative duration of debounce and throttle.
func durationArg(c *call) (time.Duration, error) {
	v, err := c.one("d", "a duration")
	if err != nil {
		return 0, err
	}
	d, ok := v.(value.Duration)
	if !ok || d < 0 {
		return 0, argErr("%s needs a non-negative duration, found %s", c.name, value.RenderInline(v))
	}
	return time.Duration(d), nil
}
