package journal

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/journal/cas"
)

// Entry kinds. A kernel exec writes one exec row; the session evaluator writes one stmt row per
// top-level statement, linked to the exec by ParentID. Only exec rows feed journal.query by
// default and the `journal` channel.
const (
	KindExec = "exec"
	KindStmt = "stmt"
)

// Output kinds.
const (
	OutputValue  = "value"
	OutputRender = "render"
	OutputStdout = "stdout"
	OutputStderr = "stderr"
)

// ExecStart is what is known when an exec or statement begins.
type ExecStart struct {
	Kind      string          // KindExec or KindStmt; "" means KindExec
	ParentID  int64           // the exec row a statement belongs to; 0 for none
	Session   string          // session name
	Principal string          // e.g. "uid:1000", "agent:reviewer"
	Src       string          // the source as submitted
	Head      string          // first whitespace-separated word of Src; "" means derive it
	AST       json.RawMessage // AST JSON; nil stored as null
	Cwd       []byte          // working directory, raw bytes (paths need not be UTF-8)
	EnvHash   string          // hex digest of the environment; "" for unknown
	Effects   json.RawMessage // JSON array of effect objects ({"kind":…}); nil stored as []
	StartedNs int64           // Unix ns at start; 0 means now
	// Lazy says the start need not be durable when Begin returns: it is written with the next
	// logged record (normally the entry's own end) or committed by the writer within its
	// gathering delay, saving a write(2). Meant for execs with no effects, where an unfinished
	// row left by a crash would explain nothing.
	Lazy bool
}

// ExecFinish is what is known when it ends.
type ExecFinish struct {
	Status  *int  // exit status; nil on signal death or no process
	OK      bool  // the outcome's ok (mirrors a failed outcome, not just raised errors)
	DurNs   int64 // duration
	Opaque  bool  // ran something whose effects could not be derived
	Outputs []Output
	// Meta is the row's JSON metadata (e.g. the sandbox status of a confined spawn); nil
	// stores NULL.
	Meta json.RawMessage
}

// Output is one recorded output of an entry: its kind and where the bytes are in the blob
// store. The JSON form is the one journal.query returns.
type Output struct {
	Kind string          `json:"kind"`
	Hash string          `json:"hash"` // 64 lowercase hex
	Len  int64           `json:"len"`  // stored (uncompressed) length
	Meta json.RawMessage `json:"meta,omitempty"`
}

// OutputMeta describes a truncated output (stored as Output.Meta).
type OutputMeta struct {
	Truncated   bool  `json:"truncated"`
	OriginalLen int64 `json:"original_len"`
	StoredLen   int64 `json:"stored_len"`
}

// HeadOf returns the first whitespace-separated word of src, the key of the head filter.
func HeadOf(src string) string {
	src = strings.TrimLeftFunc(src, unicode.IsSpace)
	if i := strings.IndexFunc(src, unicode.IsSpace); i >= 0 {
		return src[:i]
	}
	return src
}

