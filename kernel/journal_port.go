package kernel

import (
	"context"
	"strconv"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// journalPort serves the evaluator's journal-backed heads. `journal [N]` lists the newest N
// (default 100) exec rows the session's principal may read, and `history [N]` this session's
// own, both oldest first as a table {id, ts, principal, src, ok, status, effects}. undo, plan,
// apply and explain keep the evaluator's no-journal answers until undo records and in-language
// plans exist.
func (ss *session) journalPort(ctx context.Context, head string, args []string) (value.Value, error) {
	s := ss.srv
	switch head {
	case "undo":
		return nil, diag.New(diag.NotFound, "undo: nothing to undo in this session")
	case "apply":
		return nil, diag.New(diag.NotFound, "apply: unknown plan id")
	case "plan", "explain":
		return value.NewRecord([]string{"id", "effects", "reversible", "spawns"},
			[]value.Value{value.Null{}, &value.List{Items: []value.Value{}}, value.Bool(true), &value.List{Items: []value.Value{}}}), nil
	}
	limit := 100
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 {
			return nil, diag.New(diag.ArgError, "%s: expected a positive count, found %q", head, args[0])
		}
		limit = n
	}
	id := ss.identity()
	if !s.policy.Allows(id, "journal_read") {
		return nil, diag.New(diag.Permission, "%s: journal_read denied for %s", head, id.Principal)
	}
	f := JournalFilter{Limit: limit}
	if head == "history" || !s.policy.ReadAll(id) {
		f.OnlyPrincipal = id.Principal
	}
	if head == "history" {
		f.Limit = max(limit*4, 1000) // the journal has no session filter: over-fetch, then keep ours
	}
	rows, err := s.journal.Query(ctx, f)
	if err != nil {
		return nil, diag.New(diag.IOError, "%s: %v", head, err)
	}
	shape := value.NewShape([]string{"id", "ts", "principal", "src", "ok", "status", "effects"})
	var out []*value.Record
	for _, r := range rows {
		if head == "history" && r.Session != ss.key.name {
			continue
		}
		if len(out) == limit {
			break
		}
		var ok, status value.Value = value.Null{}, value.Null{}
		if r.OK != nil {
			ok = value.Bool(*r.OK)
		}
		if r.Status != nil {
			status = value.Int(*r.Status)
		}
		effects, err := value.FromJSON(r.Effects)
		if err != nil {
			effects = &value.List{Items: []value.Value{}}
		}
		out = append(out, &value.Record{Shape: shape, Vals: []value.Value{value.Int(r.ID),
			value.Datetime{T: time.Unix(0, r.Ts)}, value.Str(r.Principal), value.Str(r.Src), ok, status, effects}})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if out == nil {
		out = []*value.Record{}
	}
	return &value.Table{Rows: out}, nil
}

// identity is the principal a session runs as (sessions are keyed by it).
func (ss *session) identity() Identity {
	return Identity{Principal: ss.key.principal, Local: ss.key.principal == localIdentity(ss.srv.euid).Principal}
}
