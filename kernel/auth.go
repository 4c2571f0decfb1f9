package kernel

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/tokens"
)

// Identity is who an attachment acts as.
type Identity struct {
	Principal string
	Profile   string
	TokenCaps []string
	Local     bool // the kernel's own principal (tokenless)
}

// Authenticator verifies bearer tokens. The tokens package's Verifier fits via
// [TokenAuthenticator].
type Authenticator interface {
	Verify(secret string) (Identity, error)
}

// Policy answers the capability questions the kernel asks before acting. The kernel's own
// implementation is the Leash policy (policy_leash.go): the --policy file, or without one the
// permissive policy for the local principal. Tests may inject another Policy; exec is then
// not gated by effects.
type Policy interface {
	// Describe reports an identity's capability summary for session.attach.
	Describe(id Identity) PolicyInfo
	// Allows reports whether id may perform an effect kind with no payload (journal_read,
	// session_write).
	Allows(id Identity, kind string) bool
	// ReadAll reports whether id may read every principal's journal rows.
	ReadAll(id Identity) bool
}

// PolicyInfo is the attach-time summary of a principal's policy.
type PolicyInfo struct {
	Enforced        bool
	Tier            string
	Opaque          string
	PolicyPrincipal string
	Filesystem      bool
	Network         bool
	SpawnExec       bool
	Sandbox         *proto.SandboxStatus // the host's report for this principal; nil if unknown
}

// TokenAuthenticator verifies secrets against a tokens.json file, re-reading it when it
// changes (so tokens created or revoked after start take effect at once).
func TokenAuthenticator(path string) Authenticator {
	return tokenAuth{v: tokens.NewVerifier(path, nil)}
}

type tokenAuth struct{ v *tokens.Verifier }

func (t tokenAuth) Verify(secret string) (Identity, error) {
	tok, err := t.v.Verify(secret)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Principal: tok.Principal, Profile: tok.Profile, TokenCaps: tok.Caps}, nil
}

// errNoTokens is the attach failure of a kernel without a token store.
var errNoTokens = errors.New("bearer tokens unavailable in ephemeral kernel")

func localIdentity(euid int) Identity {
	return Identity{Principal: "uid:" + strconv.Itoa(euid), Profile: "local-human", TokenCaps: []string{}, Local: true}
}

func authError(err error) error { return fmt.Errorf("auth: %w", err) }
