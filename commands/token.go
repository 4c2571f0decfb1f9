package commands

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/tokens"
)

type tokenOptions struct {
	store string
	caps  []string
	ttl   int64
}

func newTokenCmd(io *stdio) *cobra.Command {
	opts := &tokenOptions{}
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke bearer tokens for agent principals",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return &usageError{errors.New("missing subcommand (create, list or revoke)")}
		},
	}
	cmd.PersistentFlags().StringVar(&opts.store, "store", "", "token store `PATH` (default $SHOAL_TOKEN_STORE or <state dir>/tokens.json)")
	create := &cobra.Command{
		Use:   "create PRINCIPAL [PROFILE]",
		Short: "Mint a token; the secret is printed once on stdout",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openTokenStore(io, opts)
			if err != nil {
				return err
			}
			profile := tokens.DefaultProfile
			if len(args) == 2 {
				profile = args[1]
			}
			var ttl *time.Duration
			if cmd.Flags().Changed("ttl") {
				d := time.Duration(opts.ttl) * time.Second
				ttl = &d
			}
			secret, tok, err := s.Create(args[0], profile, opts.caps, ttl)
			if err != nil {
				return tokenErr(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			fmt.Fprintln(cmd.ErrOrStderr(), tokens.CreatedLine(tok.ID))
			return nil
		},
	}
	create.Flags().StringArrayVar(&opts.caps, "cap", nil, "capability label `V` (repeatable; labels never grant anything)")
	create.Flags().Int64Var(&opts.ttl, "ttl", 0, "lifetime in `SECONDS` (<= 0: born expired)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List tokens: ID, principal, profile and state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openTokenStore(io, opts)
			if err != nil {
				return err
			}
			toks, err := s.List()
			if err != nil {
				return tokenErr(err)
			}
			now := time.Now().UnixNano()
			for _, t := range toks {
				fmt.Fprintln(cmd.OutOrStdout(), tokens.ListLine(t, now))
			}
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token by id",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openTokenStore(io, opts)
			if err != nil {
				return err
			}
			if err := s.Revoke(args[0]); err != nil {
				return tokenErr(err)
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{create, list, revoke} {
		c.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func openTokenStore(io *stdio, opts *tokenOptions) (*tokens.Store, error) {
	path := client.TokenStorePath(opts.store, io.lookup)
	s, err := tokens.Open(path, nil)
	if err != nil {
		return nil, tokenErr(err)
	}
	return s, nil
}

func tokenErr(err error) error {
	return &exitError{1, "shoal token: " + strings.TrimPrefix(err.Error(), "tokens: ")}
}
