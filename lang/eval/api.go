package eval

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// Options configure an [Evaluator]. The zero value (or nil) is a
// non-interactive evaluator in an empty environment at "/".
type Options struct {
	Cwd         string   // session cwd; the process cwd is never changed
	Env         []string // initial environment, KEY=VALUE
	Interactive bool     // REPL semantics: Reef resolves instead of reef_unlocked; Host.Terminal is used
	// Stdout receives the output of statement-position commands (externals
	// live as they write, builtins once they finish); Stderr receives
	// warnings such as a glob's "no matches". nil discards. Writes are
	// serialised, since background tasks print too.
	Stdout, Stderr io.Writer
	Host           *Host         // OS ports; nil or nil fields mean the real OS
	Config         *value.Record // config namespace snapshot; nil means config.all() == {}
}

// Host holds the evaluator's optional ports. Every field may be nil.
type Host struct {
	// WrapCmd is called for every child process just before it starts
	// (externals, interpreter blocks, .feed, run, tasks). It may rewrite
	// cmd.Path and cmd.Args, e.g. to re-exec through a sandbox helper.
	// An error aborts the spawn and is raised as is.
	WrapCmd func(ctx context.Context, cmd *exec.Cmd) error
	// StartCmd, when set, starts every child process in place of
	// cmd.Start (after WrapCmd), e.g. to confine it with a sandbox that
	// must fork from a restricted thread. A *diag.Error it returns is
	// raised as is; other errors are mapped like cmd.Start's.
	StartCmd func(ctx context.Context, cmd *exec.Cmd) error
	// OnSpawn and OnExit bracket the life of each child process group
	// (pid == pgid) so a host can stop and continue a task's processes.
	OnSpawn func(ctx context.Context, pid int)
	OnExit  func(ctx context.Context, pid int)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Gate is consulted before a top-level program runs; an error refuses it.
	Gate func(ctx context.Context, prog *syntax.Program) error
	// Content resolves val:blake3:<hash> references; nil means there is no
	// content store (not_found).
	Content func(ctx context.Context, hash string) ([]byte, error)
	// Terminal, in an interactive evaluator, runs a statement-position
	// external (and every `interact` command) on the user's terminal
	// instead of capturing its output: it must attach cmd's stdio to the
	// terminal, make the child's process group the foreground group, run
	// it to completion and return cmd.Run's error. The outcome then has a
	// status but empty stdout/stderr. nil means always capture.
	Terminal func(ctx context.Context, cmd *exec.Cmd) error
	// Journal implements the journal-backed heads undo, journal, history,
	// plan, apply and explain, which need state the evaluator does not
	// own. args are the words after the head as argv text; the result
	// becomes the outcome's .out. nil means no journal: journal and
	// history are empty tables, undo/apply raise not_found, plan/explain
	// return an empty plan.
	Journal func(ctx context.Context, head string, args []string) (value.Value, error)
	// Secret reads a named secret for secret.get. An error wrapping
	// fs.ErrNotExist is not_found; any other error is permission. nil
	// means there is no secret store (every name is not_found).
	Secret func(ctx context.Context, name string) ([]byte, error)
	// OnChange is told of each reversible file change the evaluator makes (rm's move to
	// the trash, mv, a file written whole by `>`, save or cp) after it happened, so a
	// journaling host can record how to undo it. nil means nobody records, and no prior
	// content is read.
	OnChange func(ctx context.Context, c Change)
	// Emit is called after language code emits v on a user.* channel
	// (channel(name).emit(v), stream.into(channel)), so a host can carry
	// it to its own event bus. Other channels stay session-local. Events
	// injected with [Evaluator.Publish] are not echoed here.
	Emit func(ctx context.Context, channel string, v value.Value)
}

// Position says how the final statement of a program is evaluated.
type Position int

const (
	// Stmt runs every statement in statement position: a failing command
	// in a top-level statement raises cmd_failed.
	Stmt Position = iota
	// Value evaluates a final expression statement in value position, so a
	// failed outcome is returned instead of raised.
	Value
)

// ExitError is returned by [Evaluator.Run] when the program ran `exit N`.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Evaluator is one Shoal session: bindings, cwd, environment, directory
// stack, tasks, channels and module cache. Run must not be called
// concurrently on one Evaluator; Cwd, Environ and Bound are safe from
// other goroutines.
type Evaluator struct {
	opts Options
	host Host

	mu     sync.Mutex // guards cwd, oldpwd, env, dirStack (read by other goroutines)
	cwd    string
	oldpwd string
	env    []string
	dirs   []string
	// reefOverride holds `with reef:` constraints while such a block runs.
	reefOverride map[string]string

	root *scope
	sess *session

	quiet bool // Stdout discards: nothing is streamed live

	// streamed remembers the latest outcome whose stdout already went to
	// Options.Stdout live, so hosts do not print it twice.
	streamed *value.Outcome
}

