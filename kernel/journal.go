package kernel

import (
	"context"
	"encoding/json"
	"errors"
)

// Journal is what the kernel needs from the durable journal and its content-addressed store
// (package journal implements it; [NewMemJournal] is the ephemeral stand-in used when the
// kernel runs without a state directory). Only the kernel writes it.
type Journal interface {
	// Begin appends an unfinished row and returns its id; the row is durable on return.
	Begin(ctx context.Context, s JournalStart) (int64, error)
	// Finish completes row id with its outcome and outputs (already stored with PutOutput).
	Finish(ctx context.Context, id int64, f JournalFinish) error
	// PutOutput stores data in the CAS and describes it as an output of kind.
	PutOutput(ctx context.Context, kind string, data []byte) (JournalOutput, error)
	// StoreOutput is PutOutput for an output that a Finish will name: the blob's own record
	// comes with that Finish instead of costing the exec a write of its own.
	StoreOutput(ctx context.Context, kind string, data []byte) (JournalOutput, error)
	// Blob reads a stored blob by its 64-hex hash; unknown ⇒ an error wrapping ErrNotFound.
	Blob(ctx context.Context, hash string) ([]byte, error)
	// BlobVisible reports whether hash is an output of a row the principal may read (any
	// row when all).
	BlobVisible(ctx context.Context, hash, principal string, all bool) (bool, error)
	// Query returns rows matching f, newest first, every filter applied before the limit.
	Query(ctx context.Context, f JournalFilter) ([]JournalRow, error)
	// QueueFinish queues one write that finishes row id (unless f is nil) and persists the
	// durable events evs (their seqs already assigned), and returns without waiting for it;
	// wait blocks until the write is committed and reports its failure. Writes are stored in
	// the order they were queued, so a caller that numbers events under a lock and queues
	// under the same lock stores them in seq order. Like Finish, it ignores cancellation.
	QueueFinish(ctx context.Context, id int64, f *JournalFinish, evs []StoredEvent) (wait func() error)
	// Events returns the persisted events of channel with seq > since (all when since is nil),
	// in seq order, with the session and principal of their rows.
	Events(ctx context.Context, channel string, since *uint64) ([]StoredEvent, error)
	// NextSeq is one past the highest persisted seq of channel (0 when none).
	NextSeq(ctx context.Context, channel string) (uint64, error)
	// Row returns row id; unknown ⇒ an error wrapping ErrNotFound.
	Row(ctx context.Context, id int64) (*JournalRow, error)
	// AddUndo records how to reverse part of row id's effect (see undo.go).
	AddUndo(ctx context.Context, id int64, u UndoRecord) error
	// Undos returns row id's undo records, oldest first.
	Undos(ctx context.Context, id int64) ([]UndoRecord, error)
	// LastUndoable is the newest row of session and principal with an undo record not yet
	// applied (0: none).
	LastUndoable(ctx context.Context, session, principal string) (int64, error)
	// MarkUndone records that the undo records ids were applied at ns.
	MarkUndone(ctx context.Context, ids []int64, ns int64) error
	Close() error
}

// UndoRecord is one recorded inverse: its op and JSON, and once read back its id and when it
// was applied (0: not yet).
type UndoRecord struct {
	ID       int64
	Op       string
	Inverse  json.RawMessage
	UndoneNs int64
}

// ErrNotFound is wrapped by Journal implementations for unknown blobs.
var ErrNotFound = errors.New("not found")

// JournalStart is what is known when an exec begins.
type JournalStart struct {
	Kind      string // "exec" or "stmt"
	ParentID  int64
	Session   string
	Principal string
	Src       string
	AST       json.RawMessage
	Cwd       []byte
	EnvHash   string
	Effects   json.RawMessage
	StartedNs int64
	Lazy      bool // the start need not be durable before Begin returns (journal.ExecStart.Lazy)
}

// JournalFinish is what is known when it ends.
type JournalFinish struct {
	Status  *int
	OK      bool
	DurNs   int64
	Opaque  bool
	Outputs []JournalOutput
	// Meta is the row's JSON metadata: {"sandbox", "confined_spawns"} for an exec that
	// spawned confined children (AGENT-SURFACE §6.6); nil otherwise.
	Meta json.RawMessage
}

// JournalOutput is one stored output.
type JournalOutput struct {
	Kind string `json:"kind"`
	Hash string `json:"hash"`
	Len  int64  `json:"len"`
}

// JournalFilter is journal.query's filter set, plus the caller's scope.
type JournalFilter struct {
	Since, Until      *int64
	Principal         *string
	Head              *string
	OK                *bool
	Effects           []string // normalized kinds, all required
	Limit             int
	IncludeStatements bool
	// OnlyPrincipal, when set, hides other principals' rows (the caller's read scope).
	OnlyPrincipal string
}

// JournalRow is one row as journal.query returns it.
type JournalRow struct {
	ID        int64
	Kind      string
	Session   string
	Principal string
	Ts        int64
	DurNs     *int64
	Cwd       []byte
	Src       string
	AST       json.RawMessage
	Effects   json.RawMessage
	Status    *int
	OK        *bool
	Opaque    bool
	Outputs   []JournalOutput
	Meta      json.RawMessage // see JournalFinish.Meta
}

// StoredEvent is a durable channel event with the owner of its row.
type StoredEvent struct {
	Channel   string
	Seq       uint64
	EntryID   int64
	Ts        int64
	Payload   json.RawMessage
	Session   string
	Principal string
}
