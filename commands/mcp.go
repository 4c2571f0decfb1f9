package commands

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/mcp"
)

type mcpOptions struct {
	socket, session, token string
}

func newMCPCmd(io *stdio) *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol on stdio, backed by the kernel",
		Long: `shoal mcp speaks MCP (2025-06-18) on stdin/stdout and forwards to the kernel
on the session socket, starting a kernel (this same executable) when none listens.
Environment: SHOAL_SOCKET, SHOAL_SESSION, SHOAL_TOKEN, SHOAL_NO_AUTOSTART (flags win).
stdout carries only protocol frames; logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd, io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.socket, "socket", "", "kernel socket `PATH` (default: derived from the session)")
	cmd.Flags().StringVar(&opts.session, "session", "", "session `NAME` (default \"default\")")
	cmd.Flags().StringVar(&opts.token, "token", "", "bearer `TOKEN` for session.attach")
	return cmd
}

func runMCP(cmd *cobra.Command, io *stdio, opts *mcpOptions) error {
	env := func(name string) string { v, _ := io.lookup(name); return v }
	if env("GOMAXPROCS") == "" {
		// The facade relays one JSON line to another; with one P its goroutines hand off on
		// one thread instead of waking (and spinning) a second, which cut its CPU per call by
		// a third and the p50 of shoal_exec by ~20% on 2 cores (docs/architecture.md). The kernel it
		// starts is a separate process and keeps every core.
		runtime.GOMAXPROCS(1)
	}
	session := firstNonEmpty(opts.session, env("SHOAL_SESSION"), "default")
	socket := client.SocketPath(firstNonEmpty(opts.socket, env("SHOAL_SOCKET")), session, os.Geteuid(), io.lookup)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := mcp.Serve(ctx, io.in, io.out, &mcp.Options{
		Socket:      socket,
		Session:     session,
		Token:       firstNonEmpty(opts.token, env("SHOAL_TOKEN")),
		NoAutostart: env("SHOAL_NO_AUTOSTART") != "",
		Version:     Version,
		Logger:      slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil && ctx.Err() == nil && err != context.Canceled {
		return &exitError{1, fmt.Sprintf("shoal mcp: %v", err)}
	}
	return nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