// New returns an evaluator configured by opts (nil means defaults).
func New(opts *Options) *Evaluator {
	e := &Evaluator{}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.Host != nil {
		e.host = *e.opts.Host
	}
	// Background tasks write statement output concurrently with the main
	// thread, so the host's writers are serialised here.
	e.quiet = e.opts.Stdout == nil || e.opts.Stdout == io.Discard
	e.opts.Stdout = newLockedWriter(e.opts.Stdout)
	e.opts.Stderr = newLockedWriter(e.opts.Stderr)
	e.cwd = e.opts.Cwd
	if e.cwd == "" {
		e.cwd = "/"
	}
	e.env = append([]string(nil), e.opts.Env...)
	e.root = newScope(nil)
	e.sess = newSession()
	return e
}

// Parse parses src with this session's bound names, so a name bound by an
// earlier Run (or Define) is an expression rather than a command head.
// repl enables it/out and leading-dot lines.
func (e *Evaluator) Parse(src string, repl bool) (*syntax.Program, error) {
	return parseSource(src, &syntax.Options{
		REPL:         repl,
		Bound:        e.Bound,
		CommandBound: e.commandBound,
	})
}

// Run evaluates prog. The value is the last top-level statement's value;
// the first uncaught error aborts the program and is returned as a
// *diag.Error carrying the innermost span and the source text. `exit N`
// returns *ExitError. Cancelling ctx kills every child process tree.
func (e *Evaluator) Run(ctx context.Context, prog *syntax.Program, pos Position) (value.Value, error) {
	if prog == nil {
		return value.Null{}, nil
	}
	if e.host.Gate != nil {
		if err := e.host.Gate(ctx, prog); err != nil {
			return nil, err
		}
	}
	v, err := e.runGuarded(ctx, prog, pos)
	if err != nil {
		return nil, withSrc(err, prog.Src)
	}
	return v, nil
}

// Eval parses src as a script and runs it in statement position.
func (e *Evaluator) Eval(ctx context.Context, src string) (value.Value, error) {
	prog, err := e.Parse(src, false)
	if err != nil {
		return nil, err
	}
	return e.Run(ctx, prog, Stmt)
}

// Close ends the session: every background task (spawn, `cmd &`, on) is
// cancelled and its processes are killed. Close does not wait for them.
func (e *Evaluator) Close() {
	e.sess.close()
}

// Publish injects v as an event on the session's channel name, as a
// language emit would, without calling Host.Emit (a host forwards its
// own bus's events this way). Safe from other goroutines.
func (e *Evaluator) Publish(channel string, v value.Value) {
	e.sess.channel(channel).emit(v, e.now())
}

// Define binds name to v in the session's root scope (args, script, it,
// out). A later Parse treats name as value-bound.
func (e *Evaluator) Define(name string, v value.Value) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.root.declare(name, v, true)
}

// Bound reports whether name is value-bound in the session's root scope.
func (e *Evaluator) Bound(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.root.lookupLocal(name)
	return b != nil && !b.cmd
}

func (e *Evaluator) commandBound(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.root.lookupLocal(name)
	return b != nil && b.cmd
}

// Cwd returns the session's current directory.
func (e *Evaluator) Cwd() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cwd
}

// Environ returns a copy of the session environment as KEY=VALUE strings.
func (e *Evaluator) Environ() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.env...)
}

func (e *Evaluator) now() time.Time {
	if e.host.Now != nil {
		return e.host.Now()
	}
	return time.Now()
}

// getenv reads the session environment.
func (e *Evaluator) getenv(name string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.env) - 1; i >= 0; i-- {
		kv := e.env[i]
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.HasPrefix(kv, name) {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// setenv sets a session environment variable, replacing earlier entries.
func (e *Evaluator) setenv(name, val string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.env[:0:0]
	for _, kv := range e.env {
		if !(len(kv) > len(name) && kv[len(name)] == '=' && strings.HasPrefix(kv, name)) {
			out = append(out, kv)
		}
	}
	e.env = append(out, name+"="+val)
}

// runGuarded runs prog and turns a panic (a broken invariant somewhere
// below) into a language error, so one bad program cannot take down a
// kernel serving many sessions.
func (e *Evaluator) runGuarded(ctx context.Context, prog *syntax.Program, pos Position) (v value.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, diag.New(diag.Custom, "internal error: %v", r)
		}
	}()
	return e.runProgram(ctx, prog, pos)
}

// Streamed reports whether v is a command outcome whose output was
// already written to Options.Stdout (a statement-position command), so a
// host rendering the final value of Run should not print it again.
func (e *Evaluator) Streamed(v value.Value) bool {
	o, ok := v.(*value.Outcome)
	if !ok {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return o == e.streamed
}

func (e *Evaluator) markStreamed(o *value.Outcome) {
	e.mu.Lock()
	e.streamed = o
	e.mu.Unlock()
}

// withSrc attaches the source text to a language error that has none (a
// copy, like spanned).
func withSrc(err error, src string) error {
	d, ok := err.(*diag.Error)
	if !ok || d.Src != "" {
		return err
	}
	c := *d
	c.Src = src
	return &c
}

// lockedWriter serialises writes to a host writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func newLockedWriter(w io.Writer) io.Writer {
	if w == nil || w == io.Discard {
		return io.Discard
	}
	return &lockedWriter{w: w}
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
