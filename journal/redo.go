package journal

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// The redo log makes the exec hot path cheap without weakening durability. Begin, the end of
// an exec (Finish/QueueFinish) and durable events are acknowledged once their record is
// appended to journal.db-redo with one write(2): from then on they survive the process being
// killed, exactly like a SQLite commit under synchronous=NORMAL (both sit in the OS page cache;
// neither survives power loss). The writer goroutine applies the records to SQLite in the
// background, in batches, and records the highest applied record (its LSN) in the same
// transaction, so Open replays exactly the records a crash left unapplied. Reads first wait
// until everything logged is applied (settle), so callers always read their own writes.

// redoSuffix names the log beside the database.
const redoSuffix = "-redo"

// redoTruncateAt is the log size above which the writer empties it once everything in it is
// applied (truncating after every commit would cost a filesystem transaction each time).
const redoTruncateAt = 4 << 20

// maxQueued bounds the records waiting for the writer: past it a logging call waits for the
// writer to catch up, so a client faster than SQLite cannot grow the queue without bound.
const maxQueued = 4096

// redoHeader is the record framing: payload length and CRC-32C of the payload, little endian.
const redoHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// redoRecord is one logged write: a Begin, or the end of an exec (finish and/or events).
type redoRecord struct {
	LSN    int64
	Begin  *redoBegin
	ID     int64 // the entry Finish completes
	Finish *ExecFinish
	Events []redoEvent
	// Blobs are small outputs the Finish names, logged inline (see Journal.StoreBytes): the
	// record's apply installs them in the CAS.
	Blobs []redoBlob
	// lazy (not logged) lets appendLog hold the record back: see [ExecStart].Lazy.
	lazy bool
}

type redoBlob struct {
	Hash string
	Data []byte
}

type redoBegin struct {
	ID        int64
	Kind      string
	ParentID  int64
	Session   string
	Principal string
	TS        int64
	Cwd       []byte
	EnvHash   string
	Src       string
	Head      string
	AST       string
	Effects   string
}

type redoEvent struct {
	Channel string
	Seq     int64
	EntryID int64
	TS      int64
	Payload json.RawMessage
}

// appendRecord appends rec's encoding to dst; on error dst is returned unchanged.
func appendRecord(dst []byte, rec *redoRecord) ([]byte, error) {
	start := len(dst)
	buf := rec.appendPayload(append(dst, make([]byte, redoHeader)...))
	n := len(buf) - start - redoHeader
	if uint64(n) > 1<<32-1 {
		return dst, fmt.Errorf("redo record of %d bytes", n)
	}
	binary.LittleEndian.PutUint32(buf[start:start+4], uint32(n))
	binary.LittleEndian.PutUint32(buf[start+4:start+8], crc32.Checksum(buf[start+redoHeader:], castagnoli))
	return buf, nil
}

// decodeRecords parses a log. It stops at the first incomplete or damaged record: only the
// tail can be torn (a write cut short by power loss), and nothing after it was acknowledged.
func decodeRecords(data []byte) []*redoRecord {
	var recs []*redoRecord
	for len(data) >= redoHeader {
		n := binary.LittleEndian.Uint32(data[0:4])
		sum := binary.LittleEndian.Uint32(data[4:8])
		if uint64(n) > uint64(len(data)-redoHeader) {
			break
		}
		payload := data[redoHeader : redoHeader+int(n)]
		if crc32.Checksum(payload, castagnoli) != sum {
			break
		}
		rec, err := decodePayload(payload)
		if err != nil {
			break
		}
		recs = append(recs, rec)
		data = data[redoHeader+int(n):]
	}
	return recs
}

// applyRecord writes rec in the writer's transaction. A finish that finds its row already
// finished (or missing) is skipped: records are applied exactly once (see recover), so that
// only happens to a row an earlier Finish of another path completed, and the events still go in.
func (j *Journal) applyRecord(tx *sql.Tx, rec *redoRecord) error {
	if err := j.installBlobs(rec.Blobs); err != nil {
		return err
	}
	if b := rec.Begin; b != nil {
		if _, err := tx.Stmt(j.begin).Exec(b.ID, b.Kind, nullInt(b.ParentID), b.Session, b.Principal, b.TS, b.Cwd,
			nullString(b.EnvHash), b.Src, b.Head, b.AST, b.Effects); err != nil {
			return fmt.Errorf("begin %d: %w", b.ID, err)
		}
	}
	if rec.Finish != nil {
		fin, err := j.prepareFinish(rec.ID, *rec.Finish)
		if err != nil {
			return err
		}
		fin.newBlobs = rec.Blobs
		if err := fin.apply(tx); err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrAlreadyFinished) {
			return fmt.Errorf("finish %d: %w", rec.ID, err)
		}
	}
	return j.applyEvents(tx, rec)
}

