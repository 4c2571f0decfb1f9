package journal

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shoal-sh/shoal/journal/cas"
)

// DefaultLimit is the number of rows a query returns when Filter.Limit is 0.
const DefaultLimit = 100

// Filter selects journal rows (journal.query, §2.5.9). Every field is applied in SQL before
// the limit, so a limit never hides a matching row behind newer non-matching ones.
type Filter struct {
	Since, Until *int64  // inclusive bounds on the entry's start ts (Unix ns)
	Principal    *string // rows of exactly this principal
	Head         *string // rows whose first word of src is exactly this
	OK           *bool   // finished rows with this ok; unfinished rows never match
	// Effects lists effect kinds that must all be present; dotted spellings ("fs.write") are
	// normalized to snake_case. Matched on the typed kind, never as substrings.
	Effects []string
	// Limit bounds the rows returned; 0 means DefaultLimit.
	Limit int
	// IncludeStatements also returns stmt rows; by default only exec rows.
	IncludeStatements bool
	// OnlyPrincipal, when non-empty, hides every row of other principals: the authorization
	// scope of a caller without journal_read_all. It combines with Principal.
	OnlyPrincipal string
}

// NormalizeEffectKind turns a client spelling of an effect kind into the stored one
// ("fs.write" → "fs_write").
func NormalizeEffectKind(k string) string { return strings.ReplaceAll(strings.TrimSpace(k), ".", "_") }

// Query returns matching entries with their outputs, newest first (by start ts, then id).
func (j *Journal) Query(ctx context.Context, f Filter) ([]*Entry, error) {
	if err := j.settle(); err != nil {
		return nil, err
	}
	if f.Limit < 0 {
		return nil, fmt.Errorf("journal query: negative limit %d", f.Limit)
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	var (
		where []string
		args  []any
	)
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if !f.IncludeStatements {
		add("kind = 'exec'")
	}
	if f.Since != nil {
		add("ts >= ?", *f.Since)
	}
	if f.Until != nil {
		add("ts <= ?", *f.Until)
	}
	if f.Principal != nil {
		add("principal = ?", *f.Principal)
	}
	if f.OnlyPrincipal != "" {
		add("principal = ?", f.OnlyPrincipal)
	}
	if f.Head != nil {
		add("head = ?", *f.Head)
	}
	if f.OK != nil {
		add("ok = ?", *f.OK)
	}
	if len(f.Effects) > 0 {
		kinds := make([]string, len(f.Effects))
		for i, k := range f.Effects {
			kinds[i] = NormalizeEffectKind(k)
		}
		want, err := json.Marshal(kinds)
		if err != nil {
			return nil, fmt.Errorf("journal query: %w", err)
		}
		// Cheap necessary condition first: the quoted kind appears in the text (or the text
		// has \u escapes, which could spell it differently). It spares the JSON walk below
		// for most rows when the kind is rare.
		for _, k := range kinds {
			quoted, _ := json.Marshal(k)
			add(`(instr(effects, ?) > 0 OR instr(effects, '\u') > 0)`, string(quoted))
		}
		// The real test: every wanted kind equals the kind of some stored effect. Effects are
		// objects with a kind member; a bare string item counts as its own kind.
		add(`NOT EXISTS (
			SELECT 1 FROM json_each(?) AS want
			WHERE NOT EXISTS (
				SELECT 1 FROM json_each(entry.effects) AS e
				WHERE (CASE e.type WHEN 'object' THEN json_extract(e.value, '$.kind') ELSE e.value END) = want.value))`,
			string(want))
	}
	q := `SELECT ` + entryColumns + ` FROM entry`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY ts DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := j.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("journal query: %w", err)
	}
	defer rows.Close()
	entries := []*Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("journal query: %w", err)
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal query: %w", err)
	}
	if err := j.attachOutputs(ctx, entries); err != nil {
		return nil, err
	}
	return entries, nil
}

// HashVisible reports whether hash is the output of some entry the principal may read: any
// entry when all is true (journal_read_all or a local human), else only the principal's own.
// blob.get serves only visible hashes. A malformed hash is never visible.
func (j *Journal) HashVisible(ctx context.Context, hash, principal string, all bool) (bool, error) {
	if err := j.settle(); err != nil {
		return false, err
	}
	if !cas.ValidHash(hash) {
		return false, nil
	}
	raw, _ := hex.DecodeString(hash)
	var found bool
	err := j.r.QueryRowContext(ctx, `SELECT EXISTS (
		SELECT 1 FROM output JOIN entry ON entry.id = output.entry_id
		WHERE output.hash = ? AND (? OR entry.principal = ?))`, raw, all, principal).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("journal hash visibility: %w", err)
	}
	return found, nil
}
