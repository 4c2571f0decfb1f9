package jsonrpc

import (
	"context"
	"sync"
	"time"
)

// takeoverAfter is how long the reader serves an item itself before another goroutine goes on
// reading: long enough that a quick request never pays for a second goroutine, short enough
// that a disconnect or a cancellation behind a long request is seen at once.
const takeoverAfter = 2 * time.Millisecond

// The takeover timer is not reset for every item. Arming a runtime timer that is due before
// any other wakes a thread to watch it (the one asleep in the network poller, or an idle one),
// and on a VM whose idle CPUs halt that wakeup cost a quick request a tenth of its round trip.
// So the timer is armed only by an item that finds none pending, and a tick re-arms it for
// the item served by then, or leaves it unarmed once the reader is idle: back-to-back
// requests arm it about once per takeoverAfter instead of once each.

// serveInline serves w on the reader goroutine. If it is still running after takeoverAfter
// (or its handler calls the peer, or answers early) another goroutine becomes the reader and
// this one ends with the handler; serveInline then reports lost.
func (c *Conn) serveInline(w work) (lost bool) {
	c.omu.Lock()
	if w.reply != nil {
		c.perform(w, nil)
		c.releaseOrdered()
		return false
	}
	run := &running{conn: c, req: w.req, ordered: true, byReader: true, start: time.Now()}
	run.reading.Store(readerServing)
	c.owg.Add(1)
	c.inline.Store(run)
	if !c.armed.Load() && c.armed.CompareAndSwap(false, true) {
		c.armTakeover(takeoverAfter)
	}
	early := c.perform(w, run)
	c.inline.CompareAndSwap(run, nil)
	if !early {
		c.releaseOrdered()
		c.owg.Done()
	}
	return !run.reading.CompareAndSwap(readerServing, readerDone)
}

func (c *Conn) armTakeover(d time.Duration) {
	c.arms.Add(1)
	c.takeover.Reset(d)
}

// takeoverTick runs when the takeover timer fires: it takes over the item being served if
// that has run for takeoverAfter, re-arms for a younger one, and else leaves the timer
// unarmed.
func (c *Conn) takeoverTick() {
	r := c.inline.Load()
	if r != nil && r.reading.Load() == readerServing {
		if left := takeoverAfter - time.Since(r.start); left > 0 {
			c.armTakeover(left)
			return
		}
		c.takeOver(r)
	}
	c.armed.Store(false)
	// serveInline arms the timer only when it finds it unarmed, so an item it stored after
	// the Load above (while armed was still set) is this tick's to arm.
	if n := c.inline.Load(); n != nil && n != r && c.armed.CompareAndSwap(false, true) {
		c.armTakeover(takeoverAfter - time.Since(n.start))
	}
}

// takeOver starts a new reader if r's reader still serves it, and arms r's late answer (see
// [AnswerAfter]) now that r is known to be slow.
func (c *Conn) takeOver(r *running) {
	if r.reading.CompareAndSwap(readerServing, readerTaken) {
		c.reader()
		if l := r.late.Load(); l != nil && r.state.Load() == stateRunning {
			l.arm()
		}
	}
}

// lateAnswer is an answer due at a point in time unless stopped first (see [AnswerAfter]).
type lateAnswer struct {
	mu      sync.Mutex
	at      time.Time
	answer  func()
	timer   *time.Timer
	stopped bool
}

func (l *lateAnswer) arm() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped && l.timer == nil {
		l.timer = time.AfterFunc(time.Until(l.at), l.answer)
	}
}

func (l *lateAnswer) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
}

// AnswerAfter arranges for result to be sent as the response of the request whose handler
// received ctx, as by [AnswerEarly], if that handler is still running after d. Calling stop
// cancels the arrangement; a handler that returns first calls it. A request the reader serves
// itself arms no timer of its own until it has run for takeoverAfter, so on a quick request
// the arrangement costs no wakeup (see takeoverTick). Outside a request it does nothing.
func AnswerAfter(ctx context.Context, d time.Duration, result any) (stop func()) {
	r, _ := ctx.Value(connKey{}).(*running)
	if r == nil || r.req.IsNotification() {
		return func() {}
	}
	answer := func() { AnswerEarly(ctx, result) }
	if !r.byReader || d <= takeoverAfter {
		t := time.AfterFunc(d, answer)
		return func() { t.Stop() }
	}
	l := &lateAnswer{at: time.Now().Add(d), answer: answer}
	r.late.Store(l)
	if r.reading.Load() != readerServing { // taken over already: takeOver did not see l
		l.arm()
	}
	return l.stop
}
