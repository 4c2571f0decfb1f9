package proto

import "encoding/json"

// PTYOpenParams starts Cmd on a new PTY in the session's cwd and environment (Env overrides).
// Cols and Rows default to 80×24 and are clamped to 1..1000.
type PTYOpenParams struct {
	Cmd     string            `json:"cmd"`
	Args    []string          `json:"args,omitempty"`
	Cols    *int              `json:"cols,omitempty"`
	Rows    *int              `json:"rows,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	PlanRef string            `json:"plan_ref,omitempty"`
}

// PTYOpenResult names the new PTY.
type PTYOpenResult struct {
	PTYID string `json:"pty_id"`
	Pid   int    `json:"pid"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Cmd   string `json:"cmd"`
}

// PTYSendParams writes Input: a string, {"text"}, {"key"}, {"bytes": base64} or an array of
// those.
type PTYSendParams struct {
	PTYID string          `json:"pty_id"`
	Input json.RawMessage `json:"input"`
}

// PTYSendResult counts the bytes written.
type PTYSendResult struct {
	PTYID string `json:"pty_id"`
	Sent  int    `json:"sent"`
}

// PTYReadParams snapshots the screen, optionally waiting up to WaitMs for a change or for
// UntilText to appear.
type PTYReadParams struct {
	PTYID     string  `json:"pty_id"`
	WaitMs    *int    `json:"wait_ms,omitempty"`
	UntilText *string `json:"until_text,omitempty"`
}

// PTYCursor is the cursor position, zero-based.
type PTYCursor struct {
	Row    int  `json:"row"`
	Col    int  `json:"col"`
	Hidden bool `json:"hidden"`
}

// PTYExit is how a PTY child ended.
type PTYExit struct {
	Status *int    `json:"status"`
	Signal *string `json:"signal"`
}

// PTYReadResult is one screen snapshot: exactly Rows plain lines.
type PTYReadResult struct {
	PTYID     string    `json:"pty_id"`
	Cmd       string    `json:"cmd"`
	Cols      int       `json:"cols"`
	Rows      int       `json:"rows"`
	Cursor    PTYCursor `json:"cursor"`
	Screen    []string  `json:"screen"`
	Changed   bool      `json:"changed"`
	Alive     bool      `json:"alive"`
	Exit      *PTYExit  `json:"exit"`
	Pid       int       `json:"pid"`
	AltScreen bool      `json:"alt_screen"`
	Matched   *bool     `json:"matched,omitempty"`
}

// PTYResizeParams resizes the PTY (1..1000 each).
type PTYResizeParams struct {
	PTYID string `json:"pty_id"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
}

// PTYResizeResult reports the new size.
type PTYResizeResult struct {
	PTYID string `json:"pty_id"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
}

// PTYCloseParams terminates and reaps the PTY child.
type PTYCloseParams struct {
	PTYID string `json:"pty_id"`
}

// PTYCloseResult reports the exit.
type PTYCloseResult struct {
	PTYID  string   `json:"pty_id"`
	Closed bool     `json:"closed"`
	Exit   *PTYExit `json:"exit"`
}

// PTYListParams takes no fields.
type PTYListParams struct{}

// PTYInfo is one item of pty.list.
type PTYInfo struct {
	PTYID string `json:"pty_id"`
	Cmd   string `json:"cmd"`
	Pid   int    `json:"pid"`
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Alive bool   `json:"alive"`
}

// PTYListResult lists the session's PTYs in ascending order.
type PTYListResult struct {
	PTYs []PTYInfo `json:"ptys"`
}
