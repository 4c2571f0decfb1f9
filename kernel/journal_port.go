package kernel

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/leash"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// journalPort serves the evaluator's journal-backed heads. `journal [N]` lists the newest N
// (default 100) exec rows the session's principal may read, and `history [N]` this session's
// own, both oldest first as a table {id, ts, principal, src, ok, status, effects}. `plan SRC`
// and `explain SRC` derive SRC's effects and the policy's verdict (plan stores a plan, like
// exec mode plan); `apply PLAN` runs a stored plan of this principal and session through the
// approved path; undo reverses recorded file changes (see undo.go).
func (ss *session) journalPort(ctx context.Context, head string, args []string) (value.Value, error) {
	s := ss.srv
	switch head {
	case "undo":
		return ss.undoPort(ctx, args)
	case "apply":
		return ss.applyPort(ctx, args)
	case "plan", "explain":
		return ss.planPort(head, args)
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

var planKeys = []string{"id", "effects", "reversible", "spawns", "verdict", "fingerprint", "approval_pending"}

// planPort derives the effects of the source given as arguments (joined by spaces) against
// the session's bindings, cwd and environment, and judges them under the session's policy.
// plan stores the plan (id is its plan_ref, usable by `apply` and plan.apply); explain stores
// nothing (id null).
func (ss *session) planPort(head string, args []string) (value.Value, error) {
	s := ss.srv
	src := strings.Join(args, " ")
	if strings.TrimSpace(src) == "" {
		return nil, diag.New(diag.ArgError, "%s: expected a source string", head)
	}
	prog, err := ss.ev.Parse(src, false)
	if err != nil {
		if d := diag.As(err); d != nil {
			return nil, d
		}
		return nil, diag.New(diag.ParseError, "%s: %v", head, err)
	}
	ast := s.marshalAST(prog)
	d := ss.derive(prog, ss.ev.Cwd(), ss.ev.Environ())
	var id, verdict value.Value = value.Null{}, value.Null{}
	pending := false
	if s.lp != nil {
		v := s.lp.verdict(ss.key.principal, d.effects)
		verdict, pending = value.Str(string(v)), v == leash.ApprovalRequired
		if head == "plan" {
			id = value.Str(s.storePlan(owner{principal: ss.key.principal, session: ss.key.name}, src, ast, d, v, false).ref)
		}
	} else if head == "plan" {
		return nil, diag.New(diag.Permission, "plan: plans need the kernel's Leash policy")
	}
	effs, err := value.FromJSON(d.effectsJSON)
	if err != nil {
		effs = &value.List{Items: []value.Value{}}
	}
	spawns := []value.Value{}
	for _, e := range d.effects {
		if e.Kind == leash.KindProcSpawn && e.Argv0 != "" {
			spawns = append(spawns, value.Str(e.Argv0))
		}
	}
	return value.NewRecord(planKeys, []value.Value{id, effs, value.Bool(leash.Reversibility(d.effects) == leash.Reversible),
		&value.List{Items: spawns}, verdict, value.Str(fingerprint(ast, d.effectsJSON)), value.Bool(pending)}), nil
}

// applyPort runs `apply PLAN_REF`: a live, non-pty plan of this principal and session, approved
// or allowed now (like plan.apply), re-derived and checked against the plan's fingerprint by
// execOnce. It runs inline on this session's worker (the apply is already running there) as
// its own journaled exec, and its value (or raised error) is apply's.
func (ss *session) applyPort(ctx context.Context, args []string) (value.Value, error) {
	s := ss.srv
	if len(args) != 1 {
		return nil, diag.New(diag.ArgError, "apply: expected one plan id")
	}
	ref := args[0]
	if s.lp == nil {
		return nil, diag.New(diag.NotFound, "apply: unknown plan id %s", ref)
	}
	pl, ok := s.plans.get(ref, s.nowNs())
	if !ok {
		return nil, diag.New(diag.NotFound, "apply: unknown plan id %s", ref)
	}
	if pl.own != (owner{principal: ss.key.principal, session: ss.key.name}) {
		return nil, diag.New(diag.Permission, "apply: plan %s belongs to another principal or session", ref)
	}
	if pl.pty {
		return nil, diag.New(diag.ArgError, "apply: a pty plan is applied by retrying pty.open with its plan_ref")
	}
	claimed := s.plans.claim(pl)
	if !claimed && s.lp.verdict(pl.own.principal, pl.d.effects) != leash.Allow {
		return nil, diag.New(diag.Permission, "apply: plan %s is waiting for approval", ref).
			WithHint("an approver grants it with cap.request")
	}
	cs := connOf(ctx)
	a := &attachment{sess: ss, id: ss.identity()}
	if cs != nil {
		if ca := cs.attachment(); ca != nil && ca.sess == ss {
			a = ca
		}
	} else {
		cs = &connState{it: map[*session]int{}}
	}
	rep, rerr := s.execOnce(ctx, cs, a, pl.src, eval.Stmt, budgetFor(nil), pl)
	if rerr != nil {
		if claimed && (rerr.Code == proto.CodeApprovalRequired || rerr.Code == proto.CodeParseError) {
			s.plans.release(pl) // refused before running: the approval still stands
		}
		if rerr.Code == proto.CodeRaised {
			if v, ok := ss.out(refN(raisedRef(rerr))); ok {
				if ev, ok := v.(*value.ErrorVal); ok && ev.Err != nil {
					return nil, ev.Err
				}
			}
		}
		if rerr.Code == proto.CodeApprovalRequired {
			return nil, diag.New(diag.Permission, "apply: %s", rerr.Message).WithHint("plan it again")
		}
		return nil, diag.New(diag.Custom, "apply: %s", rerr.Message)
	}
	if rep == nil || rep.res == nil {
		return value.Null{}, nil
	}
	v, ok := ss.out(refN(rep.res.Ref))
	if !ok {
		return value.Null{}, nil
	}
	return v, nil
}

// refN is N of "out:N" (0 when malformed).
func refN(ref string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(ref, "out:"))
	return n
}

// identity is the principal a session runs as (sessions are keyed by it).
func (ss *session) identity() Identity {
	return Identity{Principal: ss.key.principal, Local: ss.key.principal == localIdentity(ss.srv.euid).Principal}
}
