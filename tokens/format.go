package tokens

import "fmt"

// Token states as printed by "shoal token list".
const (
	StateActive  = "active"
	StateRevoked = "revoked"
	StateExpired = "expired"
)

// State reports the token's state at nowNs: revoked wins over expired, and
// a token is expired once nowNs reaches expires_ns.
func (t Token) State(nowNs int64) string {
	switch {
	case t.RevokedNs != nil:
		return StateRevoked
	case t.ExpiresNs != nil && *t.ExpiresNs <= nowNs:
		return StateExpired
	default:
		return StateActive
	}
}

// ListLine is one line of "shoal token list", without the newline:
// ID, principal, profile and state separated by tabs.
func ListLine(t Token, nowNs int64) string {
	return fmt.Sprintf("%s\t%s\t%s\t%s", t.ID, t.Principal, t.Profile, t.State(nowNs))
}

// CreatedLine is the stderr line "shoal token create" prints, without the
// newline; stdout carries only the secret.
func CreatedLine(id string) string {
	return fmt.Sprintf("created %s (secret shown once)", id)
}

// DefaultProfile is the profile "shoal token create" uses when none is given.
const DefaultProfile = "default"
