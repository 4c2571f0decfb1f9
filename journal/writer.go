package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// ErrClosed is returned by writes after [Journal.Close].
var ErrClosed = errors.New("journal closed")

// maxBatch bounds how many writes share one transaction.
const maxBatch = 64

// writeOp is one unit of work for the writer goroutine. fn runs inside the batch transaction;
// done receives its outcome only after the transaction committed (or failed).
type writeOp struct {
	fn   func(tx *sql.Tx) error
	done chan error // nil for a logged record: nobody waits, it is durable already
	lsn  int64      // the redo record this op applies; 0 for a plain write

	// For a logged record: the record, the end merged into it (see mergeEnd), and whether
	// the writer has taken it (guarded by qmu until then).
	rec   *redoRecord
	end   *redoRecord
	taken bool
}

// write runs fn in the writer goroutine and returns once its effect is committed.
//
// All writes go through one goroutine that groups whatever is waiting into a single
// transaction (group commit): in WAL mode most of a small write's cost is the commit, which
// rewrites the touched pages, so four waiting Begin/Finish calls in one commit cost little
// more than one. A failing op is rolled back alone and the others still commit (see commit),
// so fn may run twice and must only assign its results. Nothing is acknowledged before the
// commit, so a returned write is as durable as before.
//
// ctx is only checked before the op is queued: once queued an op runs to completion, because
// cancelling a statement mid-transaction would interrupt the whole batch.
func (j *Journal) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	op, err := j.enqueue(ctx, fn)
	if err != nil {
		return err
	}
	return <-op.done
}

// enqueue queues fn for the writer and returns at once. Ops are taken in the order they were
// queued, and an op commits in the same transaction as, or a later one than, every op queued
// before it; callers that must keep an order (the seqs of a durable channel) queue under
// their own lock and wait for op.done outside it.
func (j *Journal) enqueue(ctx context.Context, fn func(tx *sql.Tx) error) (*writeOp, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	op := &writeOp{fn: fn, done: make(chan error, 1)}
	if j.push(op) < 0 {
		return nil, ErrClosed
	}
	return op, nil
}

// push appends op to the writer's queue and returns the queue's length, or -1 after Close.
func (j *Journal) push(op *writeOp) int {
	j.qmu.Lock()
	if j.closed {
		j.qmu.Unlock()
		return -1
	}
	j.queue = append(j.queue, op)
	n := len(j.queue)
	if op.done != nil {
		j.waiters++
	}
	j.qmu.Unlock()
	// A logged record needs the writer only to start its gathering delay (the first in an
	// empty queue) or to end it (a full batch); someone waiting needs it now.
	if op.done != nil || n == 1 || n >= maxBatch {
		select {
		case j.wake <- struct{}{}:
		default: // the writer is already signalled
		}
	}
	return n
}

// applyDelay is how long the writer gathers logged records before applying them, unless a
// batch fills up or someone waits (a read settling, a plain write). Logged records are durable
// already, so the delay costs nothing but lets one commit carry many execs instead of one
// commit per write: the CPU a commit takes is what an exec's round trip competes with.
const applyDelay = 5 * time.Millisecond

// writer is the goroutine that owns the write connection. After Close it commits what is
// still queued, so no queued op is left unanswered.
func (j *Journal) writer() {
	defer close(j.writerDone)
	background()
	var batch []*writeOp
	var deadline time.Time // the end of the current gathering delay, zero when none runs
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		// Let goroutines that are about to queue a write do so first: on a busy machine the
		// writer would otherwise commit one write at a time while the next ones wait for a
		// CPU. (With 4 clients this doubled the writes per commit; it costs nothing when no
		// other goroutine is runnable.)
		runtime.Gosched()
		j.qmu.Lock()
		q := j.queue
		closed := j.closed
		if len(q) > 0 && len(q) < maxBatch && j.waiters == 0 && !closed {
			if deadline.IsZero() {
				deadline = time.Now().Add(j.opts.ApplyDelay)
			}
			if wait := time.Until(deadline); wait > 0 {
				j.qmu.Unlock()
				timer.Reset(wait)
				select {
				case <-j.wake:
				case <-timer.C:
				}
				timer.Stop()
				continue
			}
		}
		deadline = time.Time{}
		n := min(len(q), maxBatch)
		batch = append(batch[:0], q[:n]...)
		clear(q[:n])
		if n == len(q) {
			j.queue = q[:0] // reuse the array
		} else {
			j.queue = q[n:]
		}
		for _, op := range batch {
			op.taken = true
			if op.done != nil {
				j.waiters--
			}
		}
		j.qmu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-j.wake
			continue
		}
		var lsn int64
		for _, op := range batch {
			lsn = max(lsn, op.lsn)
		}
		errs, whole := j.commit(batch, lsn)
		if whole != nil && lsn > 0 && !closed {
			// The transaction itself failed (a full disk, an I/O error): the logged records
			// are safe in the redo log, so keep them at the head of the queue and retry.
			// (After Close they stay in the log, and the next Open replays them.)
			var again []*writeOp
			for i, op := range batch {
				if op.lsn > 0 {
					again = append(again, op)
				} else {
					op.done <- errs[i]
				}
			}
			j.qmu.Lock()
			j.queue = append(again, j.queue...)
			j.qmu.Unlock()
			clear(batch)
			time.Sleep(retryAfter)
			continue
		}
		if lsn > 0 && whole == nil {
			// Before anyone waiting is answered: a settled read must find the position (and
			// the log's truncation) not behind what it waited for.
			j.applied(lsn)
			j.appliedLSN.Store(lsn)
		}
		for i, op := range batch {
			if op.done != nil {
				op.done <- errs[i]
			}
		}
		clear(batch)
		if j.commits += len(batch); j.commits >= checkpointEvery {
			j.commits = 0
			select {
			case j.ckWake <- struct{}{}:
			default: // a checkpoint is already due
			}
		}
	}
}

