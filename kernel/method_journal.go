package kernel

import (
	"context"
	"encoding/json"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// handleJournalQuery returns matching exec rows, newest first, every filter applied before the
// limit; callers without journal_read_all see only their own rows (AGENT-SURFACE §2.5.9).
func (s *Server) handleJournalQuery(ctx context.Context, cs *connState, a *attachment, p proto.JournalQueryParams) (proto.JournalQueryResult, error) {
	if !s.policy.Allows(a.id, "journal_read") {
		return nil, jsonrpc.Errorf(proto.CodeLeashDenied, "journal_read denied for %s", a.id.Principal)
	}
	if p.Limit < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: negative limit")
	}
	f := JournalFilter{Since: p.Since, Until: p.Until, Principal: p.Principal, Head: p.Head, OK: p.OK,
		Limit: p.Limit, IncludeStatements: p.IncludeStatements}
	if f.Limit == 0 {
		f.Limit = proto.DefaultJournalLn
	}
	for _, e := range p.Effects {
		f.Effects = append(f.Effects, normalizeKind(e))
	}
	if !s.policy.ReadAll(a.id) {
		f.OnlyPrincipal = a.id.Principal
	}
	rows, err := s.journal.Query(ctx, f)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "journal: %v", err)
	}
	out := make(proto.JournalQueryResult, len(rows))
	for i, r := range rows {
		e := proto.JournalEntry{ID: r.ID, Kind: r.Kind, Session: r.Session, Principal: r.Principal, Ts: r.Ts,
			DurNs: r.DurNs, Cwd: wirePath(string(r.Cwd)), Src: r.Src, AST: r.AST, Status: r.Status, OK: r.OK,
			Opaque: r.Opaque, Effects: []proto.Effect{}, Outputs: make([]proto.JournalOutput, len(r.Outputs)), Meta: r.Meta}
		if len(r.Effects) > 0 {
			if err := json.Unmarshal(r.Effects, &e.Effects); err != nil {
				s.log.Warn("kernel: journal row effects", "id", r.ID, "error", err)
			}
		}
		for k, o := range r.Outputs {
			e.Outputs[k] = proto.JournalOutput{Kind: o.Kind, Hash: o.Hash, Len: o.Len}
		}
		out[i] = e
	}
	return out, nil
}
