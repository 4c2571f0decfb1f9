package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/leash"
	"github.com/shoal-sh/shoal/leash/sandbox"
)

// leashPolicy is the kernel's own [Policy]: a Leash policy (the --policy file, or the built-in
// permissive one for the local principal) judged against effects, plus the host's sandbox
// that confines every child of a principal whose grants lower to a concrete [leash.Spec].
// Besides the Policy questions it answers exec gating, plan verdicts, approvals, quotas and
// the PTY gate.
type leashPolicy struct {
	srv   *Server
	pol   *leash.Policy
	sb    *sandbox.Sandbox
	local string // the kernel's own principal, uid:<euid>
	home  string // the kernel user's home; "~" in policy globs
}

// newLeashPolicy loads opts.PolicyFile (strict: any error is fatal and names its line) or,
// without one, the permissive policy for the local principal.
func newLeashPolicy(s *Server) (*leashPolicy, error) {
	lp := &leashPolicy{
		srv:   s,
		sb:    sandbox.New(s.opts.Sandbox),
		local: localIdentity(s.euid).Principal,
		home:  envValue(s.opts.Env, "HOME"),
	}
	if s.opts.PolicyFile == "" {
		lp.pol = leash.Permissive(lp.local)
		return lp, nil
	}
	src, err := os.ReadFile(s.opts.PolicyFile)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	pol, err := leash.Parse(src, &leash.ParseOptions{Home: lp.home})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.opts.PolicyFile, err)
	}
	lp.pol = pol
	return lp, nil
}

// envValue is the last NAME=value of name in env, or "".
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// Describe is the attach-time summary: host tier, the principal's opaque verdict and how much
// of its sandbox this host enforces.
func (lp *leashPolicy) Describe(id Identity) PolicyInfo {
	c := lp.sb.AttachCaps(lp.pol, id.Principal, lp.home)
	return PolicyInfo{Enforced: c.Enforced, Tier: c.Tier, Opaque: c.Opaque, PolicyPrincipal: c.PolicyPrincipal,
		Filesystem: c.Enforcement.Filesystem, Network: c.Enforcement.Network, SpawnExec: c.Enforcement.SpawnExec,
		Sandbox: wireStatus(c.Status)}
}

// Allows judges a payload-free effect of kind.
func (lp *leashPolicy) Allows(id Identity, kind string) bool {
	k, ok := leash.ParseKind(kind)
	return ok && lp.pol.EffectVerdict(id.Principal, leash.Effect{Kind: k}) == leash.Allow
}

// ReadAll reports whether id sees every principal's journal rows.
func (lp *leashPolicy) ReadAll(id Identity) bool {
	return lp.pol.JournalReadAll(id.Principal, lp.local)
}

// allowsEffect judges one effect with its payload.
func (lp *leashPolicy) allowsEffect(id Identity, e leash.Effect) bool {
	return lp.pol.EffectVerdict(id.Principal, e) == leash.Allow
}

