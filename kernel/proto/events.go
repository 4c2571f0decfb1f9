package proto

import "encoding/json"

// Event is one published event. Seq is dense per channel from 0; order and dedupe by
// (Channel, Seq), never by Ts.
type Event struct {
	Channel string          `json:"channel"`
	Seq     uint64          `json:"seq"`
	Ts      int64           `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

// GapPayload is the plain (untagged) payload of the event that replaces what a slow subscriber
// missed; the event's seq equals LatestSeq.
type GapPayload struct {
	Dropped   uint64 `json:"dropped"`
	LatestSeq uint64 `json:"latest_seq"`
}

// EventsReadParams reads a channel after Since (exclusive), keeping the newest Limit matches.
type EventsReadParams struct {
	Channel string  `json:"channel"`
	Since   *uint64 `json:"since,omitempty"`
	Limit   *int    `json:"limit,omitempty"`
}

// EventsReadResult lists events in seq order.
type EventsReadResult struct {
	Channel string  `json:"channel"`
	Events  []Event `json:"events"`
}

// EventsPublishParams publishes Payload (any JSON, verbatim) on a user.* channel.
type EventsPublishParams struct {
	Channel string          `json:"channel"`
	Payload json.RawMessage `json:"payload"`
}

// EventsPublishResult is the assigned position.
type EventsPublishResult struct {
	Channel string `json:"channel"`
	Seq     uint64 `json:"seq"`
	Ts      int64  `json:"ts"`
}

// EventsSubscribeParams subscribes this connection; without Since only live events are
// delivered, with Since a replay (≤1024, gap first if more were skipped) precedes them.
type EventsSubscribeParams struct {
	Channel string  `json:"channel"`
	Since   *uint64 `json:"since,omitempty"`
}

// EventsSubscribeResult confirms the subscription state.
type EventsSubscribeResult struct {
	Channel    string `json:"channel"`
	Subscribed bool   `json:"subscribed"`
}

// EventsUnsubscribeParams ends this connection's subscription.
type EventsUnsubscribeParams struct {
	Channel string `json:"channel"`
}

// EventsUnsubscribeResult confirms the subscription state.
type EventsUnsubscribeResult = EventsSubscribeResult
