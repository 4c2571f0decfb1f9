package proto

import "encoding/json"

// JournalQueryParams filters journal rows. Bounds are inclusive nanoseconds on the entry start;
// Head is the exact first word of src; Effects must all be present. Every filter applies before
// Limit (0 or absent ⇒ 100). Only exec rows are returned unless IncludeStatements.
type JournalQueryParams struct {
	Since             *int64   `json:"since,omitempty"`
	Until             *int64   `json:"until,omitempty"`
	Principal         *string  `json:"principal,omitempty"`
	Head              *string  `json:"head,omitempty"`
	OK                *bool    `json:"ok,omitempty"`
	Effects           []string `json:"effects,omitempty"`
	Limit             int      `json:"limit,omitempty"`
	IncludeStatements bool     `json:"include_statements,omitempty"`
}

// JournalOutput is one stored output of an entry.
type JournalOutput struct {
	Kind string `json:"kind"`
	Hash string `json:"hash"`
	Len  int64  `json:"len"`
}

// JournalEntry is one row, newest first in results.
type JournalEntry struct {
	ID        int64           `json:"id"`
	Kind      string          `json:"kind,omitempty"`
	Session   string          `json:"session"`
	Principal string          `json:"principal"`
	Ts        int64           `json:"ts"`
	DurNs     *int64          `json:"dur_ns"`
	Cwd       WirePath        `json:"cwd"`
	Src       string          `json:"src"`
	AST       json.RawMessage `json:"ast"`
	Effects   []Effect        `json:"effects"`
	Status    *int            `json:"status"`
	OK        *bool           `json:"ok"`
	Opaque    bool            `json:"opaque"`
	Outputs   []JournalOutput `json:"outputs"`
	// Meta is the row's metadata (Go): for an exec that spawned confined children,
	// {"sandbox": SandboxStatus, "confined_spawns": N} (AGENT-SURFACE §6.6). Absent otherwise.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// JournalQueryResult is the matching rows, newest first.
type JournalQueryResult = []JournalEntry
