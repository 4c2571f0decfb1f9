package leash

import "sort"

// Verdict is the outcome of judging an effect or a plan.
type Verdict string

// The verdicts.
const (
	Allow            Verdict = "allow"
	Deny             Verdict = "deny"
	ApprovalRequired Verdict = "approval_required"
)

// AutoApply says which plans run without an approval once no effect is
// denied and none needs approval.
type AutoApply string

// The auto_apply modes.
const (
	AutoNever      AutoApply = "never"
	AutoInGrant    AutoApply = "in-grant"
	AutoReversible AutoApply = "reversible"
)

// OpaqueMode is the policy for effects Shoal cannot see through (an
// external program, a shell block).
type OpaqueMode string

// The opaque modes.
const (
	OpaqueDeny  OpaqueMode = "deny"
	OpaqueAsk   OpaqueMode = "ask"
	OpaqueAllow OpaqueMode = "allow"
)

// Verdict returns the verdict an opaque effect gets under this mode; it
// is what session.attach reports as caps.opaque.
func (m OpaqueMode) Verdict() Verdict {
	switch m {
	case OpaqueAllow:
		return Allow
	case OpaqueAsk:
		return ApprovalRequired
	}
	return Deny
}

// Quotas bound what one principal may hold at once across the kernel.
// Exceeding one is a RESOURCE_LIMIT error, never a silent refusal.
type Quotas struct {
	Sessions      int `json:"sessions"`
	Tasks         int `json:"tasks"` // live (non-terminal) tasks
	PTYs          int `json:"ptys"`
	Subscriptions int `json:"subscriptions"`
}

// DefaultQuotas applies to every principal unless its policy says otherwise.
var DefaultQuotas = Quotas{Sessions: 16, Tasks: 64, PTYs: 16, Subscriptions: 64}

// NetGrant is one net_connect grant "HOSTGLOB:PORT".
type NetGrant struct {
	Host    Glob
	Port    int  // 1..65535 unless AnyPort
	AnyPort bool // the port part was "*"
}

// Principal is the policy of one principal. The string lists keep the
// policy's spelling (with "~" already expanded); the compiled globs beside
// them are what verdicts use.
type Principal struct {
	Name string

	FsRead, FsWrite, FsDelete []string
	NetConnect                []string
	NetListen                 []int
	NetListenAny              bool // net_listen contained "*"
	ProcSpawn                 []string
	EnvRead, EnvWrite         []string
	SecretUse                 []string
	Approve                   []string

	SessionWrite   bool
	JournalRead    bool
	JournalReadAll bool
	Time           bool
	Hermetic       bool
	AutoApply      AutoApply
	Opaque         OpaqueMode
	Quotas         Quotas

	fsRead, fsWrite, fsDelete []Glob
	netConnect                []NetGrant
	approve                   []Glob
}

// compile builds the glob forms of p's lists. Invalid globs are kept as
// never-matching; the parser has already reported them.
func (p *Principal) compile() {
	p.fsRead = compileAll(p.FsRead)
	p.fsWrite = compileAll(p.FsWrite)
	p.fsDelete = compileAll(p.FsDelete)
	p.approve = compileAll(p.Approve)
	p.netConnect = p.netConnect[:0]
	for _, s := range p.NetConnect {
		if g, err := parseNetGrant(s); err == nil {
			p.netConnect = append(p.netConnect, g)
		}
	}
}

func compileAll(ss []string) []Glob {
	gs := make([]Glob, len(ss))
	for i, s := range ss {
		gs[i], _ = CompileGlob(s)
	}
	return gs
}

// Policy maps principal names to their policies. It is immutable after
// [Parse] or [Permissive] and safe for concurrent use.
type Policy struct {
	principals map[string]*Principal
	// Permissive is true for the built-in policy used without --policy.
	Permissive bool
}

// Principal returns the named principal's policy. Unknown principals get
// no policy, and every verdict for them is deny. A nil *Policy knows no
// principal.
func (p *Policy) Principal(name string) (*Principal, bool) {
	if p == nil {
		return nil, false
	}
	pr, ok := p.principals[name]
	return pr, ok
}

// Names returns the principal names, sorted.
func (p *Policy) Names() []string {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.principals))
	for n := range p.principals {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Quotas returns the principal's quotas, or the defaults for a principal
// the policy does not name (it is denied everything anyway).
func (p *Policy) Quotas(principal string) Quotas {
	if pr, ok := p.Principal(principal); ok {
		return pr.Quotas
	}
	return DefaultQuotas
}

// Permissive returns the built-in policy used when the kernel has no
// policy file: only the local principal is known, and it may do every
// effect kind. fs grants are "/**" (so no filesystem sandbox applies),
// opaque is allow, auto_apply in-grant, and there is no spawn pinning.
// Unlike the original, network, listen and secret effects are allowed
// too, so the local human is never denied by its own default.
func Permissive(local string) *Policy {
	pr := &Principal{
		Name:           local,
		FsRead:         []string{"/**"},
		FsWrite:        []string{"/**"},
		FsDelete:       []string{"/**"},
		NetConnect:     []string{"*:*"},
		NetListenAny:   true,
		EnvRead:        []string{"*"},
		EnvWrite:       []string{"*"},
		SecretUse:      []string{"*"},
		SessionWrite:   true,
		JournalRead:    true,
		JournalReadAll: true,
		Time:           true,
		AutoApply:      AutoInGrant,
		Opaque:         OpaqueAllow,
		Quotas:         DefaultQuotas,
	}
	pr.compile()
	return &Policy{principals: map[string]*Principal{local: pr}, Permissive: true}
}
