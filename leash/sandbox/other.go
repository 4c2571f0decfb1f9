//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/shoal-sh/shoal/leash"
)

// Without Linux there is no Landlock: the host is reported unconfined and
// hermetic specs are refused by [Sandbox.Check].

func landlockABI() int { return 0 }

func restrictSelf(leash.Spec, int) error { return errors.New("landlock is Linux-only") }

type target struct {
	path string
	hash string
}

func openTarget(path string, hash bool) (*target, error) {
	t := &target{path: path}
	if hash {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if t.hash, err = hashReader(f); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *target) exec(argv, env []string) error { return syscall.Exec(t.path, argv, env) }

const fdExec = false

// Start falls back to the helper where threads cannot be confined alone.
func (s *Sandbox) Start(cmd *exec.Cmd, spec leash.Spec) (Status, error) {
	st, err := s.Wrap(cmd, spec)
	if err != nil {
		return st, err
	}
	return st, cmd.Start()
}