// needingApproval returns the effects whose own verdict for principal is not allow, or all
// of them when each is allowed on its own (the plan then needs approval as a whole).
func (lp *leashPolicy) needingApproval(principal string, effs []leash.Effect) []leash.Effect {
	var out []leash.Effect
	for _, e := range effs {
		if lp.pol.EffectVerdict(principal, e) != leash.Allow {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return effs
	}
	return out
}

// verdict judges a whole plan for principal.
func (lp *leashPolicy) verdict(principal string, effs []leash.Effect) leash.Verdict {
	return lp.pol.PlanVerdict(principal, effs)
}

// canApprove is the approver rule.
func (lp *leashPolicy) canApprove(approver, owner string) bool {
	return lp.pol.CanApprove(approver, owner, lp.local)
}

// pinning reports whether principal's spawns are pinned (so effects carry binary hashes).
func (lp *leashPolicy) pinning(principal string) bool {
	pr, ok := lp.pol.Principal(principal)
	return ok && pr.PinningActive()
}

// spec is principal's sandbox, lowered against the host now (nonexistent roots are dropped,
// so a root created later counts from then on); an unknown principal gets the zero spec (it
// is denied every effect, so nothing of it runs).
func (lp *leashPolicy) spec(principal string) leash.Spec {
	sp, _ := sandbox.SpecFor(lp.pol, principal, lp.home)
	return sp
}

// startCmd starts an evaluator child of principal: unconfined when its spec restricts
// nothing, else through the sandbox's fast path (a confined, sacrificial thread forks the
// child; pinned "#!" scripts go through the re-exec helper). The kernel itself is never
// confined. Refusals become language errors, so the program sees a permission error.
func (lp *leashPolicy) startCmd(ctx context.Context, principal string, cmd *exec.Cmd) error {
	spec := lp.spec(principal)
	if !spec.Concrete() {
		return cmd.Start()
	}
	st, err := lp.sb.Start(cmd, spec)
	switch {
	case err == nil:
		recordSpawn(ctx, st)
		return nil
	case errors.Is(err, sandbox.ErrNotPinned):
		return diag.New(diag.Permission, "%s: not a pinned binary (proc_spawn)", cmd.Args[0])
	case errors.Is(err, sandbox.ErrNotEnforceable):
		return diag.New(diag.Permission, "%s: hermetic policy refuses the spawn: %v", cmd.Args[0], err)
	}
	return err
}

// GatePTY judges pty.open: the program is opaque to the kernel and its binary is a
// proc_spawn (hashed when pinning is on), so the verdict is the plan verdict of those two
// effects. Approval stores a plan the caller retries with; allow confines the child with the
// re-exec helper (term starts the command itself).
func (lp *leashPolicy) GatePTY(ctx context.Context, id Identity, sp PTYSpawn) (PTYVerdict, error) {
	spawn := leash.Effect{Kind: leash.KindProcSpawn, Argv0: sp.Path}
	if lp.pinning(id.Principal) {
		h, err := sandbox.HashFile(sp.Path)
		if err != nil {
			return PTYVerdict{}, fmt.Errorf("hash %s: %w", sp.Path, err)
		}
		spawn.BinHash = h
	}
	effs := []leash.Effect{spawn, {Kind: leash.KindOpaque}}
	src := strings.Join(sp.Argv, " ")
	switch lp.verdict(id.Principal, effs) {
	case leash.Deny:
		reason := "policy denies opening this pty (opaque program)"
		if !lp.allowsEffect(id, spawn) {
			reason = "proc_spawn denied: " + sp.Path + " is not a pinned binary"
		}
		return PTYVerdict{Verdict: verdictDeny, Reason: reason}, nil
	case leash.ApprovalRequired:
		own := owner{principal: id.Principal, session: sp.Session}
		if sp.PlanRef != "" && lp.srv.plans.claimPTY(sp.PlanRef, own, src, effs, lp.srv.nowNs()) {
			break
		}
		pl := lp.srv.storePlan(own, src, nil, newDerived(effs), leash.ApprovalRequired, true)
		return PTYVerdict{Verdict: verdictApproval, PlanRef: pl.ref, Reason: "opening this pty needs approval"}, nil
	}
	spec := lp.spec(id.Principal)
	if err := lp.sb.Check(spec); err != nil {
		return PTYVerdict{}, err
	}
	v := PTYVerdict{Verdict: verdictAllow}
	if spec.Concrete() {
		v.Wrap = func(cmd *exec.Cmd) error {
			_, err := lp.sb.Wrap(cmd, spec)
			return err
		}
	}
	return v, nil
}

// quotas are principal's resource limits under the kernel's policy.
func (s *Server) quotas(principal string) leash.Quotas {
	if s.lp == nil {
		return leash.DefaultQuotas
	}
	return s.lp.pol.Quotas(principal)
}

// startCmd is the evaluator's StartCmd port: every child of the session (externals, sh {}
// blocks, feed, run, tasks, nested scripts — they share the Host) starts confined by the
// principal's sandbox.
func (ss *session) startCmd(ctx context.Context, cmd *exec.Cmd) error {
	if lp := ss.srv.lp; lp != nil {
		return lp.startCmd(ctx, ss.key.principal, cmd)
	}
	return cmd.Start()
}

// allowsEnvRead is session.env's check: env_read of every name in the environment.
func (s *Server) allowsEnvRead(id Identity, names []string) bool {
	if s.lp == nil {
		return s.policy.Allows(id, "env_read")
	}
	return s.lp.allowsEffect(id, leash.Effect{Kind: leash.KindEnvRead, Names: names})
}

// sandboxStatus is explain's report of how principal's spawns are confined here; nil when the
// kernel runs an injected non-Leash policy.
func (s *Server) sandboxStatus(principal string) *proto.SandboxStatus {
	if s.lp == nil {
		return nil
	}
	return wireStatus(s.lp.sb.Status(s.lp.spec(principal)))
}

func wireStatus(st sandbox.Status) *proto.SandboxStatus {
	return &proto.SandboxStatus{AvailableTier: st.AvailableTier, ActiveTier: st.ActiveTier, Enforced: st.Enforced,
		FilesystemEnforced: st.FilesystemEnforced, NetworkEnforced: st.NetworkEnforced,
		SpawnExecEnforced: st.SpawnExecEnforced, LandlockABI: st.LandlockABI, Detail: st.Detail}
}

// approverOf is the approver rule for id, for approval event visibility.
func (s *Server) approverOf(id Identity) func(owner string) bool {
	if s.lp == nil {
		return nil
	}
	return func(owner string) bool { return s.lp.canApprove(id.Principal, owner) }
}
