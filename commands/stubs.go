package commands

import "github.com/spf13/cobra"

func newKernelCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "kernel",
		Short: "Run the long-lived session kernel on a Unix socket",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return notYet("kernel") },
	}
}

func newSandboxExecCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:                "__sandbox-exec",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return notYet("__sandbox-exec") },
	}
}
