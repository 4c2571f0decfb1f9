package sandbox

import (
	"flag"
	"os/exec"
	"testing"

	"github.com/shoal-sh/shoal/leash"
)

// helperBin lets the spawn benchmarks use the real shoal binary as the
// helper: go test -bench Spawn ./leash/sandbox -args -helper=/path/to/shoal
var helperBin = flag.String("helper", "", "binary implementing "+HelperCommand+" (default: this test binary)")

func benchSandbox(b *testing.B) *Sandbox {
	s := needLandlock(b, 4)
	if *helperBin != "" {
		s = New(&Options{Exe: *helperBin})
	}
	return s
}

func benchSpawn(b *testing.B, s *Sandbox, spec leash.Spec) {
	for b.Loop() {
		cmd := exec.Command("sh", "-c", "true")
		if s != nil {
			if _, err := s.Wrap(cmd, spec); err != nil {
				b.Fatal(err)
			}
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnUnconfined is the baseline: sh -c true, no helper.
func BenchmarkSpawnUnconfined(b *testing.B) { benchSpawn(b, nil, leash.Spec{}) }

// BenchmarkSpawnConfined runs the same through the helper with a
// filesystem and TCP sandbox. The helper here is the test binary, so the
// difference measures the re-exec plus Landlock setup.
func BenchmarkSpawnConfined(b *testing.B) {
	s := benchSandbox(b)
	benchSpawn(b, s, leash.Spec{FS: true, Read: systemRoots(), Write: []string{b.TempDir()},
		RestrictConnect: true, ConnectPorts: []int{443}, RestrictBind: true})
}

// BenchmarkSpawnPinned adds hashing the target through its descriptor.
func BenchmarkSpawnPinned(b *testing.B) {
	s := benchSandbox(b)
	benchSpawn(b, s, leash.Spec{FS: true, Read: systemRoots(), Pin: true, PinNames: []string{"sh"}})
}

// BenchmarkStartHelperBinary is the floor under the helper's cost:
// starting the (test) binary and exiting before doing any work.
func BenchmarkStartHelperBinary(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/proc/self/exe", testNoop).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnConfinedThread is BenchmarkSpawnConfined through Start:
// confinement on a sacrificial thread, no re-exec.
func BenchmarkSpawnConfinedThread(b *testing.B) {
	s := needLandlock(b, 4)
	spec := leash.Spec{FS: true, Read: systemRoots(), Write: []string{b.TempDir()},
		RestrictConnect: true, ConnectPorts: []int{443}, RestrictBind: true}
	for b.Loop() {
		cmd := exec.Command("sh", "-c", "true")
		if _, err := s.Start(cmd, spec); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnPinnedThread adds hashing sh through its descriptor.
func BenchmarkSpawnPinnedThread(b *testing.B) {
	s := needLandlock(b, 4)
	spec := leash.Spec{FS: true, Read: systemRoots(), Pin: true, PinNames: []string{"sh"}}
	for b.Loop() {
		cmd := exec.Command("sh", "-c", "true")
		if _, err := s.Start(cmd, spec); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
