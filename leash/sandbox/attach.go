package sandbox

import "github.com/shoal-sh/shoal/leash"

// AttachCaps is the policy and enforcement part of session.attach's caps
// object; the kernel adds profile and token_caps.
type AttachCaps struct {
	Enforced        bool        `json:"enforced"`
	Tier            string      `json:"tier"`
	AvailableTier   string      `json:"available_tier"`
	PolicyPrincipal string      `json:"policy_principal"`
	Opaque          string      `json:"opaque"`
	Enforcement     Enforcement `json:"enforcement"`
	// Status is the full report for explain and journal metadata.
	Status Status `json:"-"`
}

// SpecFor lowers principal's grants on this host. A principal the policy
// does not name gets the zero Spec and false; every verdict denies it.
func SpecFor(pol *leash.Policy, principal, home string) (leash.Spec, bool) {
	pr, ok := pol.Principal(principal)
	if !ok {
		return leash.Spec{}, false
	}
	return Lower(pr, home), true
}

// AttachCaps summarises what principal may do and how much of it this
// host enforces. tier and available_tier are both the host tier; enforced
// is [Sandbox.CapsEnforced]; opaque is the verdict an opaque effect gets.
func (s *Sandbox) AttachCaps(pol *leash.Policy, principal, home string) AttachCaps {
	spec, known := SpecFor(pol, principal, home)
	st := s.Status(spec)
	c := AttachCaps{
		Enforced:      s.CapsEnforced(spec),
		Tier:          s.AvailableTier(),
		AvailableTier: s.AvailableTier(),
		Opaque:        string(pol.OpaqueVerdict(principal)),
		Enforcement:   st.Enforcement(),
		Status:        st,
	}
	if known {
		c.PolicyPrincipal = principal
	}
	return c
}
