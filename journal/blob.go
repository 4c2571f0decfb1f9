package journal

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/shoal-sh/shoal/journal/cas"
)

// TruncationMarker ends an output that was cut at the size cap (§7).
const TruncationMarker = "\n[shoal: output truncated; see journal metadata]\n"

// PutOutput stores an output's bytes in the blob store and records the blob, returning the
// [Output] to pass to [Journal.Finish]. Bytes beyond the size cap are counted but not kept: the
// blob is the prefix plus [TruncationMarker], and Meta says so.
func (j *Journal) PutOutput(ctx context.Context, kind string, r io.Reader) (Output, error) {
	out, err := j.storeOutput(kind, r)
	if err != nil {
		return Output{}, err
	}
	if err := j.recordBlob(ctx, out.Hash, out.Len); err != nil {
		return Output{}, fmt.Errorf("journal put %s output: %w", kind, err)
	}
	return out, nil
}

// PutBytes is [Journal.PutOutput] for bytes already in memory.
func (j *Journal) PutBytes(ctx context.Context, kind string, data []byte) (Output, error) {
	var out Output
	if int64(len(data)) > j.opts.MaxOutput {
		var err error
		if out, err = j.storeOutput(kind, bytes.NewReader(data)); err != nil {
			return Output{}, err
		}
	} else {
		hash, err := j.cas.Put(data)
		if err != nil {
			return Output{}, fmt.Errorf("journal put %s output: %w", kind, err)
		}
		out = Output{Kind: kind, Hash: hash, Len: int64(len(data))}
	}
	if err := j.recordBlob(ctx, out.Hash, out.Len); err != nil {
		return Output{}, fmt.Errorf("journal put %s output: %w", kind, err)
	}
	return out, nil
}

// StoreBytes is [Journal.PutBytes] for an output that a finish will name. A small new blob
// (at most holdMax) costs the exec neither a file nor a commit of its own: it is held in
// memory and travels in the finish's redo record, and the writer installs it in the CAS and
// writes its blob row when it applies that record (a replay after a crash too), in the same
// transaction as the output row, so it is as safe as the finish itself. Reads find a held
// blob through [Journal.Blob]. A larger blob is stored and recorded as PutBytes does.
func (j *Journal) StoreBytes(kind string, data []byte) (Output, error) {
	if len(data) > holdMax || int64(len(data)) > j.opts.MaxOutput {
		return j.PutBytes(context.Background(), kind, data)
	}
	h := cas.Sum(data)
	j.hmu.Lock()
	_, held := j.heldBlobs[h]
	j.hmu.Unlock()
	if !held && !j.cas.Has(h) {
		j.hmu.Lock()
		if j.heldBlobs == nil {
			j.heldBlobs = map[string][]byte{}
		}
		j.heldBlobs[h] = bytes.Clone(data)
		j.hmu.Unlock()
	}
	return Output{Kind: kind, Hash: h, Len: int64(len(data))}, nil
}

// holdMax bounds the blobs StoreBytes holds in memory and logs inline.
const holdMax = 64 << 10

// Blob reads a blob, held or stored.
func (j *Journal) Blob(hash string) ([]byte, error) {
	j.hmu.Lock()
	data, ok := j.heldBlobs[hash]
	j.hmu.Unlock()
	if ok {
		return bytes.Clone(data), nil
	}
	return j.cas.Get(hash)
}

// heldFor returns the held blobs among outs, to log with their finish.
func (j *Journal) heldFor(outs []Output) []redoBlob {
	j.hmu.Lock()
	defer j.hmu.Unlock()
	var blobs []redoBlob
	for _, o := range outs {
		if data, ok := j.heldBlobs[o.Hash]; ok {
			blobs = append(blobs, redoBlob{Hash: o.Hash, Data: data})
		}
	}
	return blobs
}

// installBlobs writes logged blobs to the CAS (their fsyncs come before the commit, see
// flushBlobs) and stops holding them: readers find them on disk from here on.
func (j *Journal) installBlobs(blobs []redoBlob) error {
	for _, b := range blobs {
		h, err := j.cas.Put(b.Data)
		if err != nil {
			return fmt.Errorf("install blob %s: %w", b.Hash, err)
		}
		if h != b.Hash {
			return fmt.Errorf("install blob %s: content hashes to %s", b.Hash, h)
		}
		j.hmu.Lock()
		delete(j.heldBlobs, b.Hash)
		j.hmu.Unlock()
	}
	return nil
}

// installHeld writes every blob still held (one no finish ever named) to the CAS.
func (j *Journal) installHeld() error {
	j.hmu.Lock()
	blobs := make([]redoBlob, 0, len(j.heldBlobs))
	for h, data := range j.heldBlobs {
		blobs = append(blobs, redoBlob{Hash: h, Data: data})
	}
	j.hmu.Unlock()
	return j.installBlobs(blobs)
}

// storeOutput stores r's bytes, cut at the size cap, and describes them.
func (j *Journal) storeOutput(kind string, r io.Reader) (Output, error) {
	tr := &truncator{r: bufio.NewReader(r), left: j.opts.MaxOutput}
	hash, n, err := j.cas.PutReader(tr)
	if err != nil {
		return Output{}, fmt.Errorf("journal put %s output: %w", kind, err)
	}
	out := Output{Kind: kind, Hash: hash, Len: n}
	if tr.truncated {
		meta, _ := json.Marshal(OutputMeta{Truncated: true, OriginalLen: tr.total, StoredLen: n})
		out.Meta = meta
	}
	return out, nil
}

