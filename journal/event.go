package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	ev := EventAppend{Channel: channel, EntryID: entryID, Payload: payload, TS: ts}
	if err := j.checkEvent(&ev); err != nil {
		return 0, err
	}
	var seq int64
	err := j.write(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
		seqs, err := j.appendEvents(tx, []EventAppend{ev})
		if err == nil {
			seq = seqs[0]
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("journal append event %s: %w", channel, err)
	}
	return seq, nil
}

// EventAppend is an event to store with [Journal.QueueFinish]; see [Journal.AppendEvent].
type EventAppend struct {
	Channel string
	EntryID int64 // 0: none
	Payload json.RawMessage
	TS      int64 // Unix ns; 0 means now
}

func (j *Journal) checkEvent(ev *EventAppend) error {
	if !Durable(ev.Channel) {
		return fmt.Errorf("journal append event: channel %q is not durable", ev.Channel)
	}
	if !json.Valid(ev.Payload) {
		return fmt.Errorf("journal append event %s: payload is not JSON", ev.Channel)
	}
	if ev.TS == 0 {
		ev.TS = j.opts.Now().UnixNano()
	}
	return nil
}

// appendEvents stores evs in the writer's transaction and returns their seqs. A seq is one
// past the highest stored on its channel, read in the same transaction; the writer keeps it
// (nextSeq) so the table is read once per channel, and forgets it on every rollback, so a
// rolled-back append consumes no seq.
func (j *Journal) appendEvents(tx *sql.Tx, evs []EventAppend) ([]int64, error) {
	seqs := make([]int64, len(evs))
	next := make(map[string]int64, 2)
	for i, ev := range evs {
		seq, ok := next[ev.Channel]
		if !ok {
			if seq, ok = j.nextSeq[ev.Channel]; !ok {
				if err := tx.Stmt(j.maxSeq).QueryRow(ev.Channel).Scan(&seq); err != nil {
					return nil, err
				}
			}
		}
		seqs[i], next[ev.Channel] = seq, seq+1
	}
	args := make([]any, 0, 5*len(evs))
	for i, ev := range evs {
		args = append(args, ev.Channel, seqs[i], nullInt(ev.EntryID), ev.TS, string(ev.Payload))
	}
	if n := len(evs); n > 0 && n < len(j.events) {
		// One statement for all of them: most of a small write's cost is per statement.
		if _, err := tx.Stmt(j.events[n]).Exec(args...); err != nil {
			return nil, err
		}
	} else {
		for i := range evs {
			if _, err := tx.Stmt(j.events[1]).Exec(args[5*i : 5*i+5]...); err != nil {
				return nil, err
			}
		}
	}
	for _, ev := range evs {
		if ev.Channel == ChannelTranscript && ev.EntryID != 0 {
			if _, err := tx.Stmt(j.transcript).Exec(ev.EntryID, ev.TS, string(ev.Payload)); err != nil {
				return nil, err
			}
		}
	}
	for ch, seq := range next {
		j.nextSeq[ch] = seq
	}
	return seqs, nil
}

const (
	sqlMaxSeq     = `SELECT COALESCE(MAX(seq) + 1, 0) FROM channel_event WHERE channel = ?`
	sqlEvent      = `INSERT INTO channel_event (channel, seq, entry_id, ts, payload) VALUES (?, ?, ?, ?, ?)`
	sqlTranscript = `INSERT OR REPLACE INTO transcript_event (entry_id, ts, payload) VALUES (?, ?, ?)`
)

// Pending is a write queued by [Journal.QueueFinish].
type Pending struct {
	op        *writeOp
	finishErr error   // set by the writer before op.done is signalled
	seqs      []int64 // likewise
}

// Wait blocks until the write is committed (or has failed). It returns the seqs given to the
// events, in the order they were passed; err reports a failed write (then nothing of it was
// stored) or a refused finish ([ErrNotFound], [ErrAlreadyFinished]: the events were still
// stored, and seqs is valid).
func (p *Pending) Wait() (seqs []int64, err error) {
	if err := <-p.op.done; err != nil {
		return nil, err
	}
	return p.seqs, p.finishErr
}

// QueueFinish queues one write that finishes entry id with f (as [Journal.Finish]; nil f
// finishes nothing) and then appends evs in order (as [Journal.AppendEvent]), all in one
// transaction, and returns without waiting for it: [Pending.Wait] does. An exec's end is
// thus one write instead of three, and the caller can queue under its own lock (so events
// are stored in the order their channel numbered them: writes are taken in the order they
// were queued) and wait outside it.
//
// Durability is the same as for the separate calls: nothing is acknowledged before Wait
// returns, which is after the commit. The write ignores ctx's cancellation, like Finish.
func (j *Journal) QueueFinish(ctx context.Context, id int64, f *ExecFinish, evs []EventAppend) (*Pending, error) {
	var fin *finishWrite
	if f != nil {
		var err error
		if fin, err = j.prepareFinish(id, *f); err != nil {
			return nil, err
		}
	}
	evs = slices.Clone(evs)
	for i := range evs {
		if err := j.checkEvent(&evs[i]); err != nil {
			return nil, err
		}
	}
	p := &Pending{}
	op, err := j.enqueue(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
		p.finishErr = nil
		if fin != nil {
			if err := fin.apply(tx); errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyFinished) {
				p.finishErr = fmt.Errorf("journal finish %d: %w", id, err) // nothing written: the events still go in
			} else if err != nil {
				return fmt.Errorf("journal finish %d: %w", id, err)
			}
		}
		seqs, err := j.appendEvents(tx, evs)
		if err != nil {
			return fmt.Errorf("journal append events: %w", err)
		}
		p.seqs = seqs
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.op = op
	return p, nil
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
