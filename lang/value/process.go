package value

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Outcome is the result of running a command (LANGUAGE.md §9.5).
type Outcome struct {
	Status *int   // nil when killed by a signal or unknown
	Signal string // "SIGTERM", … ; "" when none
	OK     bool
	Dur    time.Duration
	Pid    int
	Cmd    string
	Stdout []byte
	Stderr []byte
	// Out is the semantic payload of a builtin or adapter. When nil, .out
	// is derived from Stdout (text minus one trailing newline, or parsed
	// JSON when it starts with { or [).
	Out Value
}

func (*Outcome) Kind() Kind { return KOutcome }

// Task is a handle on background work.
type Task struct {
	ID     int64
	Handle TaskHandle
}

func (*Task) Kind() Kind { return KTask }

// TaskHandle is implemented by the evaluator's task runner.
type TaskHandle interface {
	Await(ctx context.Context) (Value, error)
	Cancel()
	Done() bool
	Suspend() error
	Resume() error
	Suspended() bool
}

// Stream is a single-consumer lazy sequence (LANGUAGE.md §12.1).
type Stream struct {
	Label string
	Src   StreamSource
	// Consumed is set once a combinator or sink has taken the source. It is
	// atomic because a stream handle may be shared by a spawned task and
	// its parent; use Take to claim the source exactly once.
	Consumed *atomic.Bool
}

func (*Stream) Kind() Kind { return KStream }

// StreamSource yields items; ok is false at the end.
type StreamSource interface {
	Next(ctx context.Context) (v Value, ok bool, err error)
	// Bounded reports whether the source ends by itself.
	Bounded() bool
}

// NewStream returns a fresh, unconsumed stream handle.
func NewStream(label string, src StreamSource) *Stream {
	return &Stream{Label: label, Src: src, Consumed: new(atomic.Bool)}
}

// Take claims the stream's source for one consumer. A second claim is a
// stream_consumed error, so a handle cannot be drained twice. A stream
// built without a Consumed flag cannot be tracked and is always handed out.
func (s *Stream) Take() (StreamSource, error) {
	if s.Consumed != nil && !s.Consumed.CompareAndSwap(false, true) {
		return nil, diag.New(diag.StreamConsumed, "stream already consumed").
			WithHint("a stream has a single consumer; bind .collect() to reuse its items")
	}
	return s.Src, nil
}
