package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// more than one. Each op runs under its own SAVEPOINT, so a failing op is rolled back alone and
// the others still commit. Nothing is acknowledged before the commit, so a returned write is
// as durable as before.
//
// ctx only guards the wait to enter the queue: once an op is taken it runs to completion,
// because cancelling a statement mid-transaction would interrupt the whole batch.
func (j *Journal) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &writeOp{fn: fn, done: make(chan error, 1)}
	select {
	case j.ops <- op:
	case <-j.quit:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-op.done
}

// writer is the goroutine that owns the write connection.
func (j *Journal) writer() {
	defer close(j.writerDone)
	for {
		var first *writeOp
		select {
		case first = <-j.ops:
		case <-j.quit:
			return
		}
		batch := []*writeOp{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case op := <-j.ops:
				batch = append(batch, op)
			default:
				break drain
			}
		}
		errs := j.commit(batch)
		for i, op := range batch {
			op.done <- errs[i]
		}
	}
}

// commit runs a batch in one transaction and returns each op's outcome.
func (j *Journal) commit(batch []*writeOp) []error {
	ctx := context.Background()
	errs := make([]error, len(batch))
	failAll := func(err error) []error {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	tx, err := j.w.BeginTx(ctx, nil)
	if err != nil {
		return failAll(fmt.Errorf("begin transaction: %w", err))
	}
	if len(batch) == 1 {
		// No savepoint needed: the op's failure is the transaction's.
		if err := batch[0].fn(tx); err != nil {
			tx.Rollback()
			return failAll(err)
		}
	} else {
		for i, op := range batch {
			if _, err := tx.ExecContext(ctx, "SAVEPOINT op"); err != nil {
				tx.Rollback()
				return failAll(fmt.Errorf("savepoint: %w", err))
			}
			if errs[i] = op.fn(tx); errs[i] != nil {
				if _, err := tx.ExecContext(ctx, "ROLLBACK TO op"); err != nil {
					tx.Rollback()
					return failAll(fmt.Errorf("rollback to savepoint: %w", err))
				}
			}
			if _, err := tx.ExecContext(ctx, "RELEASE op"); err != nil {
				tx.Rollback()
				return failAll(fmt.Errorf("release savepoint: %w", err))
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return failAll(fmt.Errorf("commit: %w", err))
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
