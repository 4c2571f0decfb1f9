package lib

import (
	"context"
	"time"

	"github.com/shoal-sh/shoal/lang/value"
)

// Time-based combinators. Over an instant source (in-memory data) every
// item arrives at the same moment, so they are decided without a clock:
// debounce keeps the last item, throttle the first, window(d) makes one
// window. Over a live source they use real time.

// debounceSource emits an item once d passes with no newer item; at the
// end of the source the pending item is emitted.
type debounceSource struct {
	stage
	d    time.Duration
	ch   <-chan pumped
	done bool
}

func (s *debounceSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	if s.d == 0 {
		return s.up.Next(ctx)
	}
	if s.instant() {
		s.done = true
		var last value.Value
		have := false
		for {
			v, ok, err := s.up.Next(ctx)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				return last, have, nil
			}
			last, have = v, true
		}
	}
	if s.ch == nil {
		s.ch = pump(ctx, s.up)
	}
	var pending value.Value
	have := false
	for {
		var timeout <-chan time.Time
		if have {
			// Unstopped timers are collected since Go 1.23.
			timeout = time.After(s.d)
		}
		select {
		case it, open := <-s.ch:
			if !open || !it.ok || it.err != nil {
				s.done = true
				if it.err != nil {
					return nil, false, it.err
				}
				return pending, have, nil
			}
			pending, have = it.v, true
		case <-timeout:
			return pending, true, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

func streamDebounce(c *call) (value.Value, error) {
	d, err := durationArg(c)
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &debounceSource{stage: stage{up, c.env}, d: d}
	})
}

// throttleSource emits an item, then drops items for d.
type throttleSource struct {
	stage
	d       time.Duration
	last    time.Time
	emitted bool
}

func (s *throttleSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			return nil, false, err
		}
		if s.d == 0 || !s.emitted {
			s.emitted, s.last = true, time.Now()
			return v, true, nil
		}
		if s.instant() {
			// Every later item of an instant source falls inside d.
			continue
		}
		if now := time.Now(); now.Sub(s.last) >= s.d {
			s.last = now
			return v, true, nil
		}
	}
}

func streamThrottle(c *call) (value.Value, error) {
	d, err := durationArg(c)
	if err != nil {
		return nil, err
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		return &throttleSource{stage: stage{up, c.env}, d: d}
	})
}

// windowSource emits sliding windows of exactly n items, or (with a
// duration) the items arriving within d of a window's first item; over a
// live source a window closes on time, even if no later item arrives.
type windowSource struct {
	stage
	n     int
	d     time.Duration
	buf   []value.Value
	start time.Time
	ch    <-chan pumped
	done  bool
}

func (s *windowSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	if s.d == 0 {
		return s.sliding(ctx)
	}
	if s.instant() {
		// Everything arrives at once: one window.
		for {
			v, ok, err := s.up.Next(ctx)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				s.done = true
				return list(s.buf), len(s.buf) > 0, nil
			}
			s.buf = append(s.buf, v)
		}
	}
	if s.ch == nil {
		s.ch = pump(ctx, s.up)
	}
	for {
		var timeout <-chan time.Time
		if len(s.buf) > 0 {
			timeout = time.After(time.Until(s.start.Add(s.d)))
		}
		select {
		case it, open := <-s.ch:
			if !open || !it.ok || it.err != nil {
				s.done = true
				if it.err != nil {
					return nil, false, it.err
				}
				return list(s.buf), len(s.buf) > 0, nil
			}
			if len(s.buf) == 0 {
				s.start = time.Now()
			}
			s.buf = append(s.buf, it.v)
		case <-timeout:
			w := s.buf
			s.buf = nil
			return list(w), true, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

func (s *windowSource) sliding(ctx context.Context) (value.Value, bool, error) {
	for {
		v, ok, err := s.up.Next(ctx)
		if !ok || err != nil {
			s.done = true
			return nil, false, err
		}
		if len(s.buf) == s.n {
			s.buf = s.buf[1:]
		}
		s.buf = append(s.buf, v)
		if len(s.buf) == s.n {
			return list(append([]value.Value(nil), s.buf...)), true, nil
		}
	}
}

func streamWindow(c *call) (value.Value, error) {
	v, err := c.one("n", "a size or a duration")
	if err != nil {
		return nil, err
	}
	w := &windowSource{}
	switch x := v.(type) {
	case value.Int:
		if x <= 0 {
			return nil, argErr("window needs a size of at least 1, found %d", int64(x))
		}
		w.n = int(min(int64(x), int64(maxMaterialise)))
	case value.Duration:
		if x <= 0 {
			return nil, argErr("window needs a positive duration, found %s", value.RenderInline(x))
		}
		w.d = time.Duration(x)
	default:
		return nil, typeErr("window expects an int or a duration, found %s", value.TypeName(v))
	}
	return combine(c, func(up value.StreamSource) value.StreamSource {
		w.stage = stage{up, c.env}
		return w
	})
}
