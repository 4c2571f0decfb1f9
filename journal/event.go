package journal

import (
	"context"
	"database/sql"
	"encoding/json"
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
	p, err := j.queueEnd(0, nil, nil, []EventAppend{ev})
	if err == nil {
		var seqs []int64
		if seqs, err = p.Wait(); err == nil {
			return seqs[0], nil
		}
	}
	return 0, fmt.Errorf("journal append event %s: %w", channel, err)
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

// checkEntries refuses events that name an entry this journal has not begun, as the foreign
// key would when the record is applied (ids are dense: every id below nextID was given out).
// It runs under the log lock.
func (j *Journal) checkEntries(evs []EventAppend) error {
	for _, ev := range evs {
		if ev.EntryID != 0 && (ev.EntryID < 0 || ev.EntryID >= j.nextID) {
			return fmt.Errorf("journal append event %s: entry %d: %w", ev.Channel, ev.EntryID, ErrNotFound)
		}
	}
	return nil
}

// numberEvents gives evs their seqs, one past the last given on each channel. It runs under
// the log lock, so seqs follow log order and the writer stores them in seq order. The next seq
// of each channel is read from the table when the journal opens (see loadSeqs).
func (j *Journal) numberEvents(evs []EventAppend) []redoEvent {
	if len(evs) == 0 {
		return nil
	}
	out := make([]redoEvent, len(evs))
	for i, ev := range evs {
		seq := j.nextSeq[ev.Channel]
		j.nextSeq[ev.Channel] = seq + 1
		out[i] = redoEvent{Channel: ev.Channel, Seq: seq, EntryID: ev.EntryID, TS: ev.TS, Payload: ev.Payload}
	}
	return out
}

// loadSeqs reads the next seq of each durable channel (after recovery, before any write).
func (j *Journal) loadSeqs() error {
	for _, ch := range []string{ChannelJournal, ChannelTranscript} {
		var seq int64
		if err := j.w.QueryRow(sqlMaxSeq, ch).Scan(&seq); err != nil {
			return fmt.Errorf("read next seq of %s: %w", ch, err)
		}
		j.nextSeq[ch] = seq
	}
	return nil
}

// insertEvents stores numbered events in the writer's transaction; a session.transcript event
// with an entry id is also kept in transcript_event.
func (j *Journal) insertEvents(tx *sql.Tx, evs []redoEvent) error {
	args := make([]any, 0, 5*len(evs))
	for _, ev := range evs {
		args = append(args, ev.Channel, ev.Seq, nullInt(ev.EntryID), ev.TS, string(ev.Payload))
	}
	if n := len(evs); n > 0 && n < len(j.events) {
		// One statement for all of them: most of a small write's cost is per statement.
		if _, err := tx.Stmt(j.events[n]).Exec(args...); err != nil {
			return err
		}
	} else {
		for i := range evs {
			if _, err := tx.Stmt(j.events[1]).Exec(args[5*i : 5*i+5]...); err != nil {
				return err
			}
		}
	}
	for _, ev := range evs {
		if ev.Channel == ChannelTranscript && ev.EntryID != 0 {
			if _, err := tx.Stmt(j.transcript).Exec(ev.EntryID, ev.TS, string(ev.Payload)); err != nil {
				return err
			}
		}
	}
	return nil
}

const (
	sqlMaxSeq     = `SELECT COALESCE(MAX(seq) + 1, 0) FROM channel_event WHERE channel = ?`
	sqlEvent      = `INSERT INTO channel_event (channel, seq, entry_id, ts, payload) VALUES (?, ?, ?, ?, ?)`
	sqlTranscript = `INSERT OR REPLACE INTO transcript_event (entry_id, ts, payload) VALUES (?, ?, ?)`
)

// Pending is the end of an exec queued by [Journal.QueueFinish].
type Pending struct {
	op        *writeOp // nil when the end was logged: it is durable already
	finishErr error    // set by the writer before op.done is signalled
	seqs      []int64
}

// Wait returns once the write is durable: at once for a logged end, after the commit for one
// on the writer's path. It returns the seqs given to the events, in the order they were
// passed; err reports a failed write (then nothing of it was stored) or a refused finish
// ([ErrNotFound], [ErrAlreadyFinished]: the events were still stored, and seqs is valid).
func (p *Pending) Wait() (seqs []int64, err error) {
	if p.op == nil {
		return p.seqs, nil
	}
	if err := <-p.op.done; err != nil {
		return nil, err
	}
	return p.seqs, p.finishErr
}

// QueueFinish finishes entry id with f (as [Journal.Finish]; nil f finishes nothing) and
// appends evs in order (as [Journal.AppendEvent]), as one record, and returns without waiting
// for SQLite: [Pending.Wait] reports the outcome. An exec's end is thus one write instead of
// three, and the caller can queue under its own lock (events are numbered and stored in the
// order they were queued) and wait outside it.
//
// Durability is the same as for the separate calls: an end of an entry begun by this process
// is durable when QueueFinish returns (it is in the redo log); any other waits for the commit.
// The write ignores ctx's cancellation, like Finish.
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
	return j.queueEnd(id, f, fin, evs)
}

// NextSeq returns the seq the next event on channel will get, so an in-memory ring can
// continue the numbering after a restart.
func (j *Journal) NextSeq(ctx context.Context, channel string) (int64, error) {
	if !Durable(channel) {
		return 0, fmt.Errorf("journal next seq: channel %q is not durable", channel)
	}
	j.logMu.Lock()
	defer j.logMu.Unlock()
	return j.nextSeq[channel], nil
}

// EventsSince returns events of channel with seq > since, oldest first. since < 0 means from
// the beginning. With limit > 0 only the newest limit matches are kept (events.read semantics:
// a gap shows as a first seq above since+1).
func (j *Journal) EventsSince(ctx context.Context, channel string, since int64, limit int) ([]Event, error) {
	if err := j.settle(); err != nil {
		return nil, err
	}
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
	if err := j.settle(); err != nil {
		return nil, false, err
	}
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
