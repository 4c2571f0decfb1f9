package kernel_test

import (
	"os"
	"testing"

	"github.com/shoal-sh/shoal/leash/sandbox"
)

// TestMain lets this test binary serve as the sandbox helper. A confined or pinned spawn
// re-execs /proc/self/exe with sandbox.HelperCommand, as the shoal binary's hidden
// subcommand expects; without this the test binary would run its whole suite in the child
// instead of the command (leaving temporary directories and kernels behind).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
