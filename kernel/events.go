package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// The event bus (AGENT-SURFACE §4.4–4.5). Each channel keeps a ring of the newest 1024 events
// and a set of subscriptions. A subscription owns a queue of 256 events and one writer
// goroutine, so a publisher only ever appends under a short lock and never waits for a peer;
// when a queue is full the subscription counts what it misses and delivers one gap event
// {dropped, latest_seq} after the events it still holds, before anything newer.
//
// Visibility: session-scoped channels (session.transcript, render, task.N, pty.N) carry the
// (principal, session) that owns each event and reach only viewers attached to it; user.NAME
// channels are separate per session; journal events follow journal.query's scoping; approval
// events reach the plan's owner and local approvers.

// viewer is who reads or subscribes.
type viewer struct {
	principal string
	session   string
	local     bool // the kernel's own principal: sees every journal and approval event
	journal   bool // journal_read: may see journal events at all
	readAll   bool // journal_read_all: sees every principal's journal events
	// approves reports whether this viewer may approve plans of an owner principal (it then
	// sees their approval events); nil approves nobody.
	approves func(owner string) bool
}

// owner is who an event belongs to; the zero owner means everyone.
type owner struct {
	principal string
	session   string
}

type ringEvent struct {
	ev    proto.Event
	owner owner
}

type channel struct {
	name    string
	durable bool
	next    uint64
	ring    []ringEvent // circular once full
	start   int         // index of the oldest event when full
	subs    map[*subscription]struct{}

	// A durable channel's events are numbered and their write queued under mu, then delivered
	// after the commit, in seq order: delivered is the next seq to deliver, and turn (on mu)
	// wakes publishers waiting for theirs. So publishers share journal commits without ever
	// letting a subscriber see an event before it is stored, or out of order.
	delivered uint64
	turn      *sync.Cond

	// mu guards next, ring, start, subs and delivered. Each channel has its own lock.
	mu sync.Mutex
}

type bus struct {
	log     *slog.Logger
	journal Journal
	now     func() int64

	mu    sync.Mutex // guards chans only
	chans map[string]*channel
}

func newBus(j Journal, now func() int64, log *slog.Logger) *bus {
	return &bus{journal: j, now: now, log: log, chans: map[string]*channel{}}
}

func isDurable(name string) bool {
	return name == proto.ChannelJournal || name == proto.ChannelTranscript
}

// channelKey separates user.* channels per session; every other channel is kernel-wide and
// filtered by owner.
func channelKey(name string, v viewer) string {
	if strings.HasPrefix(name, "user.") {
		return v.principal + "\x00" + v.session + "\x00" + name
	}
	return name
}

// get returns the channel, creating it (and loading a durable channel's next seq).
func (b *bus) get(ctx context.Context, key, name string) *channel {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chans[key]
	if c != nil {
		return c
	}
	c = &channel{name: name, durable: isDurable(name), subs: map[*subscription]struct{}{}}
	if c.durable {
		n, err := b.journal.NextSeq(ctx, name)
		if err != nil {
			// Without the stored counter seqs would restart at 0 and collide with history.
			b.log.Error("kernel: read channel seq", "channel", name, "error", err)
		}
		c.next, c.delivered = n, n
		c.turn = sync.NewCond(&c.mu)
	}
	b.chans[key] = c
	return c
}

// lookup returns the channel if it exists, without creating it.
func (b *bus) lookup(key string) *channel {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.chans[key]
}

// remove drops a kernel-wide ring channel (a task's task.N once the task is evicted), so the
// bus does not grow with every task. Subscriptions still holding it keep working until they
// are unsubscribed; nothing publishes on it any more.
func (b *bus) remove(name string) {
	b.mu.Lock()
	delete(b.chans, name)
	b.mu.Unlock()
}

// channelCount is the number of channels the bus holds (tests).
func (b *bus) channelCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.chans)
}

// visible reports whether v may see an event owned by o on channel name.
func visible(name string, o owner, v viewer) bool {
	if o == (owner{}) {
		return true
	}
	switch name {
	case proto.ChannelJournal:
		return v.journal && (v.local || v.readAll || o.principal == v.principal)
	case proto.ChannelApproval:
		return v.local || o.principal == v.principal || v.approves != nil && v.approves(o.principal)
	}
	return o.principal == v.principal && o.session == v.session
}

// publish appends an event and hands it to the subscriptions that may see it. For durable
// channels entryID names the journal row, and the event is persisted before anyone sees it.
func (b *bus) publish(ctx context.Context, name string, o owner, payload json.RawMessage, entryID int64) proto.Event {
	if isDurable(name) {
		evs := b.publishDurable(ctx, o, []durableEvent{{name, payload, entryID}}, func(evs []StoredEvent) func() error {
			return b.journal.QueueFinish(ctx, 0, nil, evs)
		})
		return evs[0]
	}
	key := name
	if strings.HasPrefix(name, "user.") {
		key = channelKey(name, viewer{principal: o.principal, session: o.session})
	}
	c := b.get(ctx, key, name)
	c.mu.Lock()
	defer c.mu.Unlock()
	ev := proto.Event{Channel: name, Seq: c.next, Ts: b.now(), Payload: payload}
	c.next++
	c.deliver(ev, o)
	return ev
}

