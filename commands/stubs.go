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

func newMCPCmd(io *stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol on stdio, backed by the kernel",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return notYet("mcp") },
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
