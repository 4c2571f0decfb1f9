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

func TestShapeCache(t *testing.T) {
	t.Parallel()
	var c ShapeCache
	a := c.Record([]string{"id", "name"}, []Value{Int(1), Str("a")})
	b := c.Record([]string{"id", "name"}, []Value{Int(2), Str("b")})
	other := c.Record([]string{"name", "id"}, []Value{Str("c"), Int(3)})
	again := c.Record([]string{"id", "name"}, []Value{Int(4), Str("d")})
	// Keys that would collide if joined naively must not share a shape.
	x := c.Shape([]string{"a\x00b"})
	y := c.Shape([]string{"a", "b"})
	switch {
	case a.Shape != b.Shape || a.Shape != again.Shape:
		t.Error("equal key lists do not share a shape")
	case a.Shape == other.Shape:
		t.Error("different key order shares a shape")
	case x == y:
		t.Error("keys containing NUL collide with split keys")
	}
}