// durableEvent is one event for publishDurable; entryID names its journal row.
type durableEvent struct {
	name    string
	payload json.RawMessage
	entryID int64
}

// publishDurable publishes events on distinct durable channels, persisted by one journal
// write: with the channels locked and the seqs assigned, persist queues that write (it may
// add to it, e.g. the finish of the exec the events announce) and returns its wait. The
// channels are released before the wait, so other publishers' writes share the commit, and
// each event is delivered after the commit in its channel's seq order. A failed write is
// logged; the live events still go out, only their replay after a restart is lost.
func (b *bus) publishDurable(ctx context.Context, o owner, evs []durableEvent, persist func([]StoredEvent) func() error) []proto.Event {
	chans := make([]*channel, len(evs))
	for i, e := range evs {
		chans[i] = b.get(ctx, e.name, e.name)
	}
	// Lock in name order so that two multi-channel publishers never deadlock.
	order := make([]int, len(evs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(evs[x].name, evs[y].name) })
	for _, i := range order {
		chans[i].mu.Lock()
	}
	out := make([]proto.Event, len(evs))
	stored := make([]StoredEvent, len(evs))
	for i, c := range chans {
		out[i] = proto.Event{Channel: evs[i].name, Seq: c.next, Ts: b.now(), Payload: evs[i].payload}
		c.next++
		stored[i] = StoredEvent{Channel: evs[i].name, Seq: out[i].Seq, EntryID: evs[i].entryID, Ts: out[i].Ts,
			Payload: evs[i].payload, Session: o.session, Principal: o.principal}
	}
	var wait func() error
	func() {
		defer func() {
			if p := recover(); p != nil {
				// The seqs are taken: the events must still be delivered, or every later
				// publisher on these channels would wait for its turn forever.
				err := fmt.Errorf("persist panicked: %v", p)
				wait = func() error { return err }
			}
			for _, i := range order {
				chans[i].mu.Unlock()
			}
		}()
		wait = persist(stored)
	}()
	if err := wait(); err != nil {
		b.log.Error("kernel: persist events", "channel", evs[0].name, "seq", out[0].Seq, "entry", evs[0].entryID, "error", err)
	}
	for i, c := range chans {
		c.mu.Lock()
		for c.delivered != out[i].Seq {
			c.turn.Wait()
		}
		c.deliver(out[i], o)
		c.delivered++
		c.turn.Broadcast()
		c.mu.Unlock()
	}
	return out
}

// deliver adds ev to the ring and hands it to the subscriptions that may see it. Callers
// hold c.mu.
func (c *channel) deliver(ev proto.Event, o owner) {
	re := ringEvent{ev: ev, owner: o}
	if len(c.ring) < proto.EventRing {
		c.ring = append(c.ring, re)
	} else {
		c.ring[c.start] = re
		c.start = (c.start + 1) % len(c.ring)
	}
	for s := range c.subs {
		if ev.Seq < s.replayed {
			continue // stored before it subscribed, and already queued by its replay
		}
		if visible(c.name, o, s.viewer) {
			s.push(ev)
		}
	}
}

// ringSince returns the visible ring events with seq > since (all when nil). Callers hold c.mu.
func (c *channel) ringSince(since *uint64, v viewer) []proto.Event {
	var out []proto.Event
	for i := range c.ring {
		re := c.ring[(c.start+i)%len(c.ring)]
		if since != nil && re.ev.Seq <= *since {
			continue
		}
		if visible(c.name, re.owner, v) {
			out = append(out, re.ev)
		}
	}
	return out
}

// history returns the visible events after since: durable channels from the journal, others
// from the ring. For ring channels callers hold c.mu.
func (b *bus) history(ctx context.Context, c *channel, since *uint64, v viewer) ([]proto.Event, error) {
	if !c.durable {
		return c.ringSince(since, v), nil
	}
	stored, err := b.journal.Events(ctx, c.name, since)
	if err != nil {
		return nil, err
	}
	out := make([]proto.Event, 0, len(stored))
	for _, s := range stored {
		if visible(c.name, owner{principal: s.Principal, session: s.Session}, v) {
			out = append(out, proto.Event{Channel: s.Channel, Seq: s.Seq, Ts: s.Ts, Payload: s.Payload})
		}
	}
	return out, nil
}