func (j *Journal) applyEvents(tx *sql.Tx, rec *redoRecord) error {
	if len(rec.Events) > 0 {
		if err := j.insertEvents(tx, rec.Events); err != nil {
			return fmt.Errorf("events: %w", err)
		}
	}
	return nil
}

// applyPair applies a Begin record and the end of the same entry that was merged into its
// queued write (see mergeEnd): the row is inserted finished, saving the UPDATE.
func (j *Journal) applyPair(tx *sql.Tx, begin, end *redoRecord) error {
	if err := j.installBlobs(end.Blobs); err != nil {
		return err
	}
	b := begin.Begin
	fin, err := j.prepareFinish(end.ID, *end.Finish)
	if err != nil {
		return err
	}
	fin.newBlobs = end.Blobs
	if _, err := tx.Stmt(j.beginDone).Exec(b.ID, b.Kind, nullInt(b.ParentID), b.Session, b.Principal, b.TS, b.Cwd,
		nullString(b.EnvHash), b.Src, b.Head, b.AST, b.Effects,
		end.Finish.DurNs, fin.status, end.Finish.OK, end.Finish.Opaque, fin.meta); err != nil {
		return fmt.Errorf("begin %d: %w", b.ID, err)
	}
	if err := fin.insertOutputs(tx); err != nil {
		return fmt.Errorf("finish %d: %w", end.ID, err)
	}
	return j.applyEvents(tx, end)
}

// logOp is the writer's op for a logged record; end is a later record merged into it.
func (j *Journal) logOp(rec *redoRecord) *writeOp {
	op := &writeOp{lsn: rec.LSN, rec: rec}
	op.fn = func(tx *sql.Tx) error {
		if op.end == nil {
			return j.applyRecord(tx, rec)
		}
		return j.applyPair(tx, rec, op.end)
	}
	return op
}

// mergeEnd folds rec, the end of the entry whose Begin is the newest queued write, into that
// write, so the writer inserts the row finished instead of inserting and then updating it. It
// only does so while that write is the last in the queue and not yet taken: then nothing was
// logged between the two records, so the write's LSN may jump to rec's. Called under logMu.
func (j *Journal) mergeEnd(rec *redoRecord) bool {
	op := j.lastBegin
	j.lastBegin = nil
	if op == nil || rec.Finish == nil || rec.Begin != nil || op.rec.Begin.ID != rec.ID {
		return false
	}
	j.qmu.Lock()
	defer j.qmu.Unlock()
	if op.taken || len(j.queue) == 0 || j.queue[len(j.queue)-1] != op {
		return false
	}
	op.end, op.lsn = rec, rec.LSN
	return true
}

// logRecord appends rec to the redo log and queues it for the writer; rec is durable when it
// returns. fill runs under the log lock and assigns what must follow log order (the LSN, entry
// ids, event seqs); it may refuse the record, leave it empty to log nothing, or return a plain
// write to queue instead (in the same order), whose op is returned for the caller to wait on.
func (j *Journal) logRecord(fill func(rec *redoRecord) (func(*sql.Tx) error, error)) (*writeOp, error) {
	rec := &redoRecord{}
	j.logMu.Lock()
	if j.closedLog {
		j.logMu.Unlock()
		return nil, ErrClosed
	}
	plain, err := fill(rec)
	if plain != nil && err == nil {
		j.lastBegin = nil
		op := &writeOp{fn: plain, done: make(chan error, 1)}
		n := j.push(op)
		j.logMu.Unlock()
		if n < 0 {
			return nil, ErrClosed
		}
		return op, nil
	}
	if err != nil || (rec.Begin == nil && rec.Finish == nil && len(rec.Events) == 0) {
		j.logMu.Unlock()
		return nil, err
	}
	rec.LSN = j.lastLSN + 1
	if err := j.appendLog(rec); err != nil {
		j.logMu.Unlock()
		return nil, fmt.Errorf("redo log: %w", err)
	}
	j.lastLSN = rec.LSN
	if j.mergeEnd(rec) {
		j.logMu.Unlock()
		return nil, nil
	}
	op := j.logOp(rec)
	queued := j.push(op)
	if rec.Begin != nil {
		j.lastBegin = op
	}
	j.logMu.Unlock()
	if queued > maxQueued {
		// Backpressure: wait until the writer has applied everything queued so far.
		return nil, j.write(context.Background(), func(*sql.Tx) error { return nil })
	}
	return nil, nil
}

