package commands

import (
	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/leash/sandbox"
)

// newSandboxExecCmd is the hidden helper a confined spawn re-execs: it
// restricts itself with Landlock and execs the target (leash/sandbox).
// Main short-circuits to it before the cobra tree is built, to keep each
// confined spawn cheap; the command exists so usage and help know it.
func newSandboxExecCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:                sandbox.HelperCommand,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{code: sandbox.Main(args)}
		},
	}
}
