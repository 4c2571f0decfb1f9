package mcp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// subscriptions keeps one dedicated, attached kernel connection for every
// resource subscription of this MCP session, a registry from URI to kernel
// channel, and re-subscribes after the kernel restarts [D7][D26].
type subscriptions struct {
	s *Server

	// mu serialises connection changes and kernel calls; reg guards the
	// registry alone, so the event reader never waits behind a kernel call
	// (which would deadlock: the call's reply arrives on that reader).
	mu     sync.Mutex
	conn   *client.Client
	closed bool

	reg   sync.RWMutex
	byURI map[string]string // uri → channel
}

func newSubscriptions(s *Server) *subscriptions {
	return &subscriptions{s: s, byURI: map[string]string{}}
}

// channelFor maps a subscribable URI to its kernel channel.
func channelFor(uri string) (string, bool) {
	p, err := parseURI(uri)
	if err != nil {
		return "", false
	}
	switch {
	case p.segs[0] == "events" && len(p.segs) == 2:
		return p.segs[1], true
	case p.segs[0] == "task" && (len(p.segs) == 2 || len(p.segs) == 3 && p.segs[2] == "out"):
		return "task." + refPart("task", p.segs[1]), true
	case p.segs[0] == "pty" && len(p.segs) == 2:
		return "pty." + refPart("pty", p.segs[1]), true
	}
	return "", false
}

func (s *Server) subscribe(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := jsonrpc.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	ch, ok := channelFor(p.URI)
	if !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "resource is not subscribable", map[string]string{"uri": p.URI})
	}
	if err := s.subs.add(ctx, p.URI, ch); err != nil {
		var rpc *jsonrpc.Error
		if asRPCError(err, &rpc) {
			return nil, rpc
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "kernel unreachable: "+err.Error(), nil)
	}
	return struct{}{}, nil
}

func (s *Server) unsubscribe(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := jsonrpc.DecodeParams(req.Params, &p); err != nil {
		return nil, err
	}
	s.subs.remove(ctx, p.URI)
	return struct{}{}, nil
}

// connLocked returns the live subscription connection, dialing and
// attaching a new one (and re-subscribing every channel) when needed. Only a
// client request may autostart a kernel; the background reconnect after a
// kernel went away only dials, so it never leaves a daemon behind a facade
// that is shutting down.
func (m *subscriptions) connLocked(ctx context.Context, autostart bool) (*client.Client, error) {
	if m.conn != nil {
		select {
		case <-m.conn.Done():
			m.conn = nil
		default:
			return m.conn, nil
		}
	}
	c, err := m.s.kernel.connect(ctx, m.deliver, autostart)
	if err != nil {
		return nil, err
	}
	for _, ch := range m.channelsLocked() {
		if err := c.Call(ctx, proto.MethodEventsSubscribe, proto.EventsSubscribeParams{Channel: ch}, nil); err != nil {
			c.Close()
			return nil, err
		}
	}
	m.conn = c
	go m.watch(c)
	return c, nil
}

func (m *subscriptions) channelsLocked() []string {
	m.reg.RLock()
	defer m.reg.RUnlock()
	seen := map[string]bool{}
	var chs []string
	for _, ch := range m.byURI {
		if !seen[ch] {
			seen[ch] = true
			chs = append(chs, ch)
		}
	}
	sort.Strings(chs)
	return chs
}

// watch reconnects when the kernel connection drops while subscriptions
// exist, so a restarted kernel keeps delivering.
func (m *subscriptions) watch(c *client.Client) {
	<-c.Done()
	for backoff := 10 * time.Millisecond; ; backoff = min(backoff*2, time.Second) {
		m.mu.Lock()
		m.reg.RLock()
		empty := len(m.byURI) == 0
		m.reg.RUnlock()
		if m.closed || empty || (m.conn != nil && m.conn != c) {
			m.mu.Unlock()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := m.connLocked(ctx, false)
		cancel()
		m.mu.Unlock()
		if err == nil {
			return
		}
		time.Sleep(backoff)
	}
}

func (m *subscriptions) add(ctx context.Context, uri, ch string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reg.RLock()
	_, dup := m.byURI[uri]
	had := false
	for _, c := range m.byURI {
		had = had || c == ch
	}
	m.reg.RUnlock()
	if dup {
		return nil // idempotent
	}
	c, err := m.connLocked(ctx, true)
	if err != nil {
		return err
	}
	if !had {
		if err := c.Call(ctx, proto.MethodEventsSubscribe, proto.EventsSubscribeParams{Channel: ch}, nil); err != nil {
			return err
		}
	}
	m.reg.Lock()
	m.byURI[uri] = ch
	m.reg.Unlock()
	return nil
}

func (m *subscriptions) remove(ctx context.Context, uri string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reg.Lock()
	ch, ok := m.byURI[uri]
	delete(m.byURI, uri)
	still := false
	for _, c := range m.byURI {
		still = still || c == ch
	}
	m.reg.Unlock()
	if !ok || still {
		return // unknown, or another URI still wants this channel
	}
	if m.conn != nil {
		if err := m.conn.Call(ctx, proto.MethodEventsUnsubscribe, proto.EventsUnsubscribeParams{Channel: ch}, nil); err != nil {
			m.s.log.Warn("mcp: unsubscribe", "channel", ch, "error", err)
		}
	}
}

// deliver forwards a kernel event to every URI subscribed to its channel.
func (m *subscriptions) deliver(ev proto.Event) {
	m.reg.RLock()
	var uris []string
	for uri, ch := range m.byURI {
		if ch == ev.Channel {
			uris = append(uris, uri)
		}
	}
	m.reg.RUnlock()
	sort.Strings(uris)
	for _, uri := range uris {
		payload := ev.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("null")
		}
		err := m.s.conn.Notify("notifications/resources/updated", map[string]any{"uri": uri, "seq": ev.Seq, "payload": payload})
		if err != nil && !strings.Contains(err.Error(), "closed") {
			m.s.log.Warn("mcp: forwarding event", "uri", uri, "error", err)
		}
	}
}

func (m *subscriptions) close() {
	m.mu.Lock()
	m.closed = true
	c := m.conn
	m.conn = nil
	m.mu.Unlock()
	if c != nil {
		c.Close()
	}
}
