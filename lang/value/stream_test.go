package value

import (
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

func TestStreamTakeOnce(t *testing.T) {
	t.Parallel()
	s := NewStream("list", nil)
	if _, err := s.Take(); err != nil {
		t.Fatalf("first Take: %v", err)
	}
	if _, err := s.Take(); diag.CodeOf(err) != diag.StreamConsumed {
		t.Fatalf("second Take error = %v, want stream_consumed", err)
	}
	// Rendering never consumes.
	if got := RenderInline(NewStream("event", nil)); got != "stream<event>" {
		t.Errorf("render = %q", got)
	}
}

func TestKindNames(t *testing.T) {
	t.Parallel()
	for k := KNull; k <= KSecret; k++ {
		back, ok := KindByName(k.String())
		if !ok || back != k {
			t.Errorf("KindByName(%q) = %v, %v", k.String(), back, ok)
		}
	}
	if got := Kind(200).String(); got != "kind(200)" {
		t.Errorf("out-of-range kind = %q", got)
	}
	if TypeName(nil) != "null" || TypeName(&Table{}) != "table" {
		t.Error("TypeName")
	}
}
