package syntax

// Options configure parsing. The zero value parses a script.
type Options struct {
	// REPL allows it/out and a leading "." line applied to it.
	REPL bool
	// Bound reports names already value-bound before this source (session
	// bindings in the REPL and the kernel, args/script in scripts), which
	// decides command-vs-expression dispatch (LANGUAGE.md §3). path, glob
	// and regex are always value-bound.
	Bound func(name string) bool
	// CommandBound reports names already bound as fn or alias.
	CommandBound func(name string) bool
}

// Parse parses src as a program. On failure the error is a *diag.Error with
// Code diag.ParseError, a message carrying the teaching phrase, a span, an
// optional hint, and Partial set when the input merely ended early.
//
// func Parse(src string, opts *Options) (*Program, error) — implemented in parser.go.
