package kernel

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/leash"
)

// The plan methods (AGENT-SURFACE §2.5.8). Plans are created by exec in plan mode, by a run
// that needs approval and by pty.open; they are scoped to their (principal, session), except
// that an approver reaches any plan through cap.request.

func (s *Server) handlePlanGet(ctx context.Context, cs *connState, a *attachment, p proto.PlanGetParams) (*proto.PlanGetResult, error) {
	pl, err := s.ownPlan(a, p.PlanRef)
	if err != nil {
		return nil, err
	}
	v, approved, pending := s.planStatus(pl)
	ast := pl.ast
	if ast == nil {
		ast = json.RawMessage("null")
	}
	return &proto.PlanGetResult{ASTVersion: proto.ASTVersion, AST: ast, PlanRef: pl.ref, Fingerprint: pl.fingerprint,
		Effects: pl.d.wire(), Reversibility: leash.Reversibility(pl.d.effects), Verdict: string(v),
		ApprovalPending: pending, Approved: approved, ExpiresNs: pl.expiresNs, Src: pl.src}, nil
}

func (s *Server) handlePlanList(ctx context.Context, cs *connState, a *attachment, _ proto.PlanListParams) (proto.PlanListResult, error) {
	out := proto.PlanListResult{}
	if s.lp == nil {
		return out, nil
	}
	for _, pl := range s.plans.list(owner{principal: a.id.Principal, session: a.sess.key.name}, s.nowNs()) {
		v, approved, pending := s.planStatus(pl)
		out = append(out, proto.PlanSummary{PlanRef: pl.ref, Effects: pl.d.wire(),
			Reversibility: leash.Reversibility(pl.d.effects), Verdict: string(v), ApprovalPending: pending,
			Approved: approved, ExpiresNs: pl.expiresNs})
	}
	return out, nil
}

// handlePlanApply runs the caller's plan if it is approved or allowed now; a successful run
// consumes the approval [D31].
func (s *Server) handlePlanApply(ctx context.Context, cs *connState, a *attachment, p proto.PlanApplyParams) (*proto.ExecResult, error) {
	if p.PlanRef == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing plan_ref")
	}
	pl, err := s.ownPlan(a, p.PlanRef)
	if err != nil {
		return nil, err
	}
	return s.applyPlan(ctx, cs, a, pl, proto.CodeApprovalRequired)
}

// applyPlan runs pl's src in statement position without the verdict gate, provided pl is
// approved or its effects are allowed now (else an error with notReady's code: plan.apply
// says APPROVAL_REQUIRED, exec mode approved LEASH_DENIED). The effects are re-derived and
// must match the plan's; the approval is given back when nothing ran.
func (s *Server) applyPlan(ctx context.Context, cs *connState, a *attachment, pl *plan, notReady int) (*proto.ExecResult, error) {
	if pl.pty {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: a pty plan is applied by retrying pty.open with its plan_ref",
			map[string]string{"plan_ref": pl.ref})
	}
	claimed := s.plans.claim(pl)
	if !claimed && s.lp.verdict(pl.own.principal, pl.d.effects) != leash.Allow {
		return nil, jsonrpc.NewError(notReady, "plan approval pending", map[string]string{"plan_ref": pl.ref})
	}
	var (
		rep  *execReply
		rerr *jsonrpc.Error
		done = make(chan struct{})
	)
	a.sess.submit(&job{ctx: ctx, run: func(ctx context.Context) {
		defer close(done)
		rep, rerr = s.execOnce(ctx, cs, a, pl.src, eval.Stmt, budgetFor(nil), pl)
	}})
	<-done
	if rerr != nil {
		if claimed && (rerr.Code == proto.CodeApprovalRequired || rerr.Code == proto.CodeParseError) {
			s.plans.release(pl) // refused before running: the approval still stands
		}
		return nil, rerr
	}
	if rep == nil { // the evaluation panicked; the worker logged it
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: evaluation panicked")
	}
	return rep.res, nil
}

// handleCapRequest approves a plan for its owner (AGENT-SURFACE §2.5.8, §5.2): the caller must
// be an approver of the owner, the owner's policy must not deny the plan, and a non-empty
// scope must cover every effect kind of the plan.
func (s *Server) handleCapRequest(ctx context.Context, cs *connState, a *attachment, p proto.CapRequestParams) (*proto.CapRequestResult, error) {
	if p.PlanRef == nil || *p.PlanRef == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing plan_ref")
	}
	ref := *p.PlanRef
	if s.lp == nil {
		return nil, unknownPlan(ref)
	}
	pl, ok := s.plans.get(ref, s.nowNs())
	if !ok {
		return nil, unknownPlan(ref)
	}
	if !s.lp.canApprove(a.id.Principal, pl.own.principal) {
		return nil, jsonrpc.NewError(proto.CodeLeashDenied, a.id.Principal+" may not approve plans of "+pl.own.principal,
			map[string]string{"plan_ref": ref})
	}
	if s.lp.verdict(pl.own.principal, pl.d.effects) == leash.Deny {
		return nil, jsonrpc.NewError(proto.CodeLeashDenied, "policy denies requested effects", map[string]string{"plan_ref": ref})
	}
	kinds, err := requestedKinds(p.Effects)
	if err != nil {
		return nil, err
	}
	// The scope must cover the effect kinds that made the plan need approval: for
	// `sh { echo hi }` under opaque="ask" that is opaque alone, while its proc_spawn is
	// already allowed (scenario 10). When no single effect needs approval (auto_apply =
	// "never"), every kind of the plan must be covered.
	if len(kinds) > 0 {
		if unc := leash.Uncovered(s.lp.needingApproval(pl.own.principal, pl.d.effects), kinds); len(unc) > 0 {
			names := make([]string, len(unc))
			for i, k := range unc {
				names[i] = string(k)
			}
			return &proto.CapRequestResult{Grant: "approval_pending", PlanRef: ref,
				Why: "requested effect scope does not cover the plan", UncoveredEffects: names}, nil
		}
	}
	s.plans.mu.Lock()
	pl.approved = true
	pl.approval = &approval{by: a.id.Principal, atNs: s.nowNs(), effects: kinds}
	s.plans.mu.Unlock()
	s.log.Info("kernel: plan approved", "plan", ref, "owner", pl.own.principal, "by", a.id.Principal)
	s.publishApproval(pl, "approved", a.id.Principal)
	enforced := s.lp.sb.CapsEnforced(s.lp.spec(pl.own.principal))
	granted := p.Effects
	if granted == nil {
		granted = []json.RawMessage{}
	}
	return &proto.CapRequestResult{Grant: "approved", PlanRef: ref, Enforced: &enforced, GrantedEffects: granted}, nil
}

// requestedKinds reads cap.request's effects: strings or {kind} objects, "." ≡ "_".
func requestedKinds(items []json.RawMessage) ([]string, error) {
	var kinds []string
	for _, raw := range items {
		var k string
		if err := json.Unmarshal(raw, &k); err != nil {
			var o struct {
				Kind string `json:"kind"`
			}
			if err := json.Unmarshal(raw, &o); err != nil || o.Kind == "" {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: effects items are kind strings or {kind} objects", nil)
			}
			k = o.Kind
		}
		kind, ok := leash.ParseKind(strings.TrimSpace(k))
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown effect kind", map[string]string{"kind": k})
		}
		kinds = append(kinds, string(kind))
	}
	return kinds, nil
}
