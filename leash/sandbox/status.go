package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/shoal-sh/shoal/leash"
)

// Tiers of OS enforcement.
const (
	TierA    = "A"    // Linux with Landlock
	TierB    = "B"    // Linux without Landlock: nothing is confined
	TierNone = "none" // active tier of a spawn that runs unconfined
)

// Network enforcement levels reported in [Status].
const (
	NetPorts = "ports" // TCP connect/bind ports enforced; host names are not
	NetNone  = "none"
)

// HelperCommand is the hidden subcommand that runs [Main].
const HelperCommand = "__sandbox-exec"

// Options configures a [Sandbox]. A nil *Options means defaults.
type Options struct {
	// DisableLandlock makes the sandbox behave as on a host without
	// Landlock (tier B). Tests use it; the status must say so.
	DisableLandlock bool
	// Exe is the executable that implements [HelperCommand]. Empty means
	// "/proc/self/exe", the running binary.
	Exe string
	// Argv0 is the helper's argv[0]. Empty means "shoal"; it must not
	// name a multicall personality such as shoal-kernel.
	Argv0 string
	// HelperArgs are inserted before [HelperCommand]; tests use them to
	// route a re-executed test binary. Normally empty.
	HelperArgs []string
}

// Status is the honest account of how a spawn is confined; it appears in
// session.attach (caps.enforcement), explain, and journal metadata.
type Status struct {
	AvailableTier      string `json:"available_tier"`
	ActiveTier         string `json:"active_tier"`
	Enforced           bool   `json:"enforced"`
	FilesystemEnforced bool   `json:"filesystem_enforced"`
	NetworkEnforced    string `json:"network_enforced"`
	SpawnExecEnforced  bool   `json:"spawn_exec_enforced"`
	LandlockABI        int    `json:"landlock_abi"`
	Detail             string `json:"detail"`
}

// ErrNotEnforceable is returned for a hermetic spec that asks for a
// dimension this host cannot enforce.
var ErrNotEnforceable = errors.New("sandbox cannot be enforced on this host")

// Sandbox is the probed host plus configuration; it is immutable and safe
// for concurrent use.
type Sandbox struct {
	opts     Options
	abi      int
	disabled bool
}

// New probes the host's Landlock support once.
func New(opts *Options) *Sandbox {
	s := &Sandbox{}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.DisableLandlock {
		s.disabled = true
	} else {
		s.abi = landlockABI()
	}
	if s.opts.Exe == "" {
		s.opts.Exe = "/proc/self/exe"
	}
	if s.opts.Argv0 == "" {
		s.opts.Argv0 = "shoal"
	}
	return s
}

// ABI returns the Landlock ABI in use, 0 when unavailable or disabled.
func (s *Sandbox) ABI() int { return s.abi }

// AvailableTier is the host tier: A with Landlock, B without.
func (s *Sandbox) AvailableTier() string {
	if s.abi >= 1 {
		return TierA
	}
	return TierB
}

// Status reports how spec would be enforced by a spawn on this host.
func (s *Sandbox) Status(spec leash.Spec) Status {
	st := Status{AvailableTier: s.AvailableTier(), ActiveTier: TierNone, NetworkEnforced: NetNone, LandlockABI: s.abi}
	var notes []string
	switch {
	case s.disabled:
		notes = append(notes, "landlock disabled by configuration")
	case s.abi == 0:
		notes = append(notes, "landlock unavailable on this kernel")
	default:
		notes = append(notes, fmt.Sprintf("landlock ABI %d", s.abi))
	}
	if !spec.Concrete() {
		notes = append(notes, "policy lowers to no sandbox: child runs unconfined")
		st.Detail = strings.Join(notes, "; ")
		return st
	}
	ll := s.abi >= 1
	if spec.FS {
		st.FilesystemEnforced = ll
		switch {
		case !ll:
			notes = append(notes, "filesystem NOT enforced")
		case s.abi < 3:
			// Before ABI 3 Landlock cannot restrict truncate(2).
			notes = append(notes, "filesystem enforced except truncation (needs landlock ABI 3)")
		}
	}
	if spec.RestrictConnect || spec.RestrictBind {
		if s.abi >= 4 {
			st.NetworkEnforced = NetPorts
			notes = append(notes, "network: TCP ports only, host names not enforced, UDP not enforced")
		} else {
			notes = append(notes, "network NOT enforced (needs landlock ABI 4)")
		}
	} else {
		notes = append(notes, "network unrestricted by policy")
	}
	if spec.Pin {
		// On Linux the helper hashes and executes the same descriptor;
		// elsewhere it can only check, then exec by name.
		st.SpawnExecEnforced = fdExec
		notes = append(notes, "pinning covers the directly spawned binary, not programs it runs")
	}
	if st.FilesystemEnforced || st.NetworkEnforced == NetPorts {
		st.ActiveTier = TierA
	}
	st.Enforced = (!spec.FS || st.FilesystemEnforced) &&
		(!(spec.RestrictConnect || spec.RestrictBind) || st.NetworkEnforced == NetPorts)
	if spec.Hermetic && !st.Enforced {
		notes = append(notes, "hermetic: spawn refused")
	}
	st.Detail = strings.Join(notes, "; ")
	return st
}

// Check returns an error wrapping [ErrNotEnforceable] when spec is
// hermetic and this host cannot enforce every dimension it requests.
func (s *Sandbox) Check(spec leash.Spec) error {
	if !spec.Hermetic {
		return nil
	}
	if st := s.Status(spec); !st.Enforced {
		return fmt.Errorf("%w: %s", ErrNotEnforceable, st.Detail)
	}
	return nil
}

// Enforcement is the caps.enforcement object of session.attach.
type Enforcement struct {
	Filesystem bool `json:"filesystem"`
	Network    bool `json:"network"`
	SpawnExec  bool `json:"spawn_exec"`
}

// Enforcement condenses the status to the three booleans attach reports.
func (st Status) Enforcement() Enforcement {
	return Enforcement{
		Filesystem: st.FilesystemEnforced,
		Network:    st.NetworkEnforced == NetPorts,
		SpawnExec:  st.SpawnExecEnforced,
	}
}

// CapsEnforced is session.attach's caps_enforced: true only on tier A and
// only when the principal's policy lowers to a concrete sandbox that this
// host enforces in full. The permissive local policy therefore gives false.
func (s *Sandbox) CapsEnforced(spec leash.Spec) bool {
	return s.AvailableTier() == TierA && spec.Concrete() && s.Status(spec).Enforced
}

// Exists reports whether path exists on this host; it is the Exists
// function [leash.LowerOptions] wants.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Lower lowers a principal's grants against this host's filesystem.
func Lower(pr *leash.Principal, home string) leash.Spec {
	return pr.Lower(&leash.LowerOptions{Home: home, Exists: Exists})
}
