package proto

// Application error codes (AGENT-SURFACE §2.3). The standard JSON-RPC codes (-32700 … -32603)
// live in kernel/jsonrpc; these are the only definitions of Shoal's own.
const (
	CodeNotAttached            = -32000 // needs session.attach
	CodeParseError             = -32001 // Shoal source invalid; data {span, hint}
	CodeRaised                 = -32002 // evaluation raised; data {code, span, hint, status, stderr, ref, uri}
	CodeUnknownRef             = -32004 // unknown transcript ref, CAS hash or unreadable CAS bytes
	CodeBadPathOrSlice         = -32005 // bad value path, slice of the wrong kind, raw over cap
	CodeLeashDenied            = -32010 // deny verdict or ownership failure
	CodeApprovalRequired       = -32011 // approval-required verdict
	CodeUnknownPlan            = -32012 // plan unknown, expired or consumed
	CodeTaskControlUnavailable = -32020 // suspend/resume impossible
	CodeUnknownTask            = -32021 // unknown task, or another session's
	CodeUnknownPTY             = -32022 // unknown, closed or another session's PTY
	CodePTYSpawnFailed         = -32023 // PTY/exec/sandbox failure; data {cmd}
	CodeAuthFailed             = -32030 // token invalid/expired/revoked, or no token store
	CodeResourceLimit          = -32040 // per-principal quota exceeded
)

// Messages used by more than one handler (clients branch on codes, never on these).
const (
	MsgNotAttached = "attach to a session first"
	MsgUnknownRef  = "unknown value ref"
	MsgUnknownHash = "unknown value hash"
	MsgUnknownTask = "unknown task ref"
)

// ASTVersion is the version of the AST JSON carried by parse and explain. It is bumped on every
// incompatible change of the AST encoding (docs/ast.md).
const ASTVersion = 2

// Limits of the protocol.
const (
	MaxRaw           = 65536 // decoded bytes a value.get format=raw may return
	BlobChunk        = 65536 // default and maximum blob.get length
	RenderCap        = 65536 // bytes of one bounded render
	RenderWidth      = 80    // columns of a render
	TaskOutputCap    = 65536 // maximum task.output limit
	TaskOutputRing   = 1 << 20
	EventRing        = 1024 // events kept per channel
	SubscriberQueue  = 256  // events queued per subscription before a gap
	DefaultJournalLn = 100  // journal.query limit when 0 or absent
)
