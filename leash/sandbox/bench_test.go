package sandbox

import (
	"os/exec"
	"testing"

	"github.com/shoal-sh/shoal/leash"
)

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
	s := needLandlock(b, 4)
	benchSpawn(b, s, leash.Spec{FS: true, Read: systemRoots(), Write: []string{b.TempDir()},
		RestrictConnect: true, ConnectPorts: []int{443}, RestrictBind: true})
}

// BenchmarkSpawnPinned adds hashing the target through its descriptor.
func BenchmarkSpawnPinned(b *testing.B) {
	s := needLandlock(b, 4)
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
