package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/zeebo/blake3"
)

// memJournal keeps the journal in memory: used when the kernel has no state directory, and by
// tests that do not exercise durability.
type memJournal struct {
	mu     sync.Mutex
	rows   []JournalRow // index = id-1
	heads  []string
	blobs  map[string][]byte
	events map[string][]StoredEvent
	undos  []memUndo
}

type memUndo struct {
	entry int64
	UndoRecord
}

// NewMemJournal returns an empty in-memory [Journal].
func NewMemJournal() Journal {
	return &memJournal{blobs: map[string][]byte{}, events: map[string][]StoredEvent{}}
}

func (m *memJournal) Begin(_ context.Context, s JournalStart) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kind := s.Kind
	if kind == "" {
		kind = "exec"
	}
	eff := s.Effects
	if eff == nil {
		eff = json.RawMessage("[]")
	}
	ast := s.AST
	if ast == nil {
		ast = json.RawMessage("null")
	}
	id := int64(len(m.rows) + 1)
	m.rows = append(m.rows, JournalRow{ID: id, Kind: kind, Session: s.Session, Principal: s.Principal,
		Ts: s.StartedNs, Cwd: s.Cwd, Src: s.Src, AST: ast, Effects: eff, Outputs: []JournalOutput{}})
	m.heads = append(m.heads, headOf(s.Src))
	return id, nil
}

func (m *memJournal) Finish(_ context.Context, id int64, f JournalFinish) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || id > int64(len(m.rows)) {
		return fmt.Errorf("journal finish %d: %w", id, ErrNotFound)
	}
	r := &m.rows[id-1]
	dur, ok := f.DurNs, f.OK
	r.DurNs, r.Status, r.OK, r.Opaque = &dur, f.Status, &ok, f.Opaque
	r.Outputs = append([]JournalOutput{}, f.Outputs...)
	r.Meta = f.Meta
	return nil
}

func (m *memJournal) StoreOutput(ctx context.Context, kind string, data []byte) (JournalOutput, error) {
	return m.PutOutput(ctx, kind, data)
}

func (m *memJournal) PutOutput(_ context.Context, kind string, data []byte) (JournalOutput, error) {
	sum := blake3.Sum256(data)
	h := fmt.Sprintf("%x", sum[:])
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[h]; !ok {
		m.blobs[h] = append([]byte(nil), data...)
	}
	return JournalOutput{Kind: kind, Hash: h, Len: int64(len(data))}, nil
}

func (m *memJournal) Blob(_ context.Context, hash string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[hash]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNotFound)
	}
	return b, nil
}

func (m *memJournal) BlobVisible(_ context.Context, hash, principal string, all bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.rows {
		for _, o := range r.Outputs {
			if o.Hash == hash && (all || r.Principal == principal) {
				return true, nil
			}
		}
	}
	return false, nil
}

func (m *memJournal) Query(_ context.Context, f JournalFilter) ([]JournalRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []JournalRow
	for i := len(m.rows) - 1; i >= 0 && len(out) < f.Limit; i-- {
		r := m.rows[i]
		if !matchRow(&r, m.heads[i], f) {
			continue
		}
		r.Outputs = append([]JournalOutput{}, r.Outputs...)
		out = append(out, r)
	}
	return out, nil
}

// matchRow applies every filter of f to r.
func matchRow(r *JournalRow, head string, f JournalFilter) bool {
	if r.Kind != "exec" && !f.IncludeStatements {
		return false
	}
	if f.Since != nil && r.Ts < *f.Since || f.Until != nil && r.Ts > *f.Until {
		return false
	}
	if f.Principal != nil && r.Principal != *f.Principal || f.Head != nil && head != *f.Head ||
		f.OnlyPrincipal != "" && r.Principal != f.OnlyPrincipal {
		return false
	}
	if f.OK != nil && (r.OK == nil || *r.OK != *f.OK) {
		return false
	}
	if len(f.Effects) > 0 {
		var effs []struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(r.Effects, &effs) != nil {
			return false
		}
		for _, want := range f.Effects {
			if !slices.ContainsFunc(effs, func(e struct {
				Kind string `json:"kind"`
			}) bool {
				return normalizeKind(e.Kind) == want
			}) {
				return false
			}
		}
	}
	return true
}

func (m *memJournal) QueueFinish(ctx context.Context, id int64, f *JournalFinish, evs []StoredEvent) func() error {
	var err error
	if f != nil {
		err = m.Finish(ctx, id, *f)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ev := range evs {
		if ev.EntryID >= 1 && ev.EntryID <= int64(len(m.rows)) {
			r := m.rows[ev.EntryID-1]
			ev.Session, ev.Principal = r.Session, r.Principal
		}
		m.events[ev.Channel] = append(m.events[ev.Channel], ev)
	}
	return func() error { return err }
}

func (m *memJournal) Events(_ context.Context, channel string, since *uint64) ([]StoredEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []StoredEvent
	for _, ev := range m.events[channel] {
		if since == nil || ev.Seq > *since {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (m *memJournal) NextSeq(_ context.Context, channel string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	evs := m.events[channel]
	if len(evs) == 0 {
		return 0, nil
	}
	return evs[len(evs)-1].Seq + 1, nil
}

func (m *memJournal) Close() error { return nil }

// headOf is the first whitespace-separated word of src (the head filter's key).
func headOf(src string) string {
	src = strings.TrimLeftFunc(src, unicode.IsSpace)
	if i := strings.IndexFunc(src, unicode.IsSpace); i >= 0 {
		return src[:i]
	}
	return src
}

// normalizeKind spells an effect kind the canonical way: fs.write ≡ fs_write.
func normalizeKind(k string) string { return strings.ReplaceAll(k, ".", "_") }

func (m *memJournal) Row(_ context.Context, id int64) (*JournalRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || id > int64(len(m.rows)) {
		return nil, fmt.Errorf("journal row %d: %w", id, ErrNotFound)
	}
	r := m.rows[id-1]
	return &r, nil
}

func (m *memJournal) AddUndo(_ context.Context, id int64, u UndoRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || id > int64(len(m.rows)) {
		return fmt.Errorf("journal add undo %d: %w", id, ErrNotFound)
	}
	u.ID, u.UndoneNs = int64(len(m.undos)+1), 0
	m.undos = append(m.undos, memUndo{entry: id, UndoRecord: u})
	return nil
}

func (m *memJournal) Undos(_ context.Context, id int64) ([]UndoRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []UndoRecord{}
	for _, u := range m.undos {
		if u.entry == id {
			out = append(out, u.UndoRecord)
		}
	}
	return out, nil
}

func (m *memJournal) LastUndoable(_ context.Context, session, principal string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var last int64
	for _, u := range m.undos {
		r := m.rows[u.entry-1]
		if u.UndoneNs == 0 && r.Session == session && r.Principal == principal {
			last = max(last, u.entry)
		}
	}
	return last, nil
}

func (m *memJournal) MarkUndone(_ context.Context, ids []int64, ns int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if id >= 1 && id <= int64(len(m.undos)) {
			m.undos[id-1].UndoneNs = ns
		}
	}
	return nil
}
