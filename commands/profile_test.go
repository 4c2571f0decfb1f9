package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SHOAL_CPUPROFILE writes a gzipped pprof profile named after the mode and the pid.
func TestCPUProfileEnv(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "p")
	t.Setenv("SHOAL_CPUPROFILE", prefix)
	for _, tc := range []struct {
		argv []string
		mode string
	}{
		{[]string{"/usr/bin/shoal-kernel"}, "kernel"},
		{[]string{"shoal", "mcp", "--session", "x"}, "mcp"},
		{[]string{"shoal", "-c", "1"}, "shell"},
	} {
		stop := startProfile(tc.argv, os.Stderr)
		stop()
		path := fmt.Sprintf("%s.%s.%d.pprof", prefix, tc.mode, os.Getpid())
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Fatalf("%v: profile %s: %d bytes, %v", tc.argv, path, len(data), err)
		}
	}
	t.Setenv("SHOAL_CPUPROFILE", "")
	startProfile([]string{"shoal"}, os.Stderr)() // unset: nothing to stop, no file
}
