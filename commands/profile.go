package commands

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
)

// startProfile starts a CPU profile when SHOAL_CPUPROFILE names a path prefix; the profile
// goes to PREFIX.<mode>.<pid>.pprof (so a facade and the kernel it starts do not collide)
// and is written when the process ends normally (a kernel on SIGTERM). A diagnostic for
// measuring the daemons as they really run; see docs/kernel.md.
func startProfile(argv []string, stderr io.Writer) func() {
	prefix := os.Getenv("SHOAL_CPUPROFILE")
	if prefix == "" {
		return func() {}
	}
	mode := "shell"
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			mode = a
			break
		}
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
