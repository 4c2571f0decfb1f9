//go:build linux

package sandbox

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/shoal-sh/shoal/leash"
)

func TestStartRejectsPdeathsig(t *testing.T) {
	t.Parallel()
	s := needLandlock(t, 1)
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if _, err := s.Start(cmd, leash.Spec{FS: true, Read: systemRoots()}); err == nil || cmd.Process != nil {
		t.Errorf("Start with Pdeathsig = %v", err)
	}
}
