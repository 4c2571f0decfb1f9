package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/shoal-sh/shoal/journal"
	"github.com/shoal-sh/shoal/journal/cas"
)

// sqlJournal adapts package journal (SQLite + CAS) to the kernel's [Journal].
type sqlJournal struct {
	j   *journal.Journal
	log *slog.Logger
}

func openSQLJournal(path string, log *slog.Logger) (Journal, error) {
	j, err := journal.Open(path, nil)
	if err != nil {
		return nil, err
	}
	return &sqlJournal{j: j, log: log}, nil
}

func (s *sqlJournal) Begin(ctx context.Context, st JournalStart) (int64, error) {
	return s.j.Begin(ctx, journal.ExecStart{Kind: st.Kind, ParentID: st.ParentID, Session: st.Session,
		Principal: st.Principal, Src: st.Src, AST: st.AST, Cwd: st.Cwd, EnvHash: st.EnvHash,
		Effects: st.Effects, StartedNs: st.StartedNs, Lazy: st.Lazy})
}

func (s *sqlJournal) Finish(ctx context.Context, id int64, f JournalFinish) error {
	return s.j.Finish(ctx, id, toFinish(f))
}

func toFinish(f JournalFinish) journal.ExecFinish {
	outs := make([]journal.Output, len(f.Outputs))
	for i, o := range f.Outputs {
		outs[i] = journal.Output{Kind: o.Kind, Hash: o.Hash, Len: o.Len}
	}
	return journal.ExecFinish{Status: f.Status, OK: f.OK, DurNs: f.DurNs, Opaque: f.Opaque, Outputs: outs, Meta: f.Meta}
}

func (s *sqlJournal) QueueFinish(ctx context.Context, id int64, f *JournalFinish, evs []StoredEvent) func() error {
	var fin *journal.ExecFinish
	if f != nil {
		x := toFinish(*f)
		fin = &x
	}
	apps := make([]journal.EventAppend, len(evs))
	for i, ev := range evs {
		apps[i] = journal.EventAppend{Channel: ev.Channel, EntryID: ev.EntryID, Payload: ev.Payload, TS: ev.Ts}
	}
	p, err := s.j.QueueFinish(ctx, id, fin, apps)
	if err != nil {
		return func() error { return err }
	}
	return func() error {
		seqs, err := p.Wait()
		for i, seq := range seqs {
			if uint64(seq) != evs[i].Seq {
				// Only this kernel writes the journal, so the counters agree unless a second
				// kernel shares the state directory or an earlier append failed.
				s.log.Error("kernel: durable seq mismatch", "channel", evs[i].Channel, "memory", evs[i].Seq, "journal", seq)
			}
		}
		return err
	}
}

func (s *sqlJournal) PutOutput(ctx context.Context, kind string, data []byte) (JournalOutput, error) {
	o, err := s.j.PutBytes(ctx, kind, data)
	if err != nil {
		return JournalOutput{}, err
	}
	return JournalOutput{Kind: o.Kind, Hash: o.Hash, Len: o.Len}, nil
}

func (s *sqlJournal) StoreOutput(_ context.Context, kind string, data []byte) (JournalOutput, error) {
	o, err := s.j.StoreBytes(kind, data)
	if err != nil {
		return JournalOutput{}, err
	}
	return JournalOutput{Kind: o.Kind, Hash: o.Hash, Len: o.Len}, nil
}

func (s *sqlJournal) Blob(_ context.Context, hash string) ([]byte, error) {
	b, err := s.j.Blob(hash) // held (not yet in the CAS, see journal.StoreBytes) or stored
	if errors.Is(err, cas.ErrNotFound) || errors.Is(err, cas.ErrInvalidHash) {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNotFound)
	}
	return b, err
}

func (s *sqlJournal) BlobVisible(ctx context.Context, hash, principal string, all bool) (bool, error) {
	return s.j.HashVisible(ctx, hash, principal, all)
}

