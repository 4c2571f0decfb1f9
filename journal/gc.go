package journal

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"
)

// GCOptions selects blobs to delete. A blob is never deleted while pinned. Referenced blobs are
// not protected: a later read of a collected output is answered UNKNOWN_REF (§7).
type GCOptions struct {
	// OlderThan deletes blobs not accessed for this long; 0 disables the age rule.
	OlderThan time.Duration
	// MaxBytes deletes the least recently accessed blobs until the recorded total is at most
	// this; 0 disables the budget rule.
	MaxBytes int64
	// Apply really deletes; the default is a dry run that only reports.
	Apply bool
}

// GCReport lists what a collection removed (or would remove, in a dry run).
type GCReport struct {
	Hashes []string // oldest access first
	Bytes  int64    // their total stored length
	DryRun bool
}

// GC collects unpinned blobs by age and byte budget, oldest access first. The row is deleted
// before the file, so a crash in between leaves an orphan file (wasted space), never a pinned
// blob removed. Run it while no output is being stored: a Put of the same content racing the
// removal could record a blob whose file is then deleted.
func (j *Journal) GC(ctx context.Context, o GCOptions) (GCReport, error) {
	report := GCReport{Hashes: []string{}, DryRun: !o.Apply}
	rows, err := j.r.QueryContext(ctx, `SELECT hash, stored_len, last_access_ns FROM blob
		WHERE hash NOT IN (SELECT hash FROM pin) ORDER BY last_access_ns, hash`)
	if err != nil {
		return report, fmt.Errorf("journal gc: %w", err)
	}
	type cand struct {
		hash   []byte
		size   int64
		access int64
	}
	var cands []cand
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.hash, &c.size, &c.access); err != nil {
			rows.Close()
			return report, fmt.Errorf("journal gc: %w", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return report, fmt.Errorf("journal gc: %w", err)
	}
	var total int64
	if err := j.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(stored_len), 0) FROM blob`).Scan(&total); err != nil {
		return report, fmt.Errorf("journal gc: %w", err)
	}
	cutoff := j.opts.Now().Add(-o.OlderThan).UnixNano()
	for _, c := range cands {
		expired := o.OlderThan > 0 && c.access < cutoff
		overBudget := o.MaxBytes > 0 && total > o.MaxBytes
		if !expired && !overBudget {
			// Candidates are in access order: once neither rule applies, none later does
			// for age; the budget only shrinks as we go.
			break
		}
		h := hex.EncodeToString(c.hash)
		if o.Apply {
			// The row goes first, and only if the blob is still unpinned (a pin may have
			// arrived since the listing).
			res, err := j.exec(ctx, `DELETE FROM blob WHERE hash = ? AND hash NOT IN (SELECT hash FROM pin)`, c.hash)
			if err != nil {
				return report, fmt.Errorf("journal gc: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			if err := j.cas.Remove(h); err != nil {
				return report, fmt.Errorf("journal gc: %w", err)
			}
		}
		report.Hashes = append(report.Hashes, h)
		report.Bytes += c.size
		total -= c.size
	}
	return report, nil
}
