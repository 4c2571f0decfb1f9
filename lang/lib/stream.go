package lib

import (
	"context"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// Streams (LANGUAGE.md §12.1): bounded sources over in-memory values, and
// the single-consumer protocol shared by combinators and sinks. The
// combinators are in stream_ops.go, tee in stream_tee.go.

// sliceSource replays a slice of items. It is instant: every item is
// available without waiting, which lets time-based combinators
// (debounce, throttle, window(d)) decide without a clock.
type sliceSource struct {
	items []value.Value
	i     int
}

func (s *sliceSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.i >= len(s.items) {
		return nil, false, nil
	}
	v := s.items[s.i]
	s.i++
	return v, true, nil
}

func (s *sliceSource) Bounded() bool { return true }
func (s *sliceSource) instant() bool { return true }

// collSource streams a collection lazily, so (0..1_000_000_000).stream()
// .take(3) never materialises the range.
type collSource struct {
	c coll
	i int
}

func (s *collSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.i >= s.c.n {
		return nil, false, nil
	}
	v := s.c.at(s.i)
	s.i++
	return v, true, nil
}

func (s *collSource) Bounded() bool { return true }
func (s *collSource) instant() bool { return true }

// instanter is implemented by sources whose items never wait (in-memory
// data, and combinators over such sources).
type instanter interface{ instant() bool }

func isInstant(s value.StreamSource) bool {
	i, ok := s.(instanter)
	return ok && i.instant()
}

// NewListStream returns a bounded stream replaying items; label is the
// kind it came from (rendered stream<label>).
func NewListStream(label string, items []value.Value) *value.Stream {
	return value.NewStream(label, &sliceSource{items: items})
}

// collStream is .stream() on a collection.
func collStream(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	cl := recvColl(c)
	return value.NewStream(value.TypeName(c.recv), &collSource{c: cl}), nil
}

// textStream is .stream() on str and bytes: a stream of lines (bytes are
// decoded lossily).
func textStream(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	var text string
	switch x := c.recv.(type) {
	case value.Str:
		text = string(x)
	case *value.Bytes:
		data, err := bytesData(c.ctx, x)
		if err != nil {
			return nil, err
		}
		text = lossy(data)
	}
	lines := splitLines(text)
	items := make([]value.Value, len(lines))
	for i, l := range lines {
		items[i] = value.Str(l)
	}
	return NewListStream(value.TypeName(c.recv), items), nil
}

// unboundedErr is raised when a live stream would have to be collected.
func unboundedErr() error {
	return diag.New(diag.StreamUnbounded, "cannot collect a live stream: it never ends").
		WithHint("bound it first with .take(n) or .take_until(…), or consume it item by item with .each(f)")
}

// take claims s for one consumer.
func take(s *value.Stream) (value.StreamSource, error) {
	src, err := s.Take()
	if err != nil {
		return nil, err
	}
	if src == nil {
		return &sliceSource{}, nil
	}
	return src, nil
}

// Collect consumes a bounded stream into a slice. A live stream raises
// stream_unbounded without being consumed; a consumed one
// stream_consumed. The evaluator uses it for `for` loops and other
// materialising uses of a stream.
func Collect(ctx context.Context, s *value.Stream) ([]value.Value, error) {
	return collectStream(ctx, s)
}

func collectStream(ctx context.Context, s *value.Stream) ([]value.Value, error) {
	if s.Src != nil && !s.Src.Bounded() {
		return nil, unboundedErr()
	}
	src, err := take(s)
	if err != nil {
		return nil, err
	}
	out := []value.Value{}
	for {
		v, ok, err := src.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, v)
	}
}

// Drain consumes s, calling f on each item as it arrives; it works on
// live streams too (ending when ctx is cancelled or f fails). The
// evaluator's save, append, into and render sinks are built on it.
func Drain(ctx context.Context, s *value.Stream, f func(value.Value) error) error {
	src, err := take(s)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, ok, err := src.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := f(v); err != nil {
			return err
		}
	}
}

func recvStream(c *call) *value.Stream { return c.recv.(*value.Stream) }

func streamCollect(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	items, err := collectStream(c.ctx, recvStream(c))
	if err != nil {
		return nil, err
	}
	return list(items), nil
}

func streamEach(c *call) (value.Value, error) {
	f, err := c.fn()
	if err != nil {
		return nil, err
	}
	err = Drain(c.ctx, recvStream(c), func(v value.Value) error {
		_, err := c.apply(f, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return value.Null{}, nil
}

// streamSelf is .stream() on a stream: the handle itself, unconsumed.
func streamSelf(c *call) (value.Value, error) {
	if err := c.noArgs(); err != nil {
		return nil, err
	}
	return c.recv, nil
}