func (s *sqlJournal) Query(ctx context.Context, f JournalFilter) ([]JournalRow, error) {
	entries, err := s.j.Query(ctx, journal.Filter{Since: f.Since, Until: f.Until, Principal: f.Principal,
		Head: f.Head, OK: f.OK, Effects: f.Effects, Limit: f.Limit, IncludeStatements: f.IncludeStatements,
		OnlyPrincipal: f.OnlyPrincipal})
	if err != nil {
		return nil, err
	}
	rows := make([]JournalRow, len(entries))
	for i, e := range entries {
		outs := make([]JournalOutput, len(e.Outputs))
		for k, o := range e.Outputs {
			outs[k] = JournalOutput{Kind: o.Kind, Hash: o.Hash, Len: o.Len}
		}
		cwd := e.Cwd.Raw
		if cwd == nil {
			cwd = []byte(e.Cwd.Display)
		}
		rows[i] = JournalRow{ID: e.ID, Kind: e.Kind, Session: e.Session, Principal: e.Principal, Ts: e.TS,
			DurNs: e.DurNs, Cwd: cwd, Src: e.Src, AST: e.AST, Effects: e.Effects, Status: e.Status, OK: e.OK,
			Opaque: e.Opaque, Outputs: outs, Meta: e.Meta}
	}
	return rows, nil
}

func (s *sqlJournal) Events(ctx context.Context, channel string, since *uint64) ([]StoredEvent, error) {
	from := int64(-1)
	if since != nil {
		from = int64(*since)
	}
	evs, err := s.j.EventsSince(ctx, channel, from, 0)
	if err != nil {
		return nil, err
	}
	type who struct{ session, principal string }
	owners := map[int64]who{}
	out := make([]StoredEvent, len(evs))
	for i, e := range evs {
		w, ok := owners[e.EntryID]
		if !ok && e.EntryID != 0 {
			if ent, err := s.j.Get(ctx, e.EntryID); err == nil {
				w = who{ent.Session, ent.Principal}
			}
			owners[e.EntryID] = w
		}
		out[i] = StoredEvent{Channel: channel, Seq: uint64(e.Seq), EntryID: e.EntryID, Ts: e.TS, Payload: e.Payload,
			Session: w.session, Principal: w.principal}
	}
	return out, nil
}

func (s *sqlJournal) NextSeq(ctx context.Context, channel string) (uint64, error) {
	n, err := s.j.NextSeq(ctx, channel)
	return uint64(n), err
}

func (s *sqlJournal) Row(ctx context.Context, id int64) (*JournalRow, error) {
	e, err := s.j.Get(ctx, id)
	if errors.Is(err, journal.ErrNotFound) {
		return nil, fmt.Errorf("journal row %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return &JournalRow{ID: e.ID, Kind: e.Kind, Session: e.Session, Principal: e.Principal, Ts: e.TS, Src: e.Src}, nil
}

func (s *sqlJournal) AddUndo(ctx context.Context, id int64, u UndoRecord) error {
	return s.j.AddUndo(ctx, id, journal.Undo{Op: u.Op, Inverse: u.Inverse})
}

func (s *sqlJournal) Undos(ctx context.Context, id int64) ([]UndoRecord, error) {
	us, err := s.j.Undos(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]UndoRecord, len(us))
	for i, u := range us {
		out[i] = UndoRecord{ID: u.ID, Op: u.Op, Inverse: u.Inverse, UndoneNs: u.UndoneNs}
	}
	return out, nil
}

func (s *sqlJournal) LastUndoable(ctx context.Context, session, principal string) (int64, error) {
	return s.j.LastUndoable(ctx, session, principal)
}

func (s *sqlJournal) MarkUndone(ctx context.Context, ids []int64, ns int64) error {
	return s.j.MarkUndone(ctx, ids, ns)
}

func (s *sqlJournal) Close() error { return s.j.Close() }
