package syntax

// Command = { ENVWORD } [ "^" ] ( WORD | PATHWORD ) { cmdpart } [ "&" | block ].
// A command chain (cmd && cmd2 || …) is a Binary with Op "&&"/"||" whose
// operands are Commands or expressions.
type Command struct {
	Pos
	Env        []*EnvAssign
	Caret      bool    // ^name: skip value shadows and adapters
	Head       CmdPart // *Word or *PathWord
	Args       []CmdPart
	Redirs     []*Redirect
	Background bool   // trailing &
	Block      *Block // trailing block, nil when absent
}

// HeadName returns the head's text.
func (c *Command) HeadName() string {
	switch h := c.Head.(type) {
	case *Word:
		return h.Text
	case *PathWord:
		return h.Text
	}
	return ""
}

// EnvAssign is a NAME=value prefix word.
type EnvAssign struct {
	Pos
	Name  string
	Value CmdPart
}

// Redirect = ( "<" | ">" | ">>" ) cmdpart.
type Redirect struct {
	Pos
	Op     string
	Target CmdPart
}

// CmdPart is one command argument.
type CmdPart interface {
	Node
	cmdPart()
}

type (
	// Word is a plain word (a str), e.g. `status`, `ver#2`, `IDENT=rest`
	// when not in prefix position.
	Word struct {
		Pos
		Text string
	}
	// PathWord starts with ~/ ./ ../ / or is ~ (unexpanded).
	PathWord struct {
		Pos
		Text string
	}
	// GlobWord contains * ? [ or ]; Pattern is verbatim.
	GlobWord struct {
		Pos
		Pattern string
	}
	// Flag is --name, --name=value or a short cluster -abc. Name has '-'
	// rewritten to '_' (dry_run); Raw is the source spelling passed to
	// externals (--dry-run, --x=v). Value is nil for a bare flag.
	Flag struct {
		Pos
		Name  string
		Raw   string
		Value CmdPart
		Short bool
		// EmptyEq marks --name= with the value taken from the next token.
		EmptyEq bool
	}
	// EndOfFlags is "--"; Dash is a lone "-".
	EndOfFlags struct{ Pos }
	Dash       struct{ Pos }
	// ExprPart is a "…" string (StrLit/InterpStr) or a ( expr_or_command ).
	ExprPart struct {
		Pos
		X Expr
	}
)

func (*Word) cmdPart()       {}
func (*PathWord) cmdPart()   {}
func (*GlobWord) cmdPart()   {}
func (*Flag) cmdPart()       {}
func (*EndOfFlags) cmdPart() {}
func (*Dash) cmdPart()       {}
func (*ExprPart) cmdPart()   {}
