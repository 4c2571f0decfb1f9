package proto

import "encoding/json"

// Exec modes and positions.
const (
	ModeRun      = "run"
	ModePlan     = "plan"
	ModeApproved = "approved"

	PositionStmt  = "stmt"
	PositionValue = "value"
)

// Elide overrides elision budgets for one call. MaxBytes is clamped to 65536 and is also the
// raw-bytes threshold; row and item overrides are uncapped (the byte test still applies).
type Elide struct {
	MaxBytes *int `json:"max_bytes,omitempty"`
	MaxRows  *int `json:"max_rows,omitempty"`
	MaxItems *int `json:"max_items,omitempty"`
}

// ExecParams runs Src in the attached session. Mode run (default) evaluates; plan derives and
// stores a plan; approved (plan.apply only) needs PlanRef. Position stmt (default) raises on a
// failing command, value returns the failed outcome. Async (alias Background) returns a task
// handle at once; TimeoutMs waits that long for the task and then hands it back, never killing.
type ExecParams struct {
	Src        *string `json:"src"`
	Mode       string  `json:"mode,omitempty"`
	Position   string  `json:"position,omitempty"`
	Async      bool    `json:"async,omitempty"`
	Background bool    `json:"background,omitempty"`
	TimeoutMs  *int64  `json:"timeout_ms,omitempty"`
	Elide      *Elide  `json:"elide,omitempty"`
	PlanRef    string  `json:"plan_ref,omitempty"`
}

// ExecResult is a finished exec: the transcript ref, the (elided) wire value and a bounded
// render. A task handoff instead fills Task and Events (and TimedOut for timeout_ms).
type ExecResult struct {
	Ref       string          `json:"ref,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Value     json.RawMessage `json:"value,omitempty"`
	Render    *string         `json:"render,omitempty"`
	ElapsedMs *int64          `json:"elapsed_ms,omitempty"`
	Task      string          `json:"task,omitempty"`
	Events    string          `json:"events,omitempty"`
	TimedOut  bool            `json:"timed_out,omitempty"`
}

// RaisedData is the data of a [CodeRaised] error. The error value itself is stored as Ref.
type RaisedData struct {
	Code   string `json:"code"`
	Span   *Span  `json:"span,omitempty"`
	Hint   string `json:"hint,omitempty"`
	Status *int   `json:"status,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Ref    string `json:"ref"`
	URI    string `json:"uri"`
}

// ParseErrorData is the data of a [CodeParseError] error.
type ParseErrorData struct {
	Span Span   `json:"span"`
	Hint string `json:"hint"`
}

// Span is a half-open byte range into the submitted source.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ExecPlanResult answers exec in plan mode.
type ExecPlanResult struct {
	PlanRef         string   `json:"plan_ref"`
	Fingerprint     string   `json:"fingerprint"`
	Effects         []Effect `json:"effects"`
	Reversibility   string   `json:"reversibility"`
	Verdict         string   `json:"verdict"`
	ApprovalPending bool     `json:"approval_pending"`
	ExpiresNs       int64    `json:"expires_ns"`
}

// ValueGetParams reads a transcript value: lookup Ref ("out:N" or "it"), then Path, then Slice
// [a, b) (items, rows, Unicode scalars or bytes), then Format (json default, render, raw).
type ValueGetParams struct {
	Ref    string `json:"ref"`
	Path   string `json:"path,omitempty"`
	Slice  []int  `json:"slice,omitempty"`
	Format string `json:"format,omitempty"`
	Elide  *Elide `json:"elide,omitempty"`
}

// ValueGetResult carries exactly one of Value, Render, Raw or RawBase64; Ref is the concrete
// ref even when "it" was asked for.
type ValueGetResult struct {
	Ref       string          `json:"ref"`
	Value     json.RawMessage `json:"value,omitempty"`
	Render    *string         `json:"render,omitempty"`
	Raw       *string         `json:"raw,omitempty"`
	RawBase64 *string         `json:"raw_base64,omitempty"`
}

// BlobGetParams reads a CAS blob by its 64-hex hash, optionally a byte range.
type BlobGetParams struct {
	Hash   string `json:"hash"`
	Offset *int64 `json:"offset,omitempty"`
	Length *int64 `json:"length,omitempty"`
}

// BlobGetResult is the blob as JSON (small, parseable, no range) or a tagged bytes chunk.
type BlobGetResult struct {
	Hash  string          `json:"hash"`
	Value json.RawMessage `json:"value"`
}

// StreamPullParams pulls up to MaxItems items of a stream value, waiting up to TimeoutMs.
type StreamPullParams struct {
	Ref       string `json:"ref"`
	MaxItems  *int   `json:"max_items,omitempty"`
	TimeoutMs *int64 `json:"timeout_ms,omitempty"`
}

// StreamPullResult carries the items pulled and whether the stream has ended.
type StreamPullResult struct {
	Ref   string            `json:"ref"`
	Items []json.RawMessage `json:"items"`
	Done  bool              `json:"done"`
}