// commit runs a batch in one transaction and returns each op's outcome.
//
// It first runs every op in a plain transaction, which is all the usual all-good batch needs.
// If an op fails, that transaction is rolled back and the batch runs again with each op under
// its own SAVEPOINT, so the failing op is rolled back alone and the others still commit. An op
// may therefore run twice; its fn only assigns results, so running it again is harmless.
// lsn > 0 is the highest redo record in the batch, recorded as applied in the same
// transaction. whole reports a failure of the transaction itself, as opposed to single ops.
func (j *Journal) commit(batch []*writeOp, lsn int64) (errs []error, whole error) {
	if errs, whole, ok := j.commitFast(batch, lsn); ok {
		return errs, whole
	}
	return j.commitIsolated(batch, lsn)
}

// flushBlobs makes the blobs stored since the last commit durable (their fsyncs are deferred,
// see cas.Options.DeferSync) before the transaction that may name them commits.
func (j *Journal) flushBlobs() error {
	if j.cas == nil || !j.cas.Pending() {
		return nil
	}
	if err := j.cas.Flush(); err != nil {
		return fmt.Errorf("flush blobs: %w", err)
	}
	return nil
}

// retryAfter is the writer's pause before retrying a transaction that failed as a whole.
const retryAfter = 50 * time.Millisecond

// commitFast runs batch without savepoints; false means an op failed and nothing was
// committed.
func (j *Journal) commitFast(batch []*writeOp, lsn int64) ([]error, error, bool) {
	errs := make([]error, len(batch))
	tx, err := j.w.BeginTx(context.Background(), nil)
	if err != nil {
		err = fmt.Errorf("begin transaction: %w", err)
		return failAll(errs, err), err, true
	}
	for _, op := range batch {
		if err := op.fn(tx); err != nil {
			tx.Rollback()
			return nil, nil, false
		}
	}
	if err := j.markApplied(tx, lsn); err != nil {
		tx.Rollback()
		return failAll(errs, err), err, true
	}
	if err := j.flushBlobs(); err != nil {
		tx.Rollback()
		return failAll(errs, err), err, true
	}
	if err := tx.Commit(); err != nil {
		err = fmt.Errorf("commit: %w", err)
		return failAll(errs, err), err, true
	}
	return errs, nil, true
}

// markApplied records lsn as applied (nothing for lsn 0).
func (j *Journal) markApplied(tx *sql.Tx, lsn int64) error {
	if lsn == 0 {
		return nil
	}
	if _, err := tx.Stmt(j.setApplied).Exec(lsn); err != nil {
		return fmt.Errorf("record redo position: %w", err)
	}
	return nil
}

// commitIsolated runs batch with each op under its own savepoint.
func (j *Journal) commitIsolated(batch []*writeOp, lsn int64) ([]error, error) {
	ctx := context.Background()
	errs := make([]error, len(batch))
	fail := func(err error) ([]error, error) {
		return failAll(errs, err), err
	}
	tx, err := j.w.BeginTx(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("begin transaction: %w", err))
	}
	for i, op := range batch {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT op"); err != nil {
			tx.Rollback()
			return fail(fmt.Errorf("savepoint: %w", err))
		}
		if errs[i] = op.fn(tx); errs[i] != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO op"); err != nil {
				tx.Rollback()
				return fail(fmt.Errorf("rollback to savepoint: %w", err))
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE op"); err != nil {
			tx.Rollback()
			return fail(fmt.Errorf("release savepoint: %w", err))
		}
	}
	if err := j.markApplied(tx, lsn); err != nil {
		tx.Rollback()
		return fail(err)
	}
	if err := j.flushBlobs(); err != nil {
		tx.Rollback()
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	return errs, nil
}

func failAll(errs []error, err error) []error {
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// exec runs one statement through the writer.
func (j *Journal) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := j.write(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = tx.Exec(query, args...)
		return err
	})
	return res, err
}
