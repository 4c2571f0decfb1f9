package syntax

// Pattern is a match pattern (LANGUAGE.md §6.8).
type Pattern interface {
	Node
	patNode()
}

type (
	// WildcardPat is _.
	WildcardPat struct{ Pos }
	// BindPat is IDENT: matches anything and binds it.
	BindPat struct {
		Pos
		Name string
	}
	// TypePat is TYPENAME IDENT, e.g. int n.
	TypePat struct {
		Pos
		Type string
		Name string
	}
	// LitPat is an int, float, string, bool or null literal.
	LitPat struct {
		Pos
		Lit Expr
	}
	// RangePat is INT ( ".." | "..=" ) INT.
	RangePat struct {
		Pos
		Lo, Hi    int64
		Inclusive bool
	}
	// RecordPat is { a, b: p }; a nil Pat binds the field to its name.
	RecordPat struct {
		Pos
		Fields []*FieldPat
	}
	// ListPat is [p1, p2] or [p1, ...rest].
	ListPat struct {
		Pos
		Elems   []Pattern
		HasRest bool
		Rest    string
	}
)

// FieldPat = IDENT [ ":" pattern ].
type FieldPat struct {
	Pos
	Name string
	Pat  Pattern
}

func (*WildcardPat) patNode() {}
func (*BindPat) patNode()     {}
func (*TypePat) patNode()     {}
func (*LitPat) patNode()      {}
func (*RangePat) patNode()    {}
func (*RecordPat) patNode()   {}
func (*ListPat) patNode()     {}
