package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"

	"github.com/shoal-sh/shoal/leash"
)

// payloadVersion guards against a helper from a different build.
const payloadVersion = 1

// payload is what the parent hands the helper in its first argument.
type payload struct {
	V    int        `json:"v"`
	Spec leash.Spec `json:"spec"`
	// ABI is the Landlock ABI to use; 0 means do not use Landlock.
	ABI int `json:"abi"`
	// Path is the resolved executable; argv[0] stays what the caller gave.
	Path string `json:"path"`
}

// Wrap rewrites cmd, which must not have started, so that it runs under
// spec, and returns the status to report for the spawn. A spec that is
// not concrete, or that this host cannot enforce at all and does not pin,
// leaves cmd untouched: the helper would add cost and no confinement. A
// hermetic spec that cannot be enforced fails with [ErrNotEnforceable].
func (s *Sandbox) Wrap(cmd *exec.Cmd, spec leash.Spec) (Status, error) {
	if cmd.Err != nil {
		return Status{}, cmd.Err
	}
	if cmd.Process != nil {
		return Status{}, errors.New("sandbox: command already started")
	}
	if cmd.Path == "" || len(cmd.Args) == 0 {
		return Status{}, errors.New("sandbox: command has no path or argv")
	}
	if err := s.Check(spec); err != nil {
		return Status{}, err
	}
	st := s.Status(spec)
	eff := effective(spec, st)
	if !eff.Concrete() {
		return st, nil
	}
	p := payload{V: payloadVersion, Spec: eff, Path: cmd.Path}
	if st.ActiveTier == TierA {
		p.ABI = s.abi
	}
	b, err := json.Marshal(p)
	if err != nil {
		return Status{}, fmt.Errorf("sandbox: encode spec: %w", err)
	}
	args := make([]string, 0, len(cmd.Args)+len(s.opts.HelperArgs)+4)
	args = append(args, s.opts.Argv0)
	args = append(args, s.opts.HelperArgs...)
	args = append(args, HelperCommand, string(b), "--")
	args = append(args, cmd.Args...)
	cmd.Path, cmd.Args = s.opts.Exe, args
	return st, nil
}

// effective drops from spec what this host cannot enforce; Check has
// already refused hermetic specs, and the status says what was dropped.
func effective(spec leash.Spec, st Status) leash.Spec {
	if st.NetworkEnforced != NetPorts {
		spec.RestrictConnect, spec.ConnectPorts = false, nil
		spec.RestrictBind, spec.BindPorts = false, nil
	}
	if !st.FilesystemEnforced {
		spec.FS, spec.Read, spec.Write, spec.Delete = false, nil, nil, nil
	}
	return spec
}
