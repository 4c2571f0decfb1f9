package commands

import "github.com/spf13/cobra"

func newSandboxExecCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:                "__sandbox-exec",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return notYet("__sandbox-exec") },
	}
}
