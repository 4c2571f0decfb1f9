package proto

import "encoding/json"

// Client describes the attaching program. TTY true keeps ANSI escapes in renders.
type Client struct {
	Kind string `json:"kind,omitempty"`
	TTY  bool   `json:"tty,omitempty"`
}

// SessionAttachParams attaches the connection to session (default "default"). With Token the
// bearer is verified (failure ⇒ [CodeAuthFailed]); without, the principal is the kernel's own
// uid, refused when the kernel requires tokens. Re-attaching replaces the attachment.
type SessionAttachParams struct {
	Session string  `json:"session,omitempty"`
	Token   *string `json:"token,omitempty"`
	Client  *Client `json:"client,omitempty"`
}

// Enforcement states which OS dimensions the principal's sandbox really confines.
type Enforcement struct {
	Filesystem bool `json:"filesystem"`
	Network    bool `json:"network"`
	SpawnExec  bool `json:"spawn_exec"`
}

// Caps is the honest capability summary of an attachment.
type Caps struct {
	Enforced          bool        `json:"enforced"`
	Tier              string      `json:"tier"`
	AvailableTier     string      `json:"available_tier"`
	PolicyPrincipal   string      `json:"policy_principal"`
	Profile           string      `json:"profile"`
	TokenCaps         []string    `json:"token_caps"`
	Opaque            string      `json:"opaque"`
	TokenCapsEnforced bool        `json:"token_caps_enforced"`
	Enforcement       Enforcement `json:"enforcement"`
	// Sandbox is the full enforcement report behind Enforcement (Go addition), nil when the
	// kernel cannot tell.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// ElideDefaults are the elision budgets the kernel applies when a call sets none.
type ElideDefaults struct {
	MaxBytes    int `json:"max_bytes"`
	MaxRows     int `json:"max_rows"`
	MaxBytesRaw int `json:"max_bytes_raw"`
	MaxItems    int `json:"max_items"`
	HardCap     int `json:"hard_cap"`
}

// DefaultElide is the kernel's elision budget (AGENT-SURFACE §2.8).
var DefaultElide = ElideDefaults{MaxBytes: 8192, MaxRows: 100, MaxBytesRaw: 4096, MaxItems: 500, HardCap: 65536}

// KernelInfo identifies the daemon process so clients and tests can manage it.
type KernelInfo struct {
	Pid       int    `json:"pid"`
	Version   string `json:"version"`
	StartedNs int64  `json:"started_ns"`
}

// SessionAttachResult describes the attachment.
type SessionAttachResult struct {
	Session       string        `json:"session"`
	Principal     string        `json:"principal"`
	Caps          Caps          `json:"caps"`
	Cwd           WirePath      `json:"cwd"`
	EnvHash       string        `json:"env_hash"`
	ASTVersion    int           `json:"ast_version"`
	CapsEnforced  bool          `json:"caps_enforced"`
	ElideDefaults ElideDefaults `json:"elide_defaults"`
	Channels      []string      `json:"channels"`
	Kernel        KernelInfo    `json:"kernel"`
}

// WirePath is a filesystem path: Display is its UTF-8 (lossy) text; Raw, the base64 of its
// bytes, is present only when they are not valid UTF-8 and is then authoritative.
type WirePath struct {
	Display string `json:"display"`
	Raw     string `json:"raw,omitempty"`
}

// SessionEnvParams takes no fields.
type SessionEnvParams struct{}

// SessionEnvResult lists the session's environment names (UTF-8 pairs only, sorted); Env is
// present only when the principal may read every variable.
type SessionEnvResult struct {
	Granted bool              `json:"granted"`
	Names   []string          `json:"names"`
	Env     map[string]string `json:"env,omitempty"`
}

// SessionCwdParams takes no fields.
type SessionCwdParams struct{}

// SessionCwdResult is the session's current directory at the last statement boundary.
type SessionCwdResult struct {
	Cwd WirePath `json:"cwd"`
}

// SessionReefParams takes no fields.
type SessionReefParams struct{}

// ReefBinding is one resolved tool of the session's Reef scope.
type ReefBinding struct {
	Tool        string  `json:"tool"`
	Version     *string `json:"version"`
	Provider    *string `json:"provider"`
	Scope       string  `json:"scope"`
	Constrained bool    `json:"constrained"`
}

// SessionReefResult is the cached Reef state; it never runs a subprocess.
type SessionReefResult struct {
	ActiveScope *string       `json:"active_scope"`
	Bindings    []ReefBinding `json:"bindings"`
}

// ParseParams parses Src without a session (context-free).
type ParseParams struct {
	Src *string `json:"src"`
}

// ParseResult carries the AST JSON (docs/ast.md) and its version.
type ParseResult struct {
	ASTVersion int             `json:"ast_version"`
	AST        json.RawMessage `json:"ast"`
}

// CompleteParams asks for completions at Cursor, a UTF-8 byte offset into Src (default
// len(Src), clamped, snapped back to a rune boundary).
type CompleteParams struct {
	Src    string `json:"src"`
	Cursor *int   `json:"cursor,omitempty"`
}

// CompleteResult holds sorted unique candidates.
type CompleteResult struct {
	Candidates []string `json:"candidates"`
}

// ExplainParams explains Src (preferred) or a previously parsed AST.
type ExplainParams struct {
	Src *string         `json:"src,omitempty"`
	AST json.RawMessage `json:"ast,omitempty"`
}

// ExplainResult derives effects without running anything.
type ExplainResult struct {
	ASTVersion    int             `json:"ast_version"`
	AST           json.RawMessage `json:"ast"`
	Effects       []Effect        `json:"effects"`
	Reversibility string          `json:"reversibility"`
	Fingerprint   string          `json:"fingerprint"`
	PlanRef       *string         `json:"plan_ref"`
	// Sandbox is how the caller's spawns would be confined on this host (Go addition).
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// SandboxStatus is the honest account of how a principal's spawns are confined: host tier,
// the tier a spawn actually gets, each dimension, the Landlock ABI and plain-words detail.
type SandboxStatus struct {
	AvailableTier      string `json:"available_tier"`
	ActiveTier         string `json:"active_tier"`
	Enforced           bool   `json:"enforced"`
	FilesystemEnforced bool   `json:"filesystem_enforced"`
	NetworkEnforced    string `json:"network_enforced"`
	SpawnExecEnforced  bool   `json:"spawn_exec_enforced"`
	LandlockABI        int    `json:"landlock_abi"`
	Detail             string `json:"detail"`
}

// Effect is one Leash effect object; Kind is snake_case (fs_write, opaque, …) and the other
// members depend on it, so they are kept verbatim.
type Effect map[string]any
