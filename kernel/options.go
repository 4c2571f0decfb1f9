package kernel

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
	"github.com/shoal-sh/shoal/leash/sandbox"
)

// Version is reported in session.attach's kernel member.
const Version = "0.1.0"

// Options configures a [Server]. The zero value is an ephemeral kernel: in-memory journal, no
// token store, permissive local policy, the process's cwd and no environment.
type Options struct {
	// Socket is the listening path for [Run] (see client.SocketPath).
	Socket string
	// StateDir holds journal.db and cas/ when Journal is nil; "" keeps the journal in memory.
	StateDir string
	// Session only names the socket; it is reported nowhere else.
	Session string
	// PolicyFile is a Leash TOML policy; "" means the permissive local policy.
	PolicyFile string
	// TokenStore is the tokens.json path; "" means bearer tokens are unavailable.
	TokenStore string
	// RequireToken refuses tokenless attach.
	RequireToken bool
	// Ready is called with the socket path once the kernel accepts connections; the command
	// prints "shoal-kernel: ready <path>" from it.
	Ready func(path string)
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger

	// Cwd and Env seed new sessions (the command passes os.Getwd and os.Environ).
	Cwd string
	Env []string
	// Euid is the kernel's effective uid; 0 means os.Geteuid().
	Euid int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Journal overrides the journal (tests); nil opens StateDir's journal or a memory one.
	Journal Journal
	// Auth overrides token verification; nil uses TokenStore.
	Auth Authenticator
	// Policy overrides the Leash policy (tests inject fakes; exec is then not gated); nil
	// loads PolicyFile, or the permissive policy for the local principal.
	Policy Policy
	// Sandbox configures OS confinement of the children of confined principals (tests turn
	// Landlock off or route the re-exec helper); nil probes the host.
	Sandbox *sandbox.Options
	// NewEvaluator builds a session's evaluator; nil means eval.New.
	NewEvaluator func(opts *eval.Options) Evaluator
	// MarshalAST encodes an AST for parse/explain/journal rows; nil means a minimal encoding
	// (statement kinds and spans) until lang/syntax exports its own.
	MarshalAST func(prog *syntax.Program) ([]byte, error)
}

// Evaluator is what a session needs from lang/eval; *eval.Evaluator implements it.
type Evaluator interface {
	Parse(src string, repl bool) (*syntax.Program, error)
	Run(ctx context.Context, prog *syntax.Program, pos eval.Position) (value.Value, error)
	Define(name string, v value.Value)
	Bound(name string) bool
	Cwd() string
	Environ() []string
}

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func (o *Options) euid() int {
	if o.Euid != 0 {
		return o.Euid
	}
	return os.Geteuid()
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) newEvaluator(eo *eval.Options) Evaluator {
	if o.NewEvaluator != nil {
		return o.NewEvaluator(eo)
	}
	return eval.New(eo)
}

// newEvaluatorFor builds a bare evaluator (no host, no output) for context-free parsing.
func (o *Options) newEvaluatorFor(cwd string) Evaluator {
	return o.newEvaluator(&eval.Options{Cwd: cwd})
}