const (
	sqlBegin = `INSERT INTO entry (id, kind, parent_id, session, principal, ts, cwd, env_hash, src, head, ast, effects)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// sqlBeginDone inserts a row already finished: a Begin and its Finish applied together.
	sqlBeginDone = `INSERT INTO entry (id, kind, parent_id, session, principal, ts, cwd, env_hash, src, head, ast, effects,
		dur_ns, status, ok, opaque, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlFinish = `UPDATE entry SET dur_ns = ?, status = ?, ok = ?, opaque = ?, meta = ? WHERE id = ? AND ok IS NULL`
	sqlOutput = `INSERT INTO output (entry_id, kind, hash, len, meta) VALUES (?, ?, ?, ?, ?)` // and more rows: sqlRows
	sqlBlob   = `INSERT INTO blob (hash, stored_len, created_ns, last_access_ns) VALUES (?, ?, ?, ?)
		ON CONFLICT (hash) DO UPDATE SET last_access_ns = excluded.last_access_ns`
)

// Begin records the start of an exec or statement and returns its id. The row is visible at
// once (unfinished: dur_ns, status and ok are null) and durable when Begin returns.
func (j *Journal) Begin(ctx context.Context, s ExecStart) (int64, error) {
	kind := s.Kind
	if kind == "" {
		kind = KindExec
	}
	if kind != KindExec && kind != KindStmt {
		return 0, fmt.Errorf("journal begin: kind %q is neither %q nor %q", kind, KindExec, KindStmt)
	}
	head := s.Head
	if head == "" {
		head = HeadOf(s.Src)
	}
	ast, err := jsonOr(s.AST, "null")
	if err != nil {
		return 0, fmt.Errorf("journal begin: ast: %w", err)
	}
	effects, err := jsonOr(s.Effects, "[]")
	if err != nil {
		return 0, fmt.Errorf("journal begin: effects: %w", err)
	}
	if strings.TrimSpace(effects) == "null" {
		effects = "[]" // a nil Go slice marshals to null; it means no effects
	}
	if !strings.HasPrefix(strings.TrimSpace(effects), "[") {
		// The effects filter walks an array; anything else would silently never match.
		return 0, fmt.Errorf("journal begin: effects must be a JSON array")
	}
	if s.StartedNs == 0 {
		s.StartedNs = j.opts.Now().UnixNano()
	}
	cwd := s.Cwd
	if cwd == nil {
		cwd = []byte{}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	b := &redoBegin{Kind: kind, ParentID: s.ParentID, Session: s.Session, Principal: s.Principal, TS: s.StartedNs,
		Cwd: cwd, EnvHash: s.EnvHash, Src: s.Src, Head: head, AST: ast, Effects: effects}
	_, err = j.logRecord(func(rec *redoRecord) (func(*sql.Tx) error, error) {
		if b.ParentID != 0 && (b.ParentID < 0 || b.ParentID >= j.nextID) {
			return nil, fmt.Errorf("parent entry %d: %w", b.ParentID, ErrNotFound)
		}
		b.ID = j.nextID
		j.nextID++
		j.unfinished[b.ID] = struct{}{}
		rec.Begin = b
		rec.lazy = s.Lazy
		return nil, nil
	})
	if err != nil {
		return 0, fmt.Errorf("journal begin: %w", err)
	}
	return b.ID, nil
}

// Finish completes entry id and records its outputs, in one transaction. The blobs must
// already be in the store (see [Journal.PutOutput]). Finishing an entry twice is refused with
// [ErrAlreadyFinished]. Finish records even when ctx is already cancelled: the usual reason
// to finish early is a cancelled exec, and that end must be journaled too.
func (j *Journal) Finish(ctx context.Context, id int64, f ExecFinish) error {
	fin, err := j.prepareFinish(id, f)
	if err != nil {
		return err
	}
	p, err := j.queueEnd(id, &f, fin, nil)
	if err != nil {
		return err
	}
	if _, err := p.Wait(); err != nil {
		return fmt.Errorf("journal finish %d: %w", id, err)
	}
	return nil
}

// queueEnd numbers evs and queues the end of an exec: finishing entry id with f (nil: none;
// fin is f validated) and storing evs. When the entry was begun by this process and is still
// unfinished, or there is no finish, the end is logged (durable at once); otherwise it takes
// the writer's path, which tells an unknown entry from a finished one, and Pending.Wait waits
// for its commit.
func (j *Journal) queueEnd(id int64, f *ExecFinish, fin *finishWrite, evs []EventAppend) (*Pending, error) {
	p := &Pending{}
	var blobs []redoBlob // held outputs of f (see StoreBytes), installed by whichever path applies it
	if f != nil {
		blobs = j.heldFor(f.Outputs)
	}
	op, err := j.logRecord(func(rec *redoRecord) (func(*sql.Tx) error, error) {
		if err := j.checkEntries(evs); err != nil {
			return nil, err
		}
		numbered := j.numberEvents(evs)
		p.seqs = make([]int64, len(numbered))
		for i, ev := range numbered {
			p.seqs[i] = ev.Seq
		}
		if _, open := j.unfinished[id]; f != nil && !open {
			return func(tx *sql.Tx) error {
				p.finishErr = nil
				if err := j.installBlobs(blobs); err != nil {
					return err
				}
				fin.newBlobs = blobs
				if err := fin.apply(tx); errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyFinished) {
					p.finishErr = fmt.Errorf("journal finish %d: %w", id, err) // nothing written: the events still go in
				} else if err != nil {
					return fmt.Errorf("journal finish %d: %w", id, err)
				}
				if err := j.insertEvents(tx, numbered); err != nil {
					return fmt.Errorf("journal append events: %w", err)
				}
				return nil
			}, nil
		}
		if f != nil {
			delete(j.unfinished, id)
			rec.ID, rec.Finish, rec.Blobs = id, f, blobs
		}
		rec.Events = numbered
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	p.op = op
	return p, nil
}

// finishWrite is a validated Finish, ready to run in the writer's transaction.
type finishWrite struct {
	j      *Journal
	id     int64
	f      ExecFinish
	status any
	meta   any
	rows   []outputRow
	now    int64 // when it was prepared: the access time of its new blobs
	// newBlobs are the outputs StoreBytes held (see there), whose blob rows come with this
	// finish; every other output's blob was recorded when it was stored.
	newBlobs []redoBlob
}

type outputRow struct {
	kind string
	hash []byte
	len  int64
	meta any
}

// prepareFinish validates f and converts it to column values, outside the writer.
func (j *Journal) prepareFinish(id int64, f ExecFinish) (*finishWrite, error) {
	w := &finishWrite{j: j, id: id, f: f, rows: make([]outputRow, 0, len(f.Outputs)), now: j.opts.Now().UnixNano()}
	for _, o := range f.Outputs {
		switch o.Kind {
		case OutputValue, OutputRender, OutputStdout, OutputStderr:
		default:
			return nil, fmt.Errorf("journal finish %d: unknown output kind %q", id, o.Kind)
		}
		raw, err := hex.DecodeString(o.Hash)
		if err != nil || !cas.ValidHash(o.Hash) {
			return nil, fmt.Errorf("journal finish %d: output hash %q: %w", id, o.Hash, cas.ErrInvalidHash)
		}
		var meta any
		if o.Meta != nil {
			if !json.Valid(o.Meta) {
				return nil, fmt.Errorf("journal finish %d: output meta is not JSON", id)
			}
			meta = string(o.Meta)
		}
		w.rows = append(w.rows, outputRow{o.Kind, raw, o.Len, meta})
	}
	if f.Status != nil {
		w.status = *f.Status
	}
	if f.Meta != nil {
		if !json.Valid(f.Meta) {
			return nil, fmt.Errorf("journal finish %d: meta is not JSON", id)
		}
		w.meta = string(f.Meta)
	}
	return w, nil
}

// apply runs the finish in the writer's transaction. A refused finish (unknown or already
// finished entry) has written nothing when it returns.
func (w *finishWrite) apply(tx *sql.Tx) error {
	res, err := tx.Stmt(w.j.finish).Exec(w.f.DurNs, w.status, w.f.OK, w.f.Opaque, w.meta, w.id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		// Tell a second Finish (which would duplicate the outputs) from an unknown id.
		var exists bool
		if qerr := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM entry WHERE id = ?)`, w.id).Scan(&exists); qerr == nil && exists {
			return ErrAlreadyFinished
		}
		return ErrNotFound
	}
	return w.insertOutputs(tx)
}

// insertOutputs stores the finish's output rows, and the blob rows of its new blobs (see
// [Journal.StoreBytes]).
func (w *finishWrite) insertOutputs(tx *sql.Tx) error {
	if len(w.rows) == 0 {
		return nil
	}
	if len(w.newBlobs) > 0 {
		blob := tx.Stmt(w.j.blobRow)
		for _, b := range w.newBlobs {
			raw, _ := hex.DecodeString(b.Hash)
			if _, err := blob.Exec(raw, len(b.Data), w.now, w.now); err != nil {
				return fmt.Errorf("blob: %w", err)
			}
		}
	}
	if n := len(w.rows); n < len(w.j.outputs) {
		// One statement for all of them: most of a small write's cost is per statement.
		args := make([]any, 0, 5*n)
		for _, r := range w.rows {
			args = append(args, w.id, r.kind, r.hash, r.len, r.meta)
		}
		if _, err := tx.Stmt(w.j.outputs[n]).Exec(args...); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		return nil
	}
	insert := tx.Stmt(w.j.outputs[1])
	for _, r := range w.rows {
		if _, err := insert.Exec(w.id, r.kind, r.hash, r.len, r.meta); err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	return nil
}

// Entry is one journal row in the JSON shape of journal.query (AGENT-SURFACE §2.5.9). Fields
// tagged "-" are stored but not part of that shape.
type Entry struct {
	ID        int64           `json:"id"`
	Session   string          `json:"session"`
	Principal string          `json:"principal"`
	TS        int64           `json:"ts"`
	DurNs     *int64          `json:"dur_ns"`
	Cwd       Path            `json:"cwd"`
	Src       string          `json:"src"`
	AST       json.RawMessage `json:"ast"`
	Effects   json.RawMessage `json:"effects"`
	Status    *int            `json:"status"`
	OK        *bool           `json:"ok"`
	Opaque    bool            `json:"opaque"`
	Outputs   []Output        `json:"outputs"`
	Meta      json.RawMessage `json:"meta,omitempty"` // see ExecFinish.Meta

	Kind     string `json:"-"`
	ParentID int64  `json:"-"`
	Head     string `json:"-"`
	EnvHash  string `json:"-"`
}

// Path is a filesystem path on the wire (WirePath): Display is always UTF-8; Raw carries the
// exact bytes (base64 in JSON) only when they are not valid UTF-8.
type Path struct {
	Display string `json:"display"`
	Raw     []byte `json:"raw,omitempty"`
}

// PathOf converts raw path bytes to a [Path].
func PathOf(b []byte) Path {
	if utf8.Valid(b) {
		return Path{Display: string(b)}
	}
	return Path{Display: strings.ToValidUTF8(string(b), "\uFFFD"), Raw: b}
}

// entryColumns is the column list scanEntry expects.
const entryColumns = `id, kind, parent_id, session, principal, ts, dur_ns, cwd, env_hash, src, head, ast, effects, status, ok, opaque, meta`

func scanEntry(sc interface{ Scan(...any) error }) (*Entry, error) {
	var (
		e        Entry
		parent   sql.NullInt64
		dur      sql.NullInt64
		cwd      []byte
		envHash  sql.NullString
		ast, eff string
		status   sql.NullInt64
		ok       sql.NullBool
		meta     sql.NullString
	)
	if err := sc.Scan(&e.ID, &e.Kind, &parent, &e.Session, &e.Principal, &e.TS, &dur, &cwd, &envHash,
		&e.Src, &e.Head, &ast, &eff, &status, &ok, &e.Opaque, &meta); err != nil {
		return nil, err
	}
	e.ParentID = parent.Int64
	if dur.Valid {
		e.DurNs = &dur.Int64
	}
	e.Cwd = PathOf(cwd)
	e.EnvHash = envHash.String
	e.AST = json.RawMessage(ast)
	e.Effects = json.RawMessage(eff)
	if status.Valid {
		s := int(status.Int64)
		e.Status = &s
	}
	if ok.Valid {
		e.OK = &ok.Bool
	}
	if meta.Valid {
		e.Meta = json.RawMessage(meta.String)
	}
	e.Outputs = []Output{}
	return &e, nil
}

// Get returns one entry with its outputs.
func (j *Journal) Get(ctx context.Context, id int64) (*Entry, error) {
	if err := j.settle(); err != nil {
		return nil, err
	}
	e, err := scanEntry(j.r.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM entry WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("journal entry %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("journal entry %d: %w", id, err)
	}
	if err := j.attachOutputs(ctx, []*Entry{e}); err != nil {
		return nil, err
	}
	return e, nil
}

// attachOutputs loads the outputs of entries, one query per chunk (SQLite bounds the number
// of placeholders).
func (j *Journal) attachOutputs(ctx context.Context, entries []*Entry) error {
	const chunk = 500
	for len(entries) > chunk {
		if err := j.attachOutputs(ctx, entries[:chunk]); err != nil {
			return err
		}
		entries = entries[chunk:]
	}
	if len(entries) == 0 {
		return nil
	}
	byID := make(map[int64]*Entry, len(entries))
	args := make([]any, len(entries))
	for i, e := range entries {
		byID[e.ID] = e
		args[i] = e.ID
	}
	q := `SELECT entry_id, kind, hash, len, meta FROM output WHERE entry_id IN (?` +
		strings.Repeat(",?", len(entries)-1) + `) ORDER BY entry_id, rowid`
	rows, err := j.r.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("journal outputs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			o    Output
			hash []byte
			meta sql.NullString
		)
		if err := rows.Scan(&id, &o.Kind, &hash, &o.Len, &meta); err != nil {
			return fmt.Errorf("journal outputs: %w", err)
		}
		o.Hash = hex.EncodeToString(hash)
		if meta.Valid {
			o.Meta = json.RawMessage(meta.String)
		}
		byID[id].Outputs = append(byID[id].Outputs, o)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal outputs: %w", err)
	}
	return nil
}

func jsonOr(raw json.RawMessage, empty string) (string, error) {
	if len(raw) == 0 {
		return empty, nil
	}
	if !json.Valid(raw) {
		return "", errors.New("not valid JSON")
	}
	return string(raw), nil
}

func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sqlRows extends a single-row INSERT … VALUES (…) to n rows.
func sqlRows(insert string, n int) string {
	i := strings.LastIndex(insert, "(")
	return insert + strings.Repeat(", "+insert[i:], n-1)
}
