package commands

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
)

// startProfile starts a CPU profile when SHOAL_CPUPROFILE names a path prefix; the profile
// goes to PREFIX.<mode>.<pid>.pprof (so a facade and the kernel it starts do not collide)
// and is written when the process ends normally (a kernel on SIGTERM). A diagnostic for
// measuring the daemons as they really run; see docs/architecture.md.
func startProfile(argv []string, stderr io.Writer) func() {
	prefix := os.Getenv("SHOAL_CPUPROFILE")
	if prefix == "" {
		return func() {}
	}
	mode := "shell"
	if sub, ok := strings.CutPrefix(filepath.Base(argv[0]), "shoal-"); ok {
		mode = sub
	} else if len(argv) > 1 && (argv[1] == "kernel" || argv[1] == "mcp" || argv[1] == "token") {
		mode = argv[1]
	}
	f, err := os.Create(fmt.Sprintf("%s.%s.%d.pprof", prefix, mode, os.Getpid()))
	if err != nil {
		fmt.Fprintf(stderr, "shoal: SHOAL_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "shoal: SHOAL_CPUPROFILE: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