// read serves events.read: events after since, the newest limit of them.
func (b *bus) read(ctx context.Context, name string, since *uint64, limit *int, v viewer) ([]proto.Event, error) {
	key := channelKey(name, v)
	var c *channel
	if isDurable(name) {
		c = b.get(ctx, key, name)
	} else if c = b.lookup(key); c == nil {
		// Reading a ring channel nobody published on (or an evicted task's) must not create
		// it: that would leak a channel per name read.
		return []proto.Event{}, nil
	}
	var (
		evs []proto.Event
		err error
	)
	if c.durable {
		// Durable history is read from the journal without holding the channel: a long
		// replay must not stall publishers. Events are persisted before they are visible, so
		// the journal never lags what a reader could have seen.
		evs, err = b.history(ctx, c, since, v)
	} else {
		c.mu.Lock()
		evs, err = b.history(ctx, c, since, v)
		c.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	if limit != nil && *limit >= 0 && len(evs) > *limit {
		evs = evs[len(evs)-*limit:]
	}
	if evs == nil {
		evs = []proto.Event{}
	}
	return evs, nil
}

// subscribe registers conn for name. With since, up to 1024 stored events are queued first
// (a gap event first when more were skipped); the replay and the registration happen under
// one lock, so no event falls between them. Subscribing twice is a no-op.
func (b *bus) subscribe(ctx context.Context, conn *jsonrpc.Conn, name string, since *uint64, v viewer) (*subscription, bool, error) {
	c := b.get(ctx, channelKey(name, v), name)
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs {
		if s.conn == conn {
			return s, false, nil
		}
	}
	s := newSubscription(conn, c, v, b.log)
	if since != nil {
		evs, err := b.history(ctx, c, since, v)
		if err != nil {
			return nil, false, err
		}
		if len(evs) > proto.EventRing {
			skipped := evs[:len(evs)-proto.EventRing]
			evs = evs[len(evs)-proto.EventRing:]
			last := skipped[len(skipped)-1].Seq
			s.queue = append(s.queue, gapEvent(name, uint64(len(skipped)), last, b.now()))
		}
		s.queue = append(s.queue, evs...)
		if c.durable && len(evs) > 0 {
			// A durable event is stored before it is delivered, so the replay may hold events
			// whose publisher still waits for its turn: skip those when they are delivered.
			// Writes commit in seq order, so every event below the last replayed one that will
			// be delivered is stored, hence replayed if visible; the later ones were not stored
			// when the replay was read.
			s.replayed = evs[len(evs)-1].Seq + 1
		}
	}
	c.subs[s] = struct{}{}
	go s.run()
	s.wake()
	return s, true, nil
}

// unsubscribe removes s from its channel and stops its writer.
func (b *bus) unsubscribe(s *subscription) {
	s.ch.mu.Lock()
	delete(s.ch.subs, s)
	s.ch.mu.Unlock()
	s.stop()
}

func gapEvent(name string, dropped, latest uint64, ts int64) proto.Event {
	p, _ := json.Marshal(proto.GapPayload{Dropped: dropped, LatestSeq: latest})
	return proto.Event{Channel: name, Seq: latest, Ts: ts, Payload: p}
}

// subscription is one connection's interest in one channel.
type subscription struct {
	conn   *jsonrpc.Conn
	ch     *channel
	viewer viewer
	log    *slog.Logger
	// replayed: events below this seq were queued by the subscribe replay (durable channels).
	replayed uint64

	mu      sync.Mutex
	queue   []proto.Event
	dropped uint64
	latest  uint64
	signal  chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newSubscription(conn *jsonrpc.Conn, c *channel, v viewer, log *slog.Logger) *subscription {
	return &subscription{conn: conn, ch: c, viewer: v, log: log, signal: make(chan struct{}, 1), done: make(chan struct{})}
}

// push never blocks: a full queue (or a pending gap) turns the event into a count.
func (s *subscription) push(ev proto.Event) {
	s.mu.Lock()
	if s.dropped > 0 || len(s.queue) >= proto.SubscriberQueue {
		s.dropped++
		s.latest = ev.Seq
	} else {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	s.wake()
}

func (s *subscription) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *subscription) stop() { s.once.Do(func() { close(s.done) }) }

// next takes the next event to deliver: queued events first, then the gap.
func (s *subscription) next() (proto.Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		ev := s.queue[0]
		s.queue[0] = proto.Event{}
		s.queue = s.queue[1:]
		return ev, true
	}
	if s.dropped > 0 {
		ev := gapEvent(s.ch.name, s.dropped, s.latest, time.Now().UnixNano())
		s.dropped = 0
		return ev, true
	}
	return proto.Event{}, false
}

// run is the subscription's writer: the only goroutine that may block on the peer.
func (s *subscription) run() {
	for {
		select {
		case <-s.done:
			return
		case <-s.conn.Context().Done():
			return
		case <-s.signal:
		}
		for {
			ev, ok := s.next()
			if !ok {
				break
			}
			if err := s.conn.Notify(proto.NotifyEvent, ev); err != nil {
				s.log.Debug("kernel: event not delivered", "channel", ev.Channel, "error", err)
				return
			}
			select {
			case <-s.done:
				return
			default:
			}
		}
	}
}
