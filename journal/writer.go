package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
)

// ErrClosed is returned by writes after [Journal.Close].
var ErrClosed = errors.New("journal closed")

// maxBatch bounds how many writes share one transaction.
const maxBatch = 64

// writeOp is one unit of work for the writer goroutine. fn runs inside the batch transaction;
// done receives its outcome only after the transaction committed (or failed).
type writeOp struct {
	fn   func(tx *sql.Tx) error
	done chan error
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
	j.qmu.Lock()
	if j.closed {
		j.qmu.Unlock()
		return nil, ErrClosed
	}
	j.queue = append(j.queue, op)
	j.qmu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default: // the writer is already signalled
	}
	return op, nil
}

// writer is the goroutine that owns the write connection. After Close it commits what is
// still queued, so no queued op is left unanswered.
func (j *Journal) writer() {
	defer close(j.writerDone)
	var batch []*writeOp
	for {
		// Let goroutines that are about to queue a write do so first: on a busy machine the
		// writer would otherwise commit one write at a time while the next ones wait for a
		// CPU. (With 4 clients this doubled the writes per commit; it costs nothing when no
		// other goroutine is runnable.)
		runtime.Gosched()
		j.qmu.Lock()
		q := j.queue
		n := min(len(q), maxBatch)
		batch = append(batch[:0], q[:n]...)
		clear(q[:n])
		if n == len(q) {
			j.queue = q[:0] // reuse the array
		} else {
			j.queue = q[n:]
		}
		closed := j.closed
		j.qmu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-j.wake
			continue
		}
		errs := j.commit(batch)
		for i, op := range batch {
			op.done <- errs[i]
		}
		clear(batch)
		if j.commits++; j.commits >= checkpointEvery {
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
func (j *Journal) commit(batch []*writeOp) []error {
	if errs, ok := j.commitFast(batch); ok {
		return errs
	}
	return j.commitIsolated(batch)
}

// commitFast runs batch without savepoints; false means an op failed and nothing was
// committed.
func (j *Journal) commitFast(batch []*writeOp) ([]error, bool) {
	errs := make([]error, len(batch))
	tx, err := j.w.BeginTx(context.Background(), nil)
	if err != nil {
		j.forgetSeqs()
		return failAll(errs, fmt.Errorf("begin transaction: %w", err)), true
	}
	for _, op := range batch {
		if err := op.fn(tx); err != nil {
			tx.Rollback()
			j.forgetSeqs()
			return nil, false
		}
	}
	if err := tx.Commit(); err != nil {
		j.forgetSeqs()
		return failAll(errs, fmt.Errorf("commit: %w", err)), true
	}
	return errs, true
}

// commitIsolated runs batch with each op under its own savepoint.
func (j *Journal) commitIsolated(batch []*writeOp) []error {
	ctx := context.Background()
	errs := make([]error, len(batch))
	fail := func(err error) []error {
		j.forgetSeqs()
		return failAll(errs, err)
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
			j.forgetSeqs() // the op's appends are rolled back with it
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
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	return errs
}

func failAll(errs []error, err error) []error {
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// forgetSeqs drops the writer's cache of next seqs after a rollback; they are read again from
// the table.
func (j *Journal) forgetSeqs() { clear(j.nextSeq) }

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
