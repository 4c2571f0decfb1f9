package leash

import (
	"path"
	"slices"
	"strings"
)

// EffectVerdict judges one effect for the named principal; an unknown
// principal is denied everything.
func (p *Policy) EffectVerdict(principal string, e Effect) Verdict {
	pr, ok := p.Principal(principal)
	if !ok {
		return Deny
	}
	return pr.EffectVerdict(e)
}

// PlanVerdict judges a whole plan for the named principal.
func (p *Policy) PlanVerdict(principal string, effects []Effect) Verdict {
	pr, ok := p.Principal(principal)
	if !ok {
		return Deny
	}
	return pr.PlanVerdict(effects)
}

// EffectVerdict judges one effect. Effects outside the grants are denied;
// only an opaque effect under opaque = "ask" needs an approval. Lists are
// checked with "every item granted" semantics, so an effect naming no
// path or name is allowed by any grant list, including an empty one.
func (pr *Principal) EffectVerdict(e Effect) Verdict {
	k, ok := ParseKind(string(e.Kind))
	if !ok {
		return Deny
	}
	var granted bool
	switch k {
	case KindFsRead:
		granted = allPathsMatch(pr.fsRead, e.Paths)
	case KindFsWrite:
		granted = allPathsMatch(pr.fsWrite, e.Paths)
	case KindFsDelete:
		granted = allPathsMatch(pr.fsDelete, e.Paths)
	case KindProcSpawn:
		granted = pr.SpawnAllowed(e.BinHash, e.Argv0)
	case KindNetConnect:
		granted = pr.connectAllowed(e.Host, e.Port)
	case KindNetListen:
		granted = pr.NetListenAny || slices.Contains(pr.NetListen, e.Port)
	case KindEnvRead:
		granted = allNamesListed(pr.EnvRead, e.Names)
	case KindEnvWrite:
		granted = allNamesListed(pr.EnvWrite, e.Names)
	case KindSecretUse:
		granted = allNamesListed(pr.SecretUse, e.Names)
	case KindSessionWrite:
		granted = pr.SessionWrite
	case KindJournalRead:
		granted = pr.JournalRead
	case KindTime:
		granted = pr.Time
	case KindOpaque:
		return pr.Opaque.Verdict()
	}
	if granted {
		return Allow
	}
	return Deny
}

// PlanVerdict: any denied effect denies the plan; otherwise any effect
// needing approval makes the plan need it; otherwise auto_apply decides
// (never: approval; in-grant: allow; reversible: allow iff [Reversibility]
// says so). A plan with no effects has nothing to apply and is allowed.
func (pr *Principal) PlanVerdict(effects []Effect) Verdict {
	approval := false
	for _, e := range effects {
		switch pr.EffectVerdict(e) {
		case Deny:
			return Deny
		case ApprovalRequired:
			approval = true
		}
	}
	if approval {
		return ApprovalRequired
	}
	if len(effects) == 0 {
		return Allow
	}
	switch pr.AutoApply {
	case AutoInGrant:
		return Allow
	case AutoReversible:
		if Reversibility(effects) == Reversible {
			return Allow
		}
	}
	return ApprovalRequired
}

// PinningActive reports whether spawns are pinned: an empty proc_spawn
// list turns pinning off rather than denying every spawn.
func (pr *Principal) PinningActive() bool { return len(pr.ProcSpawn) > 0 }

// SpawnAllowed is the spawn gate: with pinning off every spawn passes;
// otherwise a grant must equal the binary's BLAKE3 hash (hex, any case),
// the full argv0, or argv0's basename.
func (pr *Principal) SpawnAllowed(binHash, argv0 string) bool {
	if !pr.PinningActive() {
		return true
	}
	base := path.Base(argv0)
	for _, g := range pr.ProcSpawn {
		switch {
		case binHash != "" && strings.EqualFold(g, binHash):
			return true
		case argv0 != "" && (g == argv0 || g == base):
			return true
		}
	}
	return false
}

func (pr *Principal) connectAllowed(host string, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, g := range pr.netConnect {
		if (g.AnyPort || g.Port == port) && g.Host.Match(host) {
			return true
		}
	}
	return false
}

func allPathsMatch(globs []Glob, paths []string) bool {
	for _, p := range paths {
		if !slices.ContainsFunc(globs, func(g Glob) bool { return g.Match(p) }) {
			return false
		}
	}
	return true
}

func allNamesListed(list, names []string) bool {
	if slices.Contains(list, "*") {
		return true
	}
	for _, n := range names {
		if !slices.Contains(list, n) {
			return false
		}
	}
	return true
}

// CanApprove is the approver rule: the kernel's local principal may
// approve any plan; another principal may approve a plan owned by owner
// only if one of its approve globs matches owner (so self-approval needs
// an explicit grant).
func (p *Policy) CanApprove(approver, owner, local string) bool {
	if approver == local {
		return true
	}
	pr, ok := p.Principal(approver)
	if !ok {
		return false
	}
	return slices.ContainsFunc(pr.approve, func(g Glob) bool { return g.Match(owner) })
}

// JournalRead reports whether principal may query the journal at all.
func (p *Policy) JournalRead(principal string) bool {
	return p.EffectVerdict(principal, Effect{Kind: KindJournalRead}) == Allow
}

// JournalReadAll reports whether principal sees every principal's journal
// rows; the local principal always does.
func (p *Policy) JournalReadAll(principal, local string) bool {
	if principal == local {
		return true
	}
	pr, ok := p.Principal(principal)
	return ok && pr.JournalReadAll
}

// JournalRowVisible reports whether viewer may see a journal row written
// by rowPrincipal: it needs journal_read, and sees only its own rows
// unless it is local or has journal_read_all.
func (p *Policy) JournalRowVisible(viewer, rowPrincipal, local string) bool {
	if !p.JournalRead(viewer) {
		return false
	}
	return viewer == rowPrincipal || p.JournalReadAll(viewer, local)
}

// OpaqueVerdict is the verdict an opaque effect gets for principal
// (session.attach's caps.opaque); unknown principals get deny.
func (p *Policy) OpaqueVerdict(principal string) Verdict {
	return p.EffectVerdict(principal, Effect{Kind: KindOpaque})
}

// Uncovered returns the kinds of effects that the requested kinds do not
// cover, in plan order without duplicates; cap.request uses it to decide
// whether an approval scope covers a plan. Requested kinds may be dotted.
func Uncovered(plan []Effect, requested []string) []Kind {
	have := map[Kind]bool{}
	for _, r := range requested {
		if k, ok := ParseKind(r); ok {
			have[k] = true
		}
	}
	var out []Kind
	for _, e := range plan {
		k, ok := ParseKind(string(e.Kind))
		if !ok {
			k = e.Kind
		}
		if !have[k] && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
