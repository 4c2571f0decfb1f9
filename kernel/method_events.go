package kernel

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
)

// emitUser is the evaluator's Host.Emit: a language emit on a user.* channel is published on
// the session's kernel channel as the wire value of v (AGENT-SURFACE.md §4.4).
func (ss *session) emitUser(ctx context.Context, channel string, v value.Value) {
	ss.srv.bus.publish(context.WithoutCancel(ctx), channel, owner{principal: ss.key.principal, session: ss.key.name}, EncodeWire(v), 0)
}

// injectUser delivers a client publish to the session's language channel of the same name,
// without echo (Publish does not call Host.Emit). The payload is plain JSON, decoded as such.
func (ss *session) injectUser(channel string, payload json.RawMessage) {
	p, ok := ss.ev.(interface{ Publish(string, value.Value) })
	if !ok {
		return
	}
	v, err := value.FromJSON(payload)
	if err != nil {
		v = value.Str(string(payload))
	}
	p.Publish(channel, v)
}

func (s *Server) handleEventsRead(ctx context.Context, cs *connState, a *attachment, p proto.EventsReadParams) (*proto.EventsReadResult, error) {
	if p.Channel == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing channel")
	}
	evs, err := s.bus.read(ctx, p.Channel, p.Since, p.Limit, a.viewer())
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "journal: %v", err)
	}
	return &proto.EventsReadResult{Channel: p.Channel, Events: evs}, nil
}

// handleEventsPublish publishes client JSON verbatim on a user.* channel of the session.
func (s *Server) handleEventsPublish(ctx context.Context, cs *connState, a *attachment, p proto.EventsPublishParams) (*proto.EventsPublishResult, error) {
	if !strings.HasPrefix(p.Channel, "user.") || len(p.Channel) == len("user.") {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: clients may only publish to user.* channels", map[string]string{"channel": p.Channel})
	}
	payload := p.Payload
	if payload == nil {
		payload = json.RawMessage("null")
	}
	ev := s.bus.publish(ctx, p.Channel, owner{principal: a.id.Principal, session: a.sess.key.name}, payload, 0)
	a.sess.injectUser(p.Channel, payload)
	return &proto.EventsPublishResult{Channel: ev.Channel, Seq: ev.Seq, Ts: ev.Ts}, nil
}

func (s *Server) handleEventsSubscribe(ctx context.Context, cs *connState, a *attachment, p proto.EventsSubscribeParams) (*proto.EventsSubscribeResult, error) {
	if p.Channel == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing channel")
	}
	cs.mu.Lock()
	_, dup := cs.subs[p.Channel]
	cs.mu.Unlock()
	if !dup {
		if n, q := s.subscriptions(a.id.Principal), s.quotas(a.id.Principal); n >= q.Subscriptions {
			return nil, quotaError("subscriptions", q.Subscriptions)
		}
		sub, _, err := s.bus.subscribe(ctx, cs.conn, p.Channel, p.Since, a.viewer())
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "journal: %v", err)
		}
		cs.mu.Lock()
		cs.subs[p.Channel] = sub
		cs.mu.Unlock()
	}
	return &proto.EventsSubscribeResult{Channel: p.Channel, Subscribed: true}, nil
}

func (s *Server) handleEventsUnsubscribe(ctx context.Context, cs *connState, a *attachment, p proto.EventsUnsubscribeParams) (*proto.EventsSubscribeResult, error) {
	cs.mu.Lock()
	sub := cs.subs[p.Channel]
	delete(cs.subs, p.Channel)
	cs.mu.Unlock()
	if sub != nil {
		s.bus.unsubscribe(sub)
	}
	return &proto.EventsSubscribeResult{Channel: p.Channel, Subscribed: false}, nil
}

// subscriptions counts the principal's subscriptions over all connections.
func (s *Server) subscriptions(principal string) int {
	s.mu.Lock()
	conns := make([]*connState, 0, len(s.conns))
	for cs := range s.conns {
		conns = append(conns, cs)
	}
	s.mu.Unlock()
	n := 0
	for _, cs := range conns {
		cs.mu.Lock()
		if cs.att != nil && cs.att.id.Principal == principal {
			n += len(cs.subs)
		}
		cs.mu.Unlock()
	}
	return n
}
