package proto

import "encoding/json"

// Verdicts.
const (
	VerdictAllow            = "allow"
	VerdictDeny             = "deny"
	VerdictApprovalRequired = "approval_required"
)

// PlanGetParams names a plan ("plan:<32 hex>").
type PlanGetParams struct {
	PlanRef string `json:"plan_ref"`
}

// PlanGetResult is a stored plan with its verdict re-evaluated now.
type PlanGetResult struct {
	ASTVersion      int             `json:"ast_version"`
	AST             json.RawMessage `json:"ast"`
	PlanRef         string          `json:"plan_ref"`
	Fingerprint     string          `json:"fingerprint"`
	Effects         []Effect        `json:"effects"`
	Reversibility   string          `json:"reversibility"`
	Verdict         string          `json:"verdict"`
	ApprovalPending bool            `json:"approval_pending"`
	Approved        bool            `json:"approved"`
	ExpiresNs       int64           `json:"expires_ns"`
	Src             string          `json:"src"`
}

// PlanListParams takes no fields.
type PlanListParams struct{}

// PlanSummary is one item of plan.list.
type PlanSummary struct {
	PlanRef         string   `json:"plan_ref"`
	Effects         []Effect `json:"effects"`
	Reversibility   string   `json:"reversibility"`
	Verdict         string   `json:"verdict"`
	ApprovalPending bool     `json:"approval_pending"`
	Approved        bool     `json:"approved"`
	ExpiresNs       int64    `json:"expires_ns"`
}

// PlanListResult is the caller's plans by creation time.
type PlanListResult = []PlanSummary

// PlanApplyParams runs an approved (or currently allowed) plan; the reply is an [ExecResult].
type PlanApplyParams struct {
	PlanRef string `json:"plan_ref"`
}

// CapRequestParams approves a plan. Effects items are strings or {kind} objects ("." ≡ "_");
// an empty list approves the whole plan.
type CapRequestParams struct {
	PlanRef *string           `json:"plan_ref"`
	Effects []json.RawMessage `json:"effects,omitempty"`
}

// CapRequestResult is either approval_pending (with UncoveredEffects and Why) or approved.
type CapRequestResult struct {
	Grant            string            `json:"grant"`
	PlanRef          string            `json:"plan_ref"`
	Why              string            `json:"why,omitempty"`
	UncoveredEffects []string          `json:"uncovered_effects,omitempty"`
	Enforced         *bool             `json:"enforced,omitempty"`
	GrantedEffects   []json.RawMessage `json:"granted_effects,omitempty"`
}
