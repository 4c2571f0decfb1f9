package eval

import "github.com/shoal-sh/shoal/lang/value"

// binding is one variable. Scopes hold bindings in a small slice rather
// than a map: most scopes have a handful of names, and a slice makes the
// per-iteration and per-call scope allocation cheap.
type binding struct {
	name    string
	val     value.Value
	mutable bool
	// cmd marks a fn or alias binding (command-bound for the parser). It
	// is fixed at declaration so Bound never has to read val.
	cmd bool
}

// scope is a lexical scope. Closures keep a pointer to their defining
// scope, which is how they capture by reference.
type scope struct {
	parent  *scope
	vars    []binding
	exports []string // names exported by a module's root scope
	// inline holds the first binding, so a loop iteration or a one-param
	// call allocates one object instead of two.
	inline [1]binding
}

// newScope1 returns a child scope holding one binding.
func newScope1(parent *scope, name string, v value.Value, mutable bool) *scope {
	s := &scope{parent: parent}
	s.inline[0] = binding{name: name, val: v, mutable: mutable}
	s.vars = s.inline[:1:1]
	return s
}

func (s *scope) export(name string) { s.exports = append(s.exports, name) }

func newScope(parent *scope) *scope { return &scope{parent: parent} }

// declare adds (or shadows, in this scope) a binding.
func (s *scope) declare(name string, v value.Value, mutable bool) {
	b := binding{name: name, val: v, mutable: mutable, cmd: isCommandLike(v)}
	for i := range s.vars {
		if sameName(s.vars[i].name, name) {
			s.vars[i] = b
			return
		}
	}
	if s.vars == nil {
		s.inline[0] = b
		s.vars = s.inline[:1:1]
		return
	}
	s.vars = append(s.vars, b)
}

// sameName is a == b for variable names. Names are short and rarely
// share storage (the declaration's and each use's come from different
// tokens), so comparing bytes in line beats the runtime call behind ==,
// which every variable read and assignment makes for each binding it
// passes.
func sameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lookupLocal finds name in this scope only.
func (s *scope) lookupLocal(name string) *binding {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if sameName(s.vars[i].name, name) {
			return &s.vars[i]
		}
	}
	return nil
}

// lookup finds name in this scope or an enclosing one.
func (s *scope) lookup(name string) *binding {
	for sc := s; sc != nil; sc = sc.parent {
		for i := len(sc.vars) - 1; i >= 0; i-- {
			if sameName(sc.vars[i].name, name) {
				return &sc.vars[i]
			}
		}
	}
	return nil
}

// lookupRef finds name and returns the scope holding it and its index.
func (s *scope) lookupRef(name string) (*scope, int) {
	for sc := s; sc != nil; sc = sc.parent {
		for i := len(sc.vars) - 1; i >= 0; i-- {
			if sameName(sc.vars[i].name, name) {
				return sc, i
			}
		}
	}
	return nil, 0
}

// isCommandLike reports whether v is bound as fn or alias (command-bound
// for the parser's dispatch), as opposed to a plain value binding.
func isCommandLike(v value.Value) bool {
	switch c := v.(type) {
	case *value.Closure:
		return c.Name != ""
	case *value.Command:
		return true
	}
	return false
}
