package kernel

import (
	"errors"
	"fmt"
	"strconv"

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

// Policy answers the capability questions the kernel asks before acting. The default is the
// permissive local policy: every effect allowed, nothing confined. The security engineer's
// Leash policy plugs in here.
type Policy interface {
	// Describe reports an identity's capability summary for session.attach.
	Describe(id Identity) PolicyInfo
	// Allows reports whether id may perform an effect kind with no payload (journal_read,
	// env_read of every name, session_write).
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
}

// permissive is the built-in policy without --policy: the local human may do everything;
// nothing is confined by the OS, and the summary says so.
type permissive struct{ local string }

func (p permissive) Describe(id Identity) PolicyInfo {
	op := "allow"
	if !id.Local {
		op = "deny"
	}
	return PolicyInfo{Tier: "B", Opaque: op, PolicyPrincipal: id.Principal}
}

func (p permissive) Allows(id Identity, kind string) bool { return id.Local }
func (p permissive) ReadAll(id Identity) bool             { return id.Local }

// TokenAuthenticator verifies secrets against a tokens.json file, re-reading it when it
// changes (so tokens created or revoked after start take effect at once).
func TokenAuthenticator(path string) Authenticator { return tokenAuth{v: tokens.NewVerifier(path, nil)} }

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
