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

var tokNames = [...]string{
	tEOF: "EOF", tNewline: "Newline", tSemi: "Semicolon", tIdent: "Ident",
	tInt: "Int", tFloat: "Float", tSize: "Size", tDuration: "Duration", tTime: "Time",
	tStr: "String", tRegex: "Regex", tDatetime: "Datetime",
	tLParen: "LParen", tRParen: "RParen", tLBrace: "LBrace", tRBrace: "RBrace",
	tLBracket: "LBracket", tRBracket: "RBracket", tComma: "Comma", tColon: "Colon",
	tDot: "Dot", tDotDot: "DotDot", tDotDotEq: "DotDotEq", tEllipsis: "Ellipsis",
	tQDot: "QuestionDot", tQQ: "QuestionQuestion", tQuestion: "Question",
	tFatArrow: "FatArrow", tArrow: "Arrow", tPlus: "Plus", tMinus: "Minus",
	tStar: "Star", tSlash: "Slash", tPercent: "Percent", tEqEq: "EqEq", tNotEq: "NotEq",
	tLt: "Lt", tLe: "Le", tGt: "Gt", tGe: "Ge", tAssign: "Eq", tPlusEq: "PlusEq",
	tMinusEq: "MinusEq", tStarEq: "StarEq", tSlashEq: "SlashEq", tBang: "Bang",
	tAndAnd: "AndAnd", tOrOr: "OrOr", tPipe: "Pipe", tCaret: "Caret", tAmp: "Amp",
}

func (k tokKind) String() string {
	if int(k) < len(tokNames) && tokNames[k] != "" {
		return tokNames[k]
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
