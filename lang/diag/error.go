// Package diag holds Shoal's language error type, the registry of error
// codes and the caret rendering of diagnostics. It is a leaf: it imports
// only the standard library.
package diag

import (
	"errors"
	"fmt"
)

// Span is a half-open byte range [Start, End) into the source text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// IsZero reports whether the span is unknown.
func (s Span) IsZero() bool { return s.Start == 0 && s.End == 0 }

// Error is every language failure: runtime errors (with a Code from
// codes.go) and parse errors (Code == ParseError). Parse errors put their
// teaching phrase in Msg, because the corpus matches the message.
type Error struct {
	Code string
	Msg  string
	Hint string // "" when absent
	Span Span   // zero when unknown; the innermost span wins
	// Stderr and Status are set for cmd_failed.
	Stderr *string
	Status *int
	// Partial marks a parse error caused by input ending early (an open
	// delimiter, a trailing operator): the REPL asks for another line.
	Partial bool
	// Src is the source text Span points into, when known, so a host can
	// render a caret diagnostic without threading the source through.
	Src string
}

func (e *Error) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("%s: %s (hint: %s)", e.Code, e.Msg, e.Hint)
	}
	return e.Code + ": " + e.Msg
}

// New returns an error with code and a formatted message.
func New(code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Msg: format}
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// WithSpan sets the span if none is set yet (the innermost span wins) and
// returns e.
func (e *Error) WithSpan(s Span) *Error {
	if e.Span.IsZero() {
		e.Span = s
	}
	return e
}

// As returns the *Error inside err, or nil.
func As(err error) *Error {
	var d *Error
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// CodeOf returns the code of the language error inside err, or "" when err
// is not a language error.
func CodeOf(err error) string {
	if d := As(err); d != nil {
		return d.Code
	}
	return ""
}