// appendLog writes rec to the redo log, together with any record held back. A lazy Begin is
// held back for the next record, normally its own exec's end, so that a quick exec costs one
// write(2) instead of two. Nothing is acknowledged by a Begin (an exec is acknowledged by its
// end, which writes both), and a Begin still held back when the writer takes it becomes
// durable through its SQLite commit instead, within the writer's delay. Called under logMu.
func (j *Journal) appendLog(rec *redoRecord) error {
	buf, err := appendRecord(j.held, rec)
	if err != nil {
		return err
	}
	if rec.lazy {
		j.held = buf
		return nil
	}
	err = appendRedo(j.redo, j.redoFd, buf)
	j.held = buf[:0]
	if cap(buf) > 64<<10 {
		j.held = nil // one huge record must not pin its buffer
	}
	if err != nil {
		// A short write (a full disk, say) would leave a torn record, and replay stops at the
		// first one, losing what is logged after it: cut the log back to its last whole record.
		if terr := j.redo.Truncate(j.redoSize); terr != nil {
			return errors.Join(err, terr)
		}
		return err
	}
	j.redoSize += int64(len(buf))
	return nil
}

// settle waits until every logged record is in SQLite, so a read sees every acknowledged
// write. It costs nothing when the writer is idle.
func (j *Journal) settle() error {
	j.logMu.Lock()
	last := j.lastLSN
	j.logMu.Unlock()
	if j.appliedLSN.Load() >= last {
		return nil
	}
	err := j.write(context.Background(), func(*sql.Tx) error { return nil })
	if errors.Is(err, ErrClosed) {
		return nil // Close applied everything before closing
	}
	return err
}

// applied is called by the writer after a commit that applied records up to lsn, before it
// publishes that position: it empties the log when everything in it is applied and it has
// grown large.
func (j *Journal) applied(lsn int64) {
	j.logMu.Lock()
	defer j.logMu.Unlock()
	if lsn == j.lastLSN && j.redoSize > redoTruncateAt && j.redo != nil {
		if err := j.redo.Truncate(0); err == nil {
			j.redoSize = 0
		}
	}
}

// recover opens the redo log, applies the records a crash left unapplied (those above the
// LSN recorded in redo_applied), and empties it. It runs in Open, before the writer starts.
func (j *Journal) recover() error {
	path := j.path + redoSuffix
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.redo, j.redoFd = f, f.Fd() // a regular file: Fd changes nothing about how it is used
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read redo log: %w", err)
	}
	var applied int64
	if err := j.w.QueryRow(`SELECT lsn FROM redo_applied`).Scan(&applied); err != nil {
		return fmt.Errorf("read redo position: %w", err)
	}
	last := applied
	var todo []*redoRecord
	for _, rec := range decodeRecords(data) {
		last = max(last, rec.LSN)
		if rec.LSN > applied {
			todo = append(todo, rec)
		}
	}
	for len(todo) > 0 {
		n := min(len(todo), 1024)
		if err := j.replay(todo[:n]); err != nil {
			return err
		}
		todo = todo[n:]
	}
	if len(data) > 0 {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("empty redo log: %w", err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("empty redo log: %w", err)
		}
	}
	j.lastLSN = last
	j.appliedLSN.Store(last)
	if err := j.w.QueryRow(`SELECT COALESCE(MAX(id), 0) + 1 FROM entry`).Scan(&j.nextID); err != nil {
		return fmt.Errorf("read next entry id: %w", err)
	}
	return nil
}

// replay applies recovered records in one transaction. A record that fails is skipped under
// its own savepoint (it failed the same way when it was first applied, if it ever was), so
// one bad record cannot keep the journal from opening.
func (j *Journal) replay(recs []*redoRecord) error {
	tx, err := j.w.Begin()
	if err != nil {
		return fmt.Errorf("replay redo log: %w", err)
	}
	for _, rec := range recs {
		if _, err := tx.Exec("SAVEPOINT op"); err != nil {
			tx.Rollback()
			return fmt.Errorf("replay redo log: %w", err)
		}
		if err := j.applyRecord(tx, rec); err != nil {
			if _, err := tx.Exec("ROLLBACK TO op"); err != nil {
				tx.Rollback()
				return fmt.Errorf("replay redo log: %w", err)
			}
		}
		if _, err := tx.Exec("RELEASE op"); err != nil {
			tx.Rollback()
			return fmt.Errorf("replay redo log: %w", err)
		}
	}
	if _, err := tx.Exec(sqlApplied, recs[len(recs)-1].LSN); err != nil {
		tx.Rollback()
		return fmt.Errorf("replay redo log: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("replay redo log: %w", err)
	}
	return nil
}

const sqlApplied = `UPDATE redo_applied SET lsn = ?`
