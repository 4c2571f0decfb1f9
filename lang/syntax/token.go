package syntax

// tokKind is an expression-mode token kind. Its String form is the name
// the diagnostics use ("expected expression, found RParen"), which the
// corpus pins for RParen.
type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tSemi
	tIdent
	tInt
	tFloat
	tSize
	tDuration
	tTime
	tStr      // "…" '…' """…""" '''…'''
	tRegex    // re"…"
	tDatetime // t"…"
	tLParen
	tRParen
	tLBrace
	tRBrace
	tLBracket
	tRBracket
	tComma
	tColon
	tDot
	tDotDot
	tDotDotEq
	tEllipsis
	tQDot
	tQQ
	tQuestion
	tFatArrow
	tArrow
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tEqEq
	tNotEq
	tLt
	tLe
	tGt
	tGe
	tAssign
	tPlusEq
	tMinusEq
	tStarEq
	tSlashEq
	tBang
	tAndAnd
	tOrOr
	tPipe
	tCaret
	tAmp
)

// String returns the kind's diagnostic name.
func (k tokKind) String() string {
	switch k {
	case tEOF:
		return "EOF"
	case tNewline:
		return "Newline"
	case tSemi:
		return "Semicolon"
	case tIdent:
		return "Ident"
	case tInt:
		return "Int"
	case tFloat:
		return "Float"
	case tSize:
		return "Size"
	case tDuration:
		return "Duration"
	case tTime:
		return "Time"
	case tStr:
		return "String"
	case tRegex:
		return "Regex"
	case tDatetime:
		return "Datetime"
	case tLParen:
		return "LParen"
	case tRParen:
		return "RParen"
	case tLBrace:
		return "LBrace"
	case tRBrace:
		return "RBrace"
	case tLBracket:
		return "LBracket"
	case tRBracket:
		return "RBracket"
	case tComma:
		return "Comma"
	case tColon:
		return "Colon"
	case tDot:
		return "Dot"
	case tDotDot:
		return "DotDot"
	case tDotDotEq:
		return "DotDotEq"
	case tEllipsis:
		return "Ellipsis"
	case tQDot:
		return "QuestionDot"
	case tQQ:
		return "QuestionQuestion"
	case tQuestion:
		return "Question"
	case tFatArrow:
		return "FatArrow"
	case tArrow:
		return "Arrow"
	case tPlus:
		return "Plus"
	case tMinus:
		return "Minus"
	case tStar:
		return "Star"
	case tSlash:
		return "Slash"
	case tPercent:
		return "Percent"
	case tEqEq:
		return "EqEq"
	case tNotEq:
		return "NotEq"
	case tLt:
		return "Lt"
	case tLe:
		return "Le"
	case tGt:
		return "Gt"
	case tGe:
		return "Ge"
	case tAssign:
		return "Eq"
	case tPlusEq:
		return "PlusEq"
	case tMinusEq:
		return "MinusEq"
	case tStarEq:
		return "StarEq"
	case tSlashEq:
		return "SlashEq"
	case tBang:
		return "Bang"
	case tAndAnd:
		return "AndAnd"
	case tOrOr:
		return "OrOr"
	case tPipe:
		return "Pipe"
	case tCaret:
		return "Caret"
	case tAmp:
		return "Amp"
	}
	return "Token"
}

// token is one expression-mode token. Literal tokens carry their decoded
// node in lit; string tokens carry the quote form so the parser can decode
// escapes and interpolation with the right rules.
type token struct {
	kind       tokKind
	start, end int
	text       string // identifier text / operator spelling
	lit        Expr   // numeric literal node
	str        strForm
}

// strForm describes a string literal's extent: the body lies in
// [bodyStart, bodyEnd) of the source.
type strForm struct {
	bodyStart, bodyEnd int
	triple             bool
	raw                bool // single-quoted: no escapes, no interpolation
}

// reserved words that start statements or expressions; they are never
// value names and never command heads.
func isReserved(s string) bool {
	switch s {
	case "let", "var", "fn", "alias", "use", "export", "return", "break", "continue",
		"if", "else", "match", "for", "in", "while", "try", "catch", "with", "spawn":
		return true
	}
	return false
}

// reservedWords lists isReserved's words (checked against it by a test)
// plus the literal names, for hosts that offer completions.
var reservedWords = []string{
	"alias", "break", "catch", "continue", "else", "export", "false", "fn", "for", "if",
	"in", "let", "match", "null", "return", "spawn", "true", "try", "use", "var", "while", "with",
}

// Keywords returns the language's reserved words and its literal names
// (true, false, null), sorted; the caller owns the slice.
func Keywords() []string {
	return append([]string(nil), reservedWords...)
}

// isInterpTool reports whether name is an interpreter head (§9.7).
func isInterpTool(s string) bool {
	switch s {
	case "sh", "bash", "zsh", "fish", "python", "python3", "node", "deno", "ruby",
		"jq", "perl", "php", "lua", "Rscript", "osascript":
		return true
	}
	return false
}

// isTypeName reports whether s is a type-pattern name (§4 notes).
func isTypeName(s string) bool {
	switch s {
	case "null", "bool", "int", "float", "str", "path", "glob", "regex", "size", "duration",
		"datetime", "time", "bytes", "list", "record", "table", "range", "stream", "error",
		"outcome", "task", "closure", "command", "secret":
		return true
	}
	return false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
