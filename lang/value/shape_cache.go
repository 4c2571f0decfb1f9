package value

import (
	"strconv"
	"strings"
)

// ShapeCache interns shapes so records built with the same keys in the
// same order share one *Shape: a .map({…}) over a million rows, or a CSV
// decoder, then keeps one key list instead of a million. It is owned by
// one builder (not safe for concurrent use, and never global).
type ShapeCache struct {
	last  *Shape
	byKey map[string]*Shape
}

// Shape returns the cached shape for keys, creating it on first use. The
// caller must not modify keys afterwards.
func (c *ShapeCache) Shape(keys []string) *Shape {
	// Consecutive rows nearly always repeat the previous shape.
	if c.last != nil && sameKeys(c.last.Keys, keys) {
		return c.last
	}
	id := shapeID(keys)
	if s, ok := c.byKey[id]; ok {
		c.last = s
		return s
	}
	if c.byKey == nil {
		c.byKey = make(map[string]*Shape)
	}
	s := NewShape(keys)
	c.byKey[id] = s
	c.last = s
	return s
}

// Record builds a record over the cached shape for keys.
func (c *ShapeCache) Record(keys []string, vals []Value) *Record {
	return &Record{Shape: c.Shape(keys), Vals: vals}
}

// shapeID encodes keys unambiguously: each key is length-prefixed, so
// keys containing any byte cannot collide with a different split.
func shapeID(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}
