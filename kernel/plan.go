package kernel

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
	"github.com/shoal-sh/shoal/leash"
)

// planTTL is how long a stored plan can be read, approved and applied.
const planTTL = time.Hour

// plan is a stored plan (AGENT-SURFACE §5.1). Everything but the approval is immutable.
type plan struct {
	ref         string
	fingerprint string // hex BLAKE3(ast_json ‖ 0 ‖ effects_json): content identity, not authority
	src         string
	ast         json.RawMessage // nil for a pty.open plan
	own         owner
	d           derived
	createdNs   int64
	expiresNs   int64
	pty         bool // a pty.open: src is the command line, retried through pty.open

	// Guarded by planStore.mu.
	approved bool
	approval *approval
}

// approval records who approved a plan, when, and for which effect kinds.
type approval struct {
	by      string
	atNs    int64
	effects []string
}

// planStore holds the kernel's plans under random refs; nothing is ever overwritten.
type planStore struct {
	mu    sync.Mutex
	plans map[string]*plan
}

func newPlanStore() *planStore { return &planStore{plans: map[string]*plan{}} }

// newPlanRef is "plan:" and 128 CSPRNG bits in hex.
func newPlanRef() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead)
	return "plan:" + hex.EncodeToString(b[:])
}

// maxPlans bounds the live plans of one principal; past it the oldest are dropped, so a
// client cannot grow the kernel's memory by planning in a loop.
const maxPlans = 1024

// add stores p, first dropping expired plans and, past maxPlans, the owner's oldest.
func (ps *planStore) add(p *plan) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var mine []*plan
	for ref, o := range ps.plans {
		switch {
		case o.expiresNs <= p.createdNs:
			delete(ps.plans, ref)
		case o.own.principal == p.own.principal:
			mine = append(mine, o)
		}
	}
	if extra := len(mine) + 1 - maxPlans; extra > 0 {
		slices.SortFunc(mine, byCreation)
		for _, o := range mine[:extra] {
			delete(ps.plans, o.ref)
		}
	}
	ps.plans[p.ref] = p
}

// get returns a live plan by ref.
func (ps *planStore) get(ref string, now int64) (*plan, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.plans[ref]
	if !ok || p.expiresNs <= now {
		delete(ps.plans, ref)
		return nil, false
	}
	return p, true
}

// state reads a plan's approval flag.
func (ps *planStore) state(p *plan) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return p.approved
}

// claim takes p's approval for one apply; release gives it back when the apply did not run.
func (ps *planStore) claim(p *plan) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ok := p.approved
	p.approved = false
	return ok
}

func (ps *planStore) release(p *plan) {
	ps.mu.Lock()
	p.approved = true
	ps.mu.Unlock()
}

// claimPTY consumes the approval of a pty plan the caller retries pty.open with: same owner,
// same command line, same effects (the binary's hash included).
func (ps *planStore) claimPTY(ref string, own owner, src string, effs []leash.Effect, now int64) bool {
	p, ok := ps.get(ref, now)
	if !ok || !p.pty || p.own != own || p.src != src || fingerprint(nil, newDerived(effs).effectsJSON) != p.fingerprint {
		return false
	}
	return ps.claim(p)
}

