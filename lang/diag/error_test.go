package diag

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorText(t *testing.T) {
	t.Parallel()
	if got := New(DivZero, "division by zero").Error(); got != "div_zero: division by zero" {
		t.Errorf("Error() = %q", got)
	}
	e := New(NotFound, "command `%s` not found", "journl").WithHint("did you mean `journal`?")
	if got, want := e.Error(), "not_found: command `journl` not found (hint: did you mean `journal`?)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestWithSpanKeepsInnermost(t *testing.T) {
	t.Parallel()
	e := New(TypeError, "x").WithSpan(Span{Start: 4, End: 6}).WithSpan(Span{Start: 0, End: 10})
	if e.Span != (Span{Start: 4, End: 6}) {
		t.Errorf("Span = %v, want the first (innermost) span", e.Span)
	}
	if !(Span{}).IsZero() || (Span{Start: 0, End: 1}).IsZero() {
		t.Error("IsZero is wrong")
	}
}

func TestAsAndCodeOf(t *testing.T) {
	t.Parallel()
	inner := New(CmdFailed, "`false` exited with status 1")
	wrapped := fmt.Errorf("run: %w", inner)
	if As(wrapped) != inner {
		t.Error("As does not unwrap")
	}
	if CodeOf(wrapped) != CmdFailed {
		t.Errorf("CodeOf = %q", CodeOf(wrapped))
	}
	if As(errors.New("plain")) != nil || CodeOf(errors.New("plain")) != "" || CodeOf(nil) != "" {
		t.Error("a plain error is not a language error")
	}
}
