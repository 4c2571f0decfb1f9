package commands

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash/sandbox"
)

type kernelOptions struct {
	session, socket, stateDir, policy, tokenStore string
	requireToken, noLandlock                      bool
}

func newKernelCmd(io *stdio) *cobra.Command {
	opts := &kernelOptions{}
	cmd := &cobra.Command{
		Use:   "kernel",
		Short: "Run the long-lived session kernel on a Unix socket",
		Long: `shoal kernel serves newline-delimited JSON-RPC 2.0 on a Unix socket: named sessions,
transcripts (out:N), tasks, PTYs, events, plans, and a SQLite journal with a content store
that survive restarts. It prints "shoal-kernel: ready <socket>" on stderr once it accepts
connections and removes the socket on SIGINT/SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKernel(cmd, io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.session, "session", "default", "session `NAME` (names the default socket only)")
	f.StringVar(&opts.socket, "socket", "", "socket `PATH` (default $XDG_RUNTIME_DIR/shoal/<session>.sock, …)")
	f.StringVar(&opts.stateDir, "state-dir", "", "state `DIR` for the journal and content store (default $XDG_STATE_HOME/shoal)")
	f.StringVar(&opts.policy, "policy", "", "Leash policy `FILE` (TOML); default: permissive for the local user only")
	f.StringVar(&opts.tokenStore, "token-store", "", "token store `PATH` (default $SHOAL_TOKEN_STORE or <state dir>/tokens.json)")
	f.BoolVar(&opts.requireToken, "require-token", false, "refuse tokenless attach (also SHOAL_REQUIRE_TOKEN)")
	// Tests and host diagnosis: behave as on a host without Landlock; attach says so.
	f.BoolVar(&opts.noLandlock, "no-landlock", false, "run as on a host without Landlock (tier B)")
	_ = f.MarkHidden("no-landlock")
	return cmd
}

func runKernel(cmd *cobra.Command, io *stdio, opts *kernelOptions) error {
	env := func(name string) string { v, _ := io.lookup(name); return v }
	stateDir := opts.stateDir
	if stateDir == "" {
		stateDir = client.StateDir(io.lookup)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return &exitError{1, fmt.Sprintf("shoal kernel: %v", err)}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = kernel.Run(ctx, &kernel.Options{
		Socket:       client.SocketPath(opts.socket, opts.session, os.Geteuid(), io.lookup),
		StateDir:     stateDir,
		Session:      opts.session,
		PolicyFile:   opts.policy,
		TokenStore:   client.TokenStorePath(opts.tokenStore, io.lookup),
		RequireToken: opts.requireToken || env("SHOAL_REQUIRE_TOKEN") != "",
		Sandbox:      &sandbox.Options{DisableLandlock: opts.noLandlock},
		Ready:        func(path string) { fmt.Fprintf(io.err, "shoal-kernel: ready %s\n", path) },
		Logger:       slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Cwd:          cwd,
		Env:          os.Environ(),
		MarshalAST:   syntax.MarshalProgram,
	})
	if err != nil {
		return &exitError{1, fmt.Sprintf("shoal kernel: %v", err)}
	}
	return nil
}