// list returns owner's live plans by creation time.
func (ps *planStore) list(own owner, now int64) []*plan {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []*plan
	for _, p := range ps.plans {
		if p.own == own && p.expiresNs > now {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, byCreation)
	return out
}

func byCreation(a, b *plan) int {
	if c := cmp.Compare(a.createdNs, b.createdNs); c != 0 {
		return c
	}
	return strings.Compare(a.ref, b.ref)
}

func (s *Server) nowNs() int64 { return s.opts.now().UnixNano() }

// storePlan stores a new plan, approved iff its verdict at creation is allow, and announces
// it on the approval channel when it waits for an approval.
func (s *Server) storePlan(own owner, src string, ast json.RawMessage, d derived, v leash.Verdict, pty bool) *plan {
	now := s.nowNs()
	p := &plan{ref: newPlanRef(), fingerprint: fingerprint(ast, d.effectsJSON), src: src, ast: ast, own: own,
		d: d, createdNs: now, expiresNs: now + planTTL.Nanoseconds(), pty: pty, approved: v == leash.Allow}
	s.plans.add(p)
	if v == leash.ApprovalRequired {
		s.publishApproval(p, "", "")
	}
	return p
}

// newDerived wraps effects built by the kernel itself (pty.open) like derived ones.
func newDerived(effs []leash.Effect) derived {
	b, err := json.Marshal(effs)
	if err != nil {
		panic("kernel: effects do not encode: " + err.Error()) // plain data: a broken invariant
	}
	d := derived{effects: effs, effectsJSON: b}
	for _, e := range effs {
		d.opaque = d.opaque || e.Kind == leash.KindOpaque
	}
	return d
}

// publishApproval announces a pending plan, or a decision when decision is set, to the
// plan's owner and its approvers.
func (s *Server) publishApproval(p *plan, decision, by string) {
	m := map[string]any{"plan_ref": p.ref, "effects": p.d.effectsJSON,
		"principal": p.own.principal, "expires": p.expiresNs}
	if decision != "" {
		m["decision"], m["by"] = decision, by
	}
	raw, _ := json.Marshal(m) // plain data
	v, err := value.FromJSON(raw)
	if err != nil {
		s.log.Error("kernel: approval payload", "plan", p.ref, "error", err)
		return
	}
	s.bus.publish(s.ctx, proto.ChannelApproval, p.own, EncodeWire(v), 0)
}

// gateExec judges a program's derived effects before anything runs: deny is LEASH_DENIED
// with the effects; approval stores a plan and is APPROVAL_REQUIRED with its ref [D34]. With
// an approved plan (plan.apply) the effects must be the ones approved, else
// APPROVAL_REQUIRED {reason: effects_changed}. A kernel with an injected non-Leash policy
// gates nothing.
func (s *Server) gateExec(a *attachment, src string, ast json.RawMessage, d derived, approved *plan) *jsonrpc.Error {
	if s.lp == nil {
		return nil
	}
	if approved != nil {
		if fingerprint(ast, d.effectsJSON) != approved.fingerprint {
			return jsonrpc.NewError(proto.CodeApprovalRequired, "effects changed since the plan was approved",
				map[string]any{"reason": "effects_changed", "plan_ref": approved.ref, "effects": d.wire()})
		}
		return nil
	}
	switch v := s.lp.verdict(a.id.Principal, d.effects); v {
	case leash.Allow:
		return nil
	case leash.Deny:
		return jsonrpc.NewError(proto.CodeLeashDenied, "policy denies this program's effects",
			map[string]any{"effects": d.wire()})
	default:
		p := s.storePlan(owner{principal: a.id.Principal, session: a.sess.key.name}, src, ast, d, v, false)
		return jsonrpc.NewError(proto.CodeApprovalRequired, "this program needs approval",
			map[string]any{"effects": d.wire(), "plan_ref": p.ref})
	}
}

// planNow derives and judges src in plan mode (always synchronous [D12]) and stores the plan.
func (s *Server) planNow(ctx context.Context, a *attachment, src string) (*proto.ExecPlanResult, error) {
	if s.lp == nil {
		return nil, jsonrpc.NewError(proto.CodeLeashDenied, "plans need the kernel's Leash policy", nil)
	}
	var (
		res  *proto.ExecPlanResult
		rerr error
		done = make(chan struct{})
	)
	// On the session worker, so the plan sees the bindings and cwd of every exec before it.
	a.sess.submit(&job{ctx: ctx, run: func(ctx context.Context) {
		defer close(done)
		prog, err := a.sess.ev.Parse(src, false)
		if err != nil {
			rerr = parseError(err)
			return
		}
		ast := s.marshalAST(prog)
		cwd, env := a.sess.ev.Cwd(), a.sess.ev.Environ()
		d := a.sess.derive(prog, cwd, env)
		v := s.lp.verdict(a.id.Principal, d.effects)
		p := s.storePlan(owner{principal: a.id.Principal, session: a.sess.key.name}, src, ast, d, v, false)
		res = &proto.ExecPlanResult{PlanRef: p.ref, Fingerprint: p.fingerprint, Effects: d.wire(),
			Reversibility: leash.Reversibility(d.effects), Verdict: string(v), ApprovalPending: v == leash.ApprovalRequired,
			ExpiresNs: p.expiresNs}
	}})
	<-done
	if rerr == nil && res == nil { // derivation panicked; the worker logged it
		rerr = jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: planning panicked")
	}
	return res, rerr
}

func unknownPlan(ref string) error {
	return jsonrpc.NewError(proto.CodeUnknownPlan, "unknown plan", map[string]string{"plan_ref": ref})
}

// ownPlan finds a live plan of the caller's (principal, session).
func (s *Server) ownPlan(a *attachment, ref string) (*plan, error) {
	if s.lp == nil {
		return nil, unknownPlan(ref)
	}
	p, ok := s.plans.get(ref, s.nowNs())
	if !ok {
		return nil, unknownPlan(ref)
	}
	if p.own != (owner{principal: a.id.Principal, session: a.sess.key.name}) {
		return nil, jsonrpc.NewError(proto.CodeLeashDenied, "plan belongs to another principal/session", map[string]string{"plan_ref": ref})
	}
	return p, nil
}

// status is a plan's verdict re-evaluated now, and whether it waits for an approval.
func (s *Server) planStatus(p *plan) (v leash.Verdict, approved, pending bool) {
	v = s.lp.verdict(p.own.principal, p.d.effects)
	approved = s.plans.state(p)
	return v, approved, v == leash.ApprovalRequired && !approved
}