// recordBlob adds the blob's metadata row after the bytes are safely in the store. It
// ignores cancellation: outputs are stored at the end of an exec that may have been cancelled.
func (j *Journal) recordBlob(ctx context.Context, hash string, n int64) error {
	ctx = context.WithoutCancel(ctx)
	raw, _ := hex.DecodeString(hash)
	now := j.opts.Now().UnixNano()
	_, err := j.exec(ctx, sqlBlob, raw, n, now, now)
	return err
}

// TouchBlob records a read of a blob (for GC by last access).
func (j *Journal) TouchBlob(ctx context.Context, hash string) error {
	if !cas.ValidHash(hash) {
		return cas.ErrInvalidHash
	}
	raw, _ := hex.DecodeString(hash)
	_, err := j.exec(ctx, `UPDATE blob SET last_access_ns = ? WHERE hash = ?`, j.opts.Now().UnixNano(), raw)
	return err
}

// Pin protects a blob from garbage collection; Unpin removes the protection.
func (j *Journal) Pin(ctx context.Context, hash string) error {
	if !cas.ValidHash(hash) {
		return cas.ErrInvalidHash
	}
	raw, _ := hex.DecodeString(hash)
	_, err := j.exec(ctx, `INSERT OR IGNORE INTO pin (hash) VALUES (?)`, raw)
	return err
}

// Unpin removes a pin; unpinning an unpinned blob is not an error.
func (j *Journal) Unpin(ctx context.Context, hash string) error {
	if !cas.ValidHash(hash) {
		return cas.ErrInvalidHash
	}
	raw, _ := hex.DecodeString(hash)
	_, err := j.exec(ctx, `DELETE FROM pin WHERE hash = ?`, raw)
	return err
}

// Pinned reports whether a blob is pinned.
func (j *Journal) Pinned(ctx context.Context, hash string) (bool, error) {
	if !cas.ValidHash(hash) {
		return false, nil
	}
	raw, _ := hex.DecodeString(hash)
	var found bool
	err := j.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pin WHERE hash = ?)`, raw).Scan(&found)
	return found, err
}

// Undo is one recorded inverse operation of an entry (how to reverse a trash move, a move, a
// whole-file write). ID and UndoneNs are read back, not written.
type Undo struct {
	ID       int64           `json:"-"`
	Op       string          `json:"op"`
	Inverse  json.RawMessage `json:"inverse"`
	UndoneNs int64           `json:"-"` // when it was applied; 0: not yet
}

// AddUndo records how to reverse part of an entry's effect.
func (j *Journal) AddUndo(ctx context.Context, entryID int64, u Undo) error {
	if !json.Valid(u.Inverse) {
		return errors.New("journal add undo: inverse is not JSON")
	}
	if _, err := j.exec(ctx, `INSERT INTO undo (entry_id, op, inverse) VALUES (?, ?, ?)`, entryID, u.Op, string(u.Inverse)); err != nil {
		return fmt.Errorf("journal add undo %d: %w", entryID, err)
	}
	return nil
}

// Undos returns an entry's undo records in the order they were added.
func (j *Journal) Undos(ctx context.Context, entryID int64) ([]Undo, error) {
	if err := j.settle(); err != nil {
		return nil, err
	}
	rows, err := j.r.QueryContext(ctx, `SELECT rowid, op, inverse, COALESCE(undone_ns, 0) FROM undo WHERE entry_id = ? ORDER BY rowid`, entryID)
	if err != nil {
		return nil, fmt.Errorf("journal undos %d: %w", entryID, err)
	}
	defer rows.Close()
	out := []Undo{}
	for rows.Next() {
		var u Undo
		var inv string
		if err := rows.Scan(&u.ID, &u.Op, &inv, &u.UndoneNs); err != nil {
			return nil, fmt.Errorf("journal undos %d: %w", entryID, err)
		}
		u.Inverse = json.RawMessage(inv)
		out = append(out, u)
	}
	return out, rows.Err()
}

// LastUndoable returns the newest exec entry of session and principal that has an undo record
// not yet applied, or 0 when there is none.
func (j *Journal) LastUndoable(ctx context.Context, session, principal string) (int64, error) {
	if err := j.settle(); err != nil {
		return 0, err
	}
	var id int64
	err := j.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(u.entry_id), 0) FROM undo AS u JOIN entry AS e ON e.id = u.entry_id
		WHERE u.undone_ns IS NULL AND e.session = ? AND e.principal = ?`, session, principal).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("journal last undoable: %w", err)
	}
	return id, nil
}

// MarkUndone records that the undo records ids were applied at ns.
func (j *Journal) MarkUndone(ctx context.Context, ids []int64, ns int64) error {
	return j.write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.Exec(`UPDATE undo SET undone_ns = ? WHERE rowid = ?`, ns, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// truncator passes through at most left bytes, then counts and discards the rest and, if
// anything was discarded, appends TruncationMarker.
type truncator struct {
	r         *bufio.Reader
	left      int64
	total     int64
	truncated bool
	marker    []byte
	done      bool
}

func (t *truncator) Read(p []byte) (int, error) {
	if t.done {
		if len(t.marker) == 0 {
			return 0, io.EOF
		}
		n := copy(p, t.marker)
		t.marker = t.marker[n:]
		return n, nil
	}
	if t.left > 0 {
		if int64(len(p)) > t.left {
			p = p[:t.left]
		}
		n, err := t.r.Read(p)
		t.left -= int64(n)
		t.total += int64(n)
		if errors.Is(err, io.EOF) {
			t.done = true
			return n, nil
		}
		return n, err
	}
	// At the cap: anything more means truncation. Count it without keeping it.
	rest, err := io.Copy(io.Discard, t.r)
	if err != nil {
		return 0, err
	}
	t.done = true
	if rest > 0 {
		t.total += rest
		t.truncated = true
		t.marker = []byte(TruncationMarker)
	}
	return 0, nil
}
