package value

// Shape is the ordered key set of a record. Records built from one template
// (table rows, parsed JSON arrays) share a Shape, which keeps a
// million-row table cheap.
type Shape struct {
	Keys  []string
	index map[string]int
}

// NewShape returns a shape for keys (which must be distinct).
func NewShape(keys []string) *Shape {
	s := &Shape{Keys: keys}
	if len(keys) > 8 {
		s.index = make(map[string]int, len(keys))
		for i, k := range keys {
			s.index[k] = i
		}
	}
	return s
}

// Index returns the position of key, or -1.
func (s *Shape) Index(key string) int {
	if s.index != nil {
		if i, ok := s.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range s.Keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Record is an insertion-ordered string-keyed map. Vals[i] belongs to
// Shape.Keys[i].
type Record struct {
	Shape *Shape
	Vals  []Value
}

func (*Record) Kind() Kind { return KRecord }

// NewRecord builds a record from parallel keys and values.
func NewRecord(keys []string, vals []Value) *Record {
	return &Record{Shape: NewShape(keys), Vals: vals}
}

// Len is the number of fields.
func (r *Record) Len() int { return len(r.Vals) }

// Keys returns the keys in insertion order (do not modify).
func (r *Record) Keys() []string { return r.Shape.Keys }

// Get returns the field value and whether it exists.
func (r *Record) Get(key string) (Value, bool) {
	if i := r.Shape.Index(key); i >= 0 {
		return r.Vals[i], true
	}
	return nil, false
}

// Set returns a new record with key set to v; an existing key keeps its
// position, a new key is appended.
func (r *Record) Set(key string, v Value) *Record {
	if i := r.Shape.Index(key); i >= 0 {
		vals := append([]Value(nil), r.Vals...)
		vals[i] = v
		return &Record{Shape: r.Shape, Vals: vals}
	}
	keys := append(append([]string(nil), r.Shape.Keys...), key)
	vals := append(append([]Value(nil), r.Vals...), v)
	return NewRecord(keys, vals)
}

// RecordBuilder builds a record field by field.
type RecordBuilder struct {
	keys []string
	vals []Value
}

// Add appends a field (or replaces an existing one in place).
func (b *RecordBuilder) Add(key string, v Value) {
	for i, k := range b.keys {
		if k == key {
			b.vals[i] = v
			return
		}
	}
	b.keys = append(b.keys, key)
	b.vals = append(b.vals, v)
}

// Record returns the built record.
func (b *RecordBuilder) Record() *Record { return NewRecord(b.keys, b.vals) }
