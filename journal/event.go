package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// The durable channels: their events are kept here so the kernel can replay them, and their
// sequence numbers continue, after a restart.
const (
	ChannelJournal    = "journal"
	ChannelTranscript = "session.transcript"
)

// Durable reports whether channel's events are kept in the journal.
func Durable(channel string) bool { return channel == ChannelJournal || channel == ChannelTranscript }

// Event is one stored event in the wire envelope shape {channel, seq, ts, payload}. Seq is
// dense per channel from 0. EntryID links it to the entry that caused it (0: none); Session
// and Principal are that entry's, read with the event so replay can apply event visibility
// without a query per event ("" when there is no entry).
type Event struct {
	Channel   string          `json:"channel"`
	Seq       int64           `json:"seq"`
	TS        int64           `json:"ts"`
	Payload   json.RawMessage `json:"payload"`
	EntryID   int64           `json:"-"`
	Session   string          `json:"-"`
	Principal string          `json:"-"`
}

// AppendEvent stores an event on a durable channel and returns its seq, the next after the
// highest stored (0 for the first). A session.transcript event with an entry id is also kept
// in transcript_event, the per-entry record of the transcript. Like [Journal.Finish], it
// records even when ctx is already cancelled, since it reports the end of an exec.
func (j *Journal) AppendEvent(ctx context.Context, channel string, entryID int64, payload json.RawMessage, ts int64) (int64, error) {
	ctx = context.WithoutCancel(ctx)
	if !Durable(channel) {
		return 0, fmt.Errorf("journal append event: channel %q is not durable", channel)
	}
	if !json.Valid(payload) {
		return 0, fmt.Errorf("journal append event %s: payload is not JSON", channel)
	}
	if ts == 0 {
		ts = j.opts.Now().UnixNano()
	}
	var seq int64
	err := j.write(ctx, func(tx *sql.Tx) error {
		// In the writer's transaction, so reading the highest seq and inserting the next are
		// one unit, and a rolled-back append does not consume a seq.
		if err := tx.QueryRow(`SELECT COALESCE(MAX(seq) + 1, 0) FROM channel_event WHERE channel = ?`, channel).Scan(&seq); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO channel_event (channel, seq, entry_id, ts, payload) VALUES (?, ?, ?, ?, ?)`,
			channel, seq, nullInt(entryID), ts, string(payload)); err != nil {
			return err
		}
		if channel == ChannelTranscript && entryID != 0 {
			if _, err := tx.Exec(`INSERT OR REPLACE INTO transcript_event (entry_id, ts, payload) VALUES (?, ?, ?)`,
				entryID, ts, string(payload)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal append event %s: %w", channel, err)
	}
	return seq, nil
}

// NextSeq returns the seq the next event on channel will get, so an in-memory ring can
// continue the numbering after a restart.
func (j *Journal) NextSeq(ctx context.Context, channel string) (int64, error) {
	var seq int64
	err := j.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq) + 1, 0) FROM channel_event WHERE channel = ?`, channel).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("journal next seq %s: %w", channel, err)
	}
	return seq, nil
}

// EventsSince returns events of channel with seq > since, oldest first. since < 0 means from
// the beginning. With limit > 0 only the newest limit matches are kept (events.read semantics:
// a gap shows as a first seq above since+1).
func (j *Journal) EventsSince(ctx context.Context, channel string, since int64, limit int) ([]Event, error) {
	if limit < 0 {
		return nil, fmt.Errorf("journal events %s: negative limit %d", channel, limit)
	}
	var (
		rows *sql.Rows
		err  error
	)
	const cols = `c.seq, c.entry_id, c.ts, c.payload, e.session, e.principal`
	if limit > 0 {
		rows, err = j.r.QueryContext(ctx, `SELECT `+cols+` FROM (
			SELECT * FROM channel_event WHERE channel = ? AND seq > ? ORDER BY seq DESC LIMIT ?
		) AS c LEFT JOIN entry AS e ON e.id = c.entry_id ORDER BY c.seq`, channel, since, limit)
	} else {
		rows, err = j.r.QueryContext(ctx, `SELECT `+cols+` FROM channel_event AS c
			LEFT JOIN entry AS e ON e.id = c.entry_id
			WHERE c.channel = ? AND c.seq > ? ORDER BY c.seq`, channel, since)
	}
	if err != nil {
		return nil, fmt.Errorf("journal events %s: %w", channel, err)
	}
	defer rows.Close()
	events := []Event{}
	for rows.Next() {
		ev := Event{Channel: channel}
		var entry sql.NullInt64
		var payload string
		var session, principal sql.NullString
		if err := rows.Scan(&ev.Seq, &entry, &ev.TS, &payload, &session, &principal); err != nil {
			return nil, fmt.Errorf("journal events %s: %w", channel, err)
		}
		ev.EntryID = entry.Int64
		ev.Session, ev.Principal = session.String, principal.String
		ev.Payload = json.RawMessage(payload)
		events = append(events, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal events %s: %w", channel, err)
	}
	return events, nil
}

// TranscriptEvent returns the transcript event recorded for an entry, if any.
func (j *Journal) TranscriptEvent(ctx context.Context, entryID int64) (json.RawMessage, bool, error) {
	var payload string
	err := j.r.QueryRowContext(ctx, `SELECT payload FROM transcript_event WHERE entry_id = ?`, entryID).Scan(&payload)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("journal transcript event %d: %w", entryID, err)
	}
	return json.RawMessage(payload), true, nil
}
