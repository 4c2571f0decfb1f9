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
// duration) the items arriving within each period of d, a window closing
// when the first item after it arrives or the source ends.
type windowSource struct {
	stage
	n     int
	d     time.Duration
	buf   []value.Value
	start time.Time
	done  bool
}

func (s *windowSource) Next(ctx context.Context) (value.Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	if s.d == 0 {
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
	for {
		v, ok, err := s.up.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			s.done = true
			if len(s.buf) == 0 {
				return nil, false, nil
			}
			return list(s.buf), true, nil
		}
		now := time.Now()
		if len(s.buf) == 0 {
			s.start = now
		} else if !s.instant() && now.Sub(s.start) >= s.d {
			w := s.buf
			s.buf, s.start = []value.Value{v}, now
			return list(w), true, nil
		}
		s.buf = append(s.buf, v)
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
