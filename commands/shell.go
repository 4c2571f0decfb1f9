package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/value"
)

type runOptions struct {
	command string
	render  string
}

// runShell is plain `shoal`: -c SRC, a script file, source on stdin, or
// the REPL when stdin is a terminal.
func runShell(cmd *cobra.Command, io *stdio, opts *runOptions, args []string) error {
	switch opts.render {
	case "", "inline", "pretty", "json":
	default:
		return &usageError{fmt.Errorf("--render must be inline, pretty or json, not %q", opts.render)}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cwd, err := os.Getwd()
	if err != nil {
		return &exitError{1, fmt.Sprintf("shoal: %v", err)}
	}
	ev := eval.New(&eval.Options{
		Cwd:    cwd,
		Env:    os.Environ(),
		Stdout: io.out,
		Stderr: io.err,
	})
	switch {
	case cmd.Flags().Changed("command"):
		bindArgs(ev, "-c", args)
		return runSource(ctx, io, ev, opts.command, opts.render)
	case len(args) > 0:
		src, err := os.ReadFile(args[0])
		if err != nil {
			return &exitError{1, fmt.Sprintf("shoal: %v", err)}
		}
		script, _ := filepath.Abs(args[0])
		bindArgs(ev, script, args[1:])
		return runSource(ctx, io, ev, string(src), opts.render)
	case !isTerminal(io.in):
		src, err := readAll(io.in)
		if err != nil {
			return &exitError{1, fmt.Sprintf("shoal: reading stdin: %v", err)}
		}
		bindArgs(ev, "-", nil)
		return runSource(ctx, io, ev, src, opts.render)
	default:
		return runREPL(ctx, io, ev)
	}
}

func readAll(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	return string(b), err
}

func bindArgs(ev *eval.Evaluator, script string, args []string) {
	items := make([]value.Value, len(args))
	for i, a := range args {
		items[i] = value.Str(a)
	}
	ev.Define("args", &value.List{Items: items})
	ev.Define("script", value.Str(script))
}

// runSource evaluates a whole program non-interactively and prints its
// final value: by default quietly in block form (nothing for null), or as
// --render asks.
func runSource(ctx context.Context, io *stdio, ev *eval.Evaluator, src, render string) error {
	prog, err := ev.Parse(src, false)
	if err != nil {
		return reportError(io, src, err)
	}
	v, err := ev.Run(ctx, prog, eval.Stmt)
	ev.Close() // a script's background tasks end with it
	if err != nil {
		return reportError(io, src, err)
	}
	return printFinal(io, ev, v, render)
}

// printFinal prints the program's final value. The default block form
// skips a command outcome whose output already streamed to stdout, so
// `shoal -c 'echo hi'` prints hi once; inline and json always print, since
// scripts read the last line.
func printFinal(io *stdio, ev *eval.Evaluator, v value.Value, render string) error {
	switch render {
	case "inline":
		fmt.Fprintln(io.out, value.RenderInline(v))
	case "json":
		b, err := value.ToJSON(v, true)
		if err != nil {
			return reportError(io, "", err)
		}
		fmt.Fprintln(io.out, string(b))
	default:
		if _, isNull := v.(value.Null); v == nil || isNull || ev.Streamed(v) {
			return nil
		}
		s := value.RenderBlock(v, terminalWidth(io.out))
		if s != "" {
			fmt.Fprintln(io.out, strings.TrimRight(s, "\n"))
		}
	}
	return nil
}

// reportError prints an uncaught error as a caret diagnostic and picks the
// exit code: 2 for parse errors, the child's status for cmd_failed, 1
// otherwise.
func reportError(io *stdio, src string, err error) error {
	var ex *eval.ExitError
	if errors.As(err, &ex) {
		return &exitError{code: ex.Code}
	}
	d := diag.As(err)
	if d == nil {
		fmt.Fprintf(io.err, "error: %v\n", err)
		return &exitError{code: 1}
	}
	text := d.Src
	if text == "" {
		text = src
	}
	msg := d.Show(text)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(io.err, msg)
	switch {
	case d.Code == diag.ParseError:
		return &exitError{code: 2}
	case d.Code == diag.CmdFailed && d.Status != nil && *d.Status > 0 && *d.Status < 256:
		return &exitError{code: *d.Status}
	}
	return &exitError{code: 1}
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 80
}

// runREPL is the plain line REPL: it keeps reading while the input is
// incomplete, evaluates, prints the block render and binds it and out.
func runREPL(ctx context.Context, io *stdio, ev *eval.Evaluator) error {
	in := bufio.NewReader(io.in)
	var outs []value.Value
	fmt.Fprintf(io.err, "shoal %s — Ctrl-D to exit\n", Version)
	for {
		src, ok := readStatement(io, ev, in)
		if !ok {
			fmt.Fprintln(io.err)
			return nil
		}
		if strings.TrimSpace(src) == "" {
			continue
		}
		prog, err := ev.Parse(src, true)
		if err != nil {
			reportError(io, src, err)
			continue
		}
		v, err := ev.Run(ctx, prog, eval.Stmt)
		if err != nil {
			var ex *eval.ExitError
			if errors.As(err, &ex) {
				return &exitError{code: ex.Code}
			}
			reportError(io, src, err)
			if d := diag.As(err); d != nil {
				v = &value.ErrorVal{Err: d}
			} else {
				continue
			}
		}
		if v == nil {
			v = value.Null{}
		}
		outs = append(outs, v)
		ev.Define("it", v)
		ev.Define("out", &value.List{Items: append([]value.Value(nil), outs...)})
		if _, isNull := v.(value.Null); !isNull && !ev.Streamed(v) {
			fmt.Fprintln(io.out, strings.TrimRight(value.RenderBlock(v, terminalWidth(io.out)), "\n"))
		}
	}
}

// readStatement reads lines until they parse or fail for a reason other
// than ending early.
func readStatement(io *stdio, ev *eval.Evaluator, in *bufio.Reader) (string, bool) {
	var buf strings.Builder
	prompt := "› "
	for {
		fmt.Fprint(io.err, prompt)
		line, err := in.ReadString('\n')
		if line == "" && err != nil {
			if buf.Len() > 0 {
				return buf.String(), true
			}
			return "", false
		}
		buf.WriteString(line)
		if _, perr := ev.Parse(buf.String(), true); perr != nil {
			if d := diag.As(perr); d != nil && d.Partial {
				prompt = "… "
				continue
			}
		}
		return buf.String(), true
	}
}
