// Package commands is the cobra command tree of the shoal executable:
// flags, environment and configuration become Options for the packages
// that do the work, and errors become exit codes (0 success, the child's
// status for an uncaught cmd_failed, 1 other runtime errors, 2 parse errors
// and bad usage). It may import anything; only main.go and e2e import it.
package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/leash/sandbox"
)

// Version is the shoal version, overridable at link time.
var Version = "0.1.0-dev"

// exitError carries an exit code out of a RunE.
type exitError struct {
	code int
	msg  string // printed on stderr when non-empty
}

func (e *exitError) Error() string { return e.msg }

// usageError marks bad usage (exit 2, usage on stderr).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

// stdio is the process's standard streams, passed explicitly so tests and
// e2e can drive Main in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	lookup   func(string) (string, bool)
}

// Main runs shoal with argv (argv[0] included) and returns the exit code.
func Main(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The sandbox helper runs once per confined spawn: skip building the
	// command tree (it does not return on success: it becomes the target).
	if len(argv) > 1 && argv[1] == sandbox.HelperCommand {
		return sandbox.Main(argv[2:])
	}
	defer startProfile(argv, stderr)()
	io := &stdio{in: stdin, out: stdout, err: stderr, lookup: os.LookupEnv}
	root := newRoot(io)
	root.SetArgs(argsFor(root, argv))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		return ee.code
	}
	// Anything else reaching here is a usage problem reported by cobra
	// (unknown flag or command, bad arity) or by our own argument checks.
	if cmd == nil {
		cmd = root
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
	fmt.Fprint(stderr, cmd.UsageString())
	return 2
}

// argsFor turns argv into the cobra argument list: a link named
// shoal-<sub> (shoal-kernel, shoal-mcp, shoal-token) behaves like
// `shoal <sub>`; any other name is plain shoal.
func argsFor(root *cobra.Command, argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	if sub, ok := strings.CutPrefix(filepath.Base(argv[0]), root.Name()+"-"); ok {
		if c, _, err := root.Find([]string{sub}); err == nil && c != root {
			return append([]string{sub}, argv[1:]...)
		}
	}
	return argv[1:]
}

func newRoot(io *stdio) *cobra.Command {
	opts := &runOptions{}
	root := &cobra.Command{
		Use:   "shoal [SCRIPT [ARG...]]",
		Short: "Shoal: a structured shell for humans and AI agents",
		Long: `Shoal is a shell language with typed values. Run a script, evaluate a
command string with -c, pipe source on stdin, or start the REPL on a terminal.`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShell(cmd, io, opts, args)
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetVersionTemplate("shoal {{.Version}}\n")
	// Flags after the script name belong to the script.
	root.Flags().SetInterspersed(false)
	root.Flags().StringVarP(&opts.command, "command", "c", "", "evaluate `SRC` and exit")
	root.Flags().StringVar(&opts.render, "render", "", "how to print the final value: inline, pretty or json")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newKernelCmd(io),
		newMCPCmd(io),
		newTokenCmd(io),
		newVersionCmd(io),
		newCompletionCmd(io),
		newLinksCmd(io),
		newSandboxExecCmd(io),
		newFmtCmd(io),
	)
	return root
}

func newVersionCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the shoal version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "shoal %s\n", Version)
			return nil
		},
	}
}

func newCompletionCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish",
		Short:     "Print a shell completion script",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			out := cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return &usageError{fmt.Errorf("unknown shell %q (want bash, zsh or fish)", args[0])}
		},
	}
}

// linkNames are the multicall names `shoal links` creates.
var linkNames = []string{"shoal-kernel", "shoal-mcp", "shoal-token"}

func newLinksCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "links DIR",
		Short: "Create the shoal-kernel, shoal-mcp and shoal-token links in DIR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return &exitError{1, fmt.Sprintf("shoal links: %v", err)}
			}
			if exe, err = filepath.EvalSymlinks(exe); err != nil {
				return &exitError{1, fmt.Sprintf("shoal links: %v", err)}
			}
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return &exitError{1, fmt.Sprintf("shoal links: %v", err)}
			}
			for _, name := range linkNames {
				p := filepath.Join(args[0], name)
				if fi, err := os.Lstat(p); err == nil {
					if fi.Mode()&os.ModeSymlink == 0 {
						return &exitError{1, fmt.Sprintf("shoal links: %s exists and is not a link", p)}
					}
					if err := os.Remove(p); err != nil {
						return &exitError{1, fmt.Sprintf("shoal links: %v", err)}
					}
				}
				if err := os.Symlink(exe, p); err != nil {
					return &exitError{1, fmt.Sprintf("shoal links: %v", err)}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s -> %s\n", p, exe)
			}
			return nil
		},
	}
}

// notYet is the honest answer of a subcommand whose feature has not landed.
func notYet(name string) error {
	return &exitError{1, fmt.Sprintf("shoal %s: not available yet", name)}
}
