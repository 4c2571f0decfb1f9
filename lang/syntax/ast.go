// Package syntax is Shoal's lexer and parser: source text to an AST with a
// span on every node, the curated parse errors of LANGUAGE.md §4.1, and an
// "incomplete input" signal for the REPL. It imports only lang/diag.
package syntax

import "github.com/shoal-sh/shoal/lang/diag"

// Node is any AST node.
type Node interface {
	Span() diag.Span
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// Expr is an expression node. Commands are expressions too: they appear
// inside ( … ), as && / || operands and as .feed arguments.
type Expr interface {
	Node
	exprNode()
}

// Pos is embedded in every node to carry its span.
type Pos struct{ S diag.Span }

// Span returns the node's byte range.
func (p Pos) Span() diag.Span { return p.S }

// Program = { statement }.
type Program struct {
	Pos
	Stmts []Stmt
	Src   string
}

// ---- statements ----

// LetStmt = ( "let" | "var" ) binder [ ":" type ] "=" expr.
type LetStmt struct {
	Pos
	Mutable bool
	Name    string // "_" discards
	Type    *TypeExpr
	Value   Expr
}

// ExportStmt = "export" ( binding | fndecl ).
type ExportStmt struct {
	Pos
	Decl Stmt // *LetStmt or *FnDecl
}

// FnDecl = "fn" IDENT "(" [ params ] ")" [ "->" type ] block.
type FnDecl struct {
	Pos
	Name   string
	Params []*Param
	Rest   *Param // "...name[: type]", nil when absent
	Ret    *TypeExpr
	Body   *Block
}

// Param = IDENT [ ":" type ] [ "=" expr ].
type Param struct {
	Pos
	Name    string
	Type    *TypeExpr
	Default Expr
}

// TypeExpr = IDENT [ "<" type { "," type } ">" ] [ "?" ].
type TypeExpr struct {
	Pos
	Name     string
	Args     []*TypeExpr
	Optional bool
}

// AliasStmt = "alias" IDENT "=" command.
type AliasStmt struct {
	Pos
	Name string
	Cmd  *Command
}

// UseStmt = "use" ( WORD | PATHWORD ).
type UseStmt struct {
	Pos
	Target string
}

// ReturnStmt = "return" [ expr ].
type ReturnStmt struct {
	Pos
	Value Expr // nil when bare
}

// BreakStmt = "break".
type BreakStmt struct{ Pos }

// ContinueStmt = "continue".
type ContinueStmt struct{ Pos }

// ForStmt = "for" binder "in" expr block.
type ForStmt struct {
	Pos
	Var  string
	Iter Expr
	Body *Block
}

// WhileStmt = "while" expr block.
type WhileStmt struct {
	Pos
	Cond Expr
	Body *Block
}

// AssignStmt = ( IDENT | "env" "." IDENT ) ( "=" | "+=" | "-=" | "*=" | "/=" ) expr.
type AssignStmt struct {
	Pos
	Name  string
	Env   bool   // env.NAME = …
	Op    string // "=", "+=", "-=", "*=", "/="
	Value Expr
}

// ExprStmt is an expression or command used as a statement. Whether it is
// in statement position (a failing command raises) is decided by the
// evaluator from where the statement sits (LANGUAGE.md §9.4).
type ExprStmt struct {
	Pos
	X Expr
}

func (*LetStmt) stmtNode()      {}
func (*ExportStmt) stmtNode()   {}
func (*FnDecl) stmtNode()       {}
func (*AliasStmt) stmtNode()    {}
func (*UseStmt) stmtNode()      {}
func (*ReturnStmt) stmtNode()   {}
func (*BreakStmt) stmtNode()    {}
func (*ContinueStmt) stmtNode() {}
func (*ForStmt) stmtNode()      {}
func (*WhileStmt) stmtNode()    {}
func (*AssignStmt) stmtNode()   {}
func (*ExprStmt) stmtNode()     {}

// ---- expressions ----

// Literals. Unit literals are already scaled (saturating) by the parser.
type (
	IntLit struct {
		Pos
		V int64
	}
	FloatLit struct {
		Pos
		V float64
	}
	SizeLit struct {
		Pos
		Bytes uint64
	}
	DurationLit struct {
		Pos
		Ns int64
	}
	TimeLit struct {
		Pos
		H, M, S int
	}
	BoolLit struct {
		Pos
		V bool
	}
	NullLit struct{ Pos }
	// StrLit is a string without interpolation (escapes already decoded).
	StrLit struct {
		Pos
		V string
	}
	// InterpStr is "…{expr}…"; Parts alternate literal text and exprs.
	InterpStr struct {
		Pos
		Parts []StrPart
	}
	// RegexLit is re"…", compiled at evaluation.
	RegexLit struct {
		Pos
		Src string
	}
	// DatetimeLit is t"…", parsed at evaluation.
	DatetimeLit struct {
		Pos
		Src string
	}
)

// StrPart is literal text (Expr == nil) or an embedded expression.
type StrPart struct {
	Lit  string
	Expr Expr
}

// Ident is a name in expression position. The implicit item of a dot
// lambda (.name → item => item.name) is Ident{Name: "."}.
type Ident struct {
	Pos
	Name string
}

// Binary = expr OP expr, for + - * / % == != < <= > >= in && || ?? .. ..=.
type Binary struct {
	Pos
	Op   string
	L, R Expr
}

// Unary = ( "!" | "-" ) expr.
type Unary struct {
	Pos
	Op string
	X  Expr
}

// Field = expr ( "." | "?." ) IDENT, not followed by call arguments.
type Field struct {
	Pos
	X    Expr
	Name string
	Safe bool // ?.
}

// Index = expr "[" expr "]".
type Index struct {
	Pos
	X, Index Expr
}

// MethodCall = expr ( "." | "?." ) IDENT callargs [ trailing ], or
// expr "." IDENT trailing. A trailing block is appended to Args as a
// zero-parameter Lambda.
type MethodCall struct {
	Pos
	Recv Expr
	Name string
	Args []*Arg
	Safe bool
}

// Call = expr callargs [ trailing ]. Fn is usually an Ident; anything else
// is an immediately invoked callee.
type Call struct {
	Pos
	Fn   Expr
	Args []*Arg
}

// Arg = IDENT ":" expr | expr. Name is "" for positional arguments.
type Arg struct {
	Pos
	Name  string
	Value Expr
}

// Lambda = IDENT "=>" body | "(" lparams ")" "=>" body. A dot lambda
// (.where(.size > 1mb)) is a Lambda with Implicit set and one parameter
// named "."; a trailing block is a Lambda with no parameters.
type Lambda struct {
	Pos
	Params   []*Param
	Body     Expr // *Block or an expression
	Implicit bool
}

// ListLit = "[" [ expr { "," expr } ] "]".
type ListLit struct {
	Pos
	Items []Expr
}

// RecordLit = "{" field { "," field } "}" | "{" "}".
type RecordLit struct {
	Pos
	Fields []*RecordField
}

// RecordField = ( IDENT | STRING ) ":" expr.
type RecordField struct {
	Pos
	Key   string
	Value Expr
}

// Block = "{" { statement } "}". Its value is its last statement's value.
type Block struct {
	Pos
	Stmts []Stmt
}

// If = "if" expr block [ "else" ( If | block ) ].
type If struct {
	Pos
	Cond Expr
	Then *Block
	Else Expr // nil, *Block or *If
}

// Match = "match" expr "{" { arm } "}".
type Match struct {
	Pos
	Subject Expr
	Arms    []*MatchArm
}

// MatchArm = pattern { "|" pattern } [ "if" expr ] "=>" ( block | expr ).
type MatchArm struct {
	Pos
	Patterns []Pattern
	Guard    Expr
	Body     Expr
}

// Try = "try" block "catch" [ binder ] block.
type Try struct {
	Pos
	Body    *Block
	Binder  string // "" or "_" when unbound
	Handler *Block
}

// Catch = expr "catch" [ IDENT ] ( block | expr ) (postfix form).
type Catch struct {
	Pos
	X       Expr
	Binder  string
	Handler Expr
}

// With = "with" wentry { "," wentry } block; keys are cwd, env, reef.
type With struct {
	Pos
	Entries []*WithEntry
	Body    *Block
}

// WithEntry = ( "cwd" | "env" | "reef" ) ":" expr.
type WithEntry struct {
	Pos
	Key   string
	Value Expr
}

// Spawn = "spawn" block.
type Spawn struct {
	Pos
	Body *Block
}

// LangBlock = INTERP_TOOL ( "{…}" | "”'…”'" | "'…'" ): foreign program
// text captured verbatim (trimmed).
type LangBlock struct {
	Pos
	Tool string
	Text string
}

func (*IntLit) exprNode()      {}
func (*FloatLit) exprNode()    {}
func (*SizeLit) exprNode()     {}
func (*DurationLit) exprNode() {}
func (*TimeLit) exprNode()     {}
func (*BoolLit) exprNode()     {}
func (*NullLit) exprNode()     {}
func (*StrLit) exprNode()      {}
func (*InterpStr) exprNode()   {}
func (*RegexLit) exprNode()    {}
func (*DatetimeLit) exprNode() {}
func (*Ident) exprNode()       {}
func (*Binary) exprNode()      {}
func (*Unary) exprNode()       {}
func (*Field) exprNode()       {}
func (*Index) exprNode()       {}
func (*MethodCall) exprNode()  {}
func (*Call) exprNode()        {}
func (*Lambda) exprNode()      {}
func (*ListLit) exprNode()     {}
func (*RecordLit) exprNode()   {}
func (*Block) exprNode()       {}
func (*If) exprNode()          {}
func (*Match) exprNode()       {}
func (*Try) exprNode()         {}
func (*Catch) exprNode()       {}
func (*With) exprNode()        {}
func (*Spawn) exprNode()       {}
func (*LangBlock) exprNode()   {}
func (*Command) exprNode()     {}
