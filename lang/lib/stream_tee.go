package lib

import (
	"context"
	"sync"

	"github.com/shoal-sh/shoal/lang/value"
)

// tee(n = 2) splits one stream into n. A bounded stream is collected once
// and replayed by n independent streams. A live stream is shared: the
// forks pull from one upstream, each with its own queue of teeQueue
// items; a fork that lags loses items and later reads a {dropped: k}
// record in their place, so a slow consumer never stalls the others.

const teeQueue = 64

// teeCount reads tee's fork count: a non-negative int, and not 0.
func teeCount(c *call) (int, error) {
	a, err := c.params([]string{"n"}, 0, "")
	if err != nil {
		return 0, err
	}
	n := 2
	if a[0] != nil {
		if n, err = count(a[0]); err != nil {
			return 0, err
		}
	}
	if n == 0 {
		return 0, argErr("tee needs at least one fork")
	}
	if n > 1<<16 {
		return 0, argErr("tee of %d forks is too many", n)
	}
	return n, nil
}

// replays returns n streams over the same items.
func replays(label string, items []value.Value, n int) value.Value {
	out := make([]value.Value, n)
	for i := range out {
		out[i] = NewListStream(label, items)
	}
	return list(out)
}

// collTee is tee on a collection: n replaying streams.
func collTee(c *call) (value.Value, error) {
	n, err := teeCount(c)
	if err != nil {
		return nil, err
	}
	cl := recvColl(c)
	if err := cl.checkMaterialise(); err != nil {
		return nil, err
	}
	return replays(value.TypeName(c.recv), cl.all(), n), nil
}

func streamTee(c *call) (value.Value, error) {
	n, err := teeCount(c)
	if err != nil {
		return nil, err
	}
	s := recvStream(c)
	if s.Src == nil || s.Src.Bounded() {
		items, err := collectStream(c.ctx, s)
		if err != nil {
			return nil, err
		}
		return replays(s.Label, items, n), nil
	}
	up, err := take(s)
	if err != nil {
		return nil, err
	}
	hub := &teeHub{up: up}
	out := make([]value.Value, n)
	hub.forks = make([]*teeFork, n)
	for i := range out {
		hub.forks[i] = &teeFork{hub: hub}
		out[i] = value.NewStream(s.Label, hub.forks[i])
	}
	return list(out), nil
}

type teeHub struct {
	pull  sync.Mutex // one fork reads the upstream at a time
	mu    sync.Mutex // guards the fields below and every fork's queue
	up    value.StreamSource
	forks []*teeFork
	ended bool
	err   error
}

type teeFork struct {
	hub     *teeHub
	queue   []value.Value
	dropped int64
}

func (f *teeFork) Bounded() bool { return f.hub.up.Bounded() }

var droppedShape = value.NewShape([]string{"dropped"})

func droppedRecord(k int64) value.Value {
	return &value.Record{Shape: droppedShape, Vals: []value.Value{value.Int(k)}}
}

// ready pops the fork's next queued item; h.mu must be held.
func (f *teeFork) ready() (value.Value, bool) {
	if len(f.queue) > 0 {
		v := f.queue[0]
		f.queue[0] = nil
		f.queue = f.queue[1:]
		return v, true
	}
	if f.dropped > 0 {
		k := f.dropped
		f.dropped = 0
		return droppedRecord(k), true
	}
	return nil, false
}

func (f *teeFork) Next(ctx context.Context) (value.Value, bool, error) {
	h := f.hub
	for {
		h.mu.Lock()
		if v, ok := f.ready(); ok {
			h.mu.Unlock()
			return v, true, nil
		}
		if h.ended {
			err := h.err
			h.mu.Unlock()
			return nil, false, err
		}
		h.mu.Unlock()

		h.pull.Lock()
		h.mu.Lock()
		// Another fork may have pulled while this one waited.
		busy := len(f.queue) > 0 || f.dropped > 0 || h.ended
		h.mu.Unlock()
		if busy {
			h.pull.Unlock()
			continue
		}
		v, ok, err := h.up.Next(ctx)
		h.mu.Lock()
		if !ok || err != nil {
			h.ended, h.err = true, err
		} else {
			for _, g := range h.forks {
				g.offer(v)
			}
		}
		h.mu.Unlock()
		h.pull.Unlock()
	}
}

// offer queues v, or counts it as dropped when the queue is full; h.mu
// must be held. A drop count is queued as a record in order, before the
// next item that fits.
func (f *teeFork) offer(v value.Value) {
	if len(f.queue) >= teeQueue {
		f.dropped++
		return
	}
	if f.dropped > 0 {
		f.queue = append(f.queue, droppedRecord(f.dropped))
		f.dropped = 0
	}
	f.queue = append(f.queue, v)
}
