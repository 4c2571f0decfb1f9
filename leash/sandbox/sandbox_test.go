package sandbox

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shoal-sh/shoal/leash"
	"github.com/zeebo/blake3"
)

// systemRoots are what sh and coreutils need to start.
func systemRoots() []string {
	var roots []string
	for _, r := range []string{"/usr", "/bin", "/lib", "/lib64", "/etc"} {
		if _, err := os.Stat(r); err == nil {
			roots = append(roots, r)
		}
	}
	return roots
}

func needLandlock(t testing.TB, abi int) *Sandbox {
	t.Helper()
	s := New(nil)
	if s.ABI() < abi {
		t.Skipf("needs landlock ABI %d, host has %d", abi, s.ABI())
	}
	return s
}

// startMethods are the two ways to start a confined child; the behaviour
// tests run against both.
type startFunc = func(*Sandbox, *exec.Cmd, leash.Spec) error

var startMethods = []struct {
	name  string
	start startFunc
}{
	{"helper", func(s *Sandbox, cmd *exec.Cmd, spec leash.Spec) error {
		if _, err := s.Wrap(cmd, spec); err != nil {
			return err
		}
		return cmd.Start()
	}},
	{"thread", func(s *Sandbox, cmd *exec.Cmd, spec leash.Spec) error {
		_, err := s.Start(cmd, spec)
		return err
	}},
}

// forEachMethod runs f as a subtest per start method.
func forEachMethod(t *testing.T, f func(t *testing.T, start startFunc)) {
	for _, m := range startMethods {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			f(t, m.start)
		})
	}
}

// runWrapped starts cmd confined by spec through the helper and returns
// stdout, stderr and exit code.
func runWrapped(t *testing.T, s *Sandbox, spec leash.Spec, name string, args ...string) (string, string, int) {
	t.Helper()
	return runWith(t, startMethods[0].start, s, spec, name, args...)
}

func runWith(t *testing.T, start startFunc, s *Sandbox, spec leash.Spec, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := start(s, cmd, spec); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", err.Error(), ee.ExitCode()
		}
		return "", err.Error(), -1
	}
	err := cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out.String(), errb.String(), code
}

func TestFilesystemConfinement(t *testing.T) {
	t.Parallel()
	forEachMethod(t, func(t *testing.T, start startFunc) {
		s := needLandlock(t, 1)
		in, outside := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := leash.Spec{FS: true, Read: systemRoots(), Write: []string{in}}
		script := `echo hello > "$1/a" && cat "$1/a" && mkdir "$1/d" && rm -r "$1/d" && echo done`
		out, errOut, code := runWith(t, start, s, spec, "sh", "-c", script, "sh", in)
		if code != 0 || out != "hello\ndone\n" {
			t.Fatalf("granted dir: code %d out %q err %q", code, out, errOut)
		}
		out, errOut, code = runWith(t, start, s, spec, "sh", "-c", `echo x > "$1/b"`, "sh", outside)
		if code == 0 || !strings.Contains(errOut, "Permission denied") {
			t.Errorf("write outside: code %d err %q", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(outside, "b")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file written outside the sandbox: %v", err)
		}
		_, errOut, code = runWith(t, start, s, spec, "cat", filepath.Join(outside, "secret"))
		if code == 0 || !strings.Contains(errOut, "Permission denied") {
			t.Errorf("read outside: code %d err %q", code, errOut)
		}
		_, errOut, code = runWith(t, start, s, spec, "sh", "-c", `echo x > /dev/null && echo y > "$1/c"`, "sh", "/etc")
		if code == 0 || !strings.Contains(errOut, "Permission denied") {
			t.Errorf("write to read-only root: code %d err %q", code, errOut)
		}
		// The parent stays unconfined.
		if err := os.WriteFile(filepath.Join(outside, "parent"), nil, 0o644); err != nil {
			t.Errorf("parent confined: %v", err)
		}
	})
}

func TestDeleteRoot(t *testing.T) {
	t.Parallel()
	forEachMethod(t, func(t *testing.T, start startFunc) {
		s := needLandlock(t, 1)
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		os.WriteFile(victim, nil, 0o644)
		spec := leash.Spec{FS: true, Read: append(systemRoots(), dir), Delete: []string{dir}}
		if _, errOut, code := runWith(t, start, s, spec, "rm", victim); code != 0 {
			t.Fatalf("delete in delete root: %d %s", code, errOut)
		}
		if _, err := os.Stat(victim); !errors.Is(err, os.ErrNotExist) {
			t.Error("file survived")
		}
		if _, errOut, code := runWith(t, start, s, spec, "touch", filepath.Join(dir, "new")); code == 0 {
			t.Errorf("delete root allowed creating a file: %s", errOut)
		}
	})
}

func TestExitStatusAndPid(t *testing.T) {
	t.Parallel()
	forEachMethod(t, func(t *testing.T, start startFunc) {
		s := needLandlock(t, 1)
		spec := leash.Spec{FS: true, Read: systemRoots()}
		cmd := exec.Command("sh", "-c", `echo $$; exit 7`)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := start(s, cmd, spec); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 7 {
			t.Fatalf("exit: %v", err)
		}
		if got := strings.TrimSpace(out.String()); got != strconv.Itoa(cmd.Process.Pid) {
			t.Errorf("child pid %s, spawned pid %d: helper did not exec in place", got, cmd.Process.Pid)
		}
	})
}

func TestNetworkPorts(t *testing.T) {
	t.Parallel()
	forEachMethod(t, func(t *testing.T, start startFunc) {
		s := needLandlock(t, 4)
		listen := func() (net.Listener, int) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			return l, l.Addr().(*net.TCPAddr).Port
		}
		_, granted := listen()
		_, denied := listen()
		spec := leash.Spec{RestrictConnect: true, ConnectPorts: []int{granted}, RestrictBind: true}
		if st := s.Status(spec); st.NetworkEnforced != NetPorts || !st.Enforced {
			t.Fatalf("status %+v", st)
		}
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runWith(t, start, s, spec, self, testDial, strconv.Itoa(granted))
		if code != 0 || out != "dial ok\n" {
			t.Errorf("granted port: code %d out %q err %q", code, out, errOut)
		}
		out, _, code = runWith(t, start, s, spec, self, testDial, strconv.Itoa(denied))
		if code != 3 || !strings.Contains(out, "permission denied") {
			t.Errorf("denied port: code %d out %q", code, out)
		}
		// Unconfined, the same dial works: the denial came from the sandbox.
		out, _, code = runWith(t, start, s, leash.Spec{}, self, testDial, strconv.Itoa(denied))
		if code != 0 {
			t.Errorf("unconfined dial failed: %q", out)
		}
	})
}

func blake3Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func copyExe(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// refused reports a spawn refused by the sandbox: the helper exits with
// ExitHelperFailed and a "shoal sandbox: " line, in-process Start fails
// before any child runs (runWith reports code -1).
func refused(code int, errOut, why string) bool {
	switch code {
	case ExitHelperFailed:
		return strings.HasPrefix(errOut, "shoal sandbox: ") && strings.Contains(errOut, why)
	case -1:
		return strings.HasPrefix(errOut, "sandbox: ") && strings.Contains(errOut, why)
	}
	return false
}

func TestPinning(t *testing.T) {
	t.Parallel()
	forEachMethod(t, func(t *testing.T, start startFunc) {
		// Pinning does not depend on Landlock; run it on the tier-B path too.
		for _, s := range []*Sandbox{New(nil), New(&Options{DisableLandlock: true})} {
			dir := t.TempDir()
			echo := filepath.Join(dir, "myecho")
			copyExe(t, "/usr/bin/echo", echo)
			hash := blake3Hex(t, echo)

			out, errOut, code := runWith(t, start, s, leash.Spec{Pin: true, PinHashes: []string{hash}}, echo, "pinned")
			if code != 0 || out != "pinned\n" {
				t.Errorf("pinned by hash: code %d out %q err %q", code, out, errOut)
			}
			_, errOut, code = runWith(t, start, s, leash.Spec{Pin: true, PinNames: []string{"git"}}, echo, "x")
			if !refused(code, errOut, "not a pinned binary") {
				t.Errorf("unpinned: code %d err %q", code, errOut)
			}
			out, _, code = runWith(t, start, s, leash.Spec{Pin: true, PinNames: []string{"myecho"}}, echo, "byname")
			if code != 0 || out != "byname\n" {
				t.Errorf("pinned by name: code %d out %q", code, out)
			}
			out, _, code = runWith(t, start, s, leash.Spec{Pin: true, PinPaths: []string{echo}}, echo, "bypath")
			if code != 0 || out != "bypath\n" {
				t.Errorf("pinned by path: code %d out %q", code, out)
			}

			// Modify the binary after the grant: the hash no longer matches.
			f, _ := os.OpenFile(echo, os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte{0})
			f.Close()
			_, errOut, code = runWith(t, start, s, leash.Spec{Pin: true, PinHashes: []string{hash}}, echo, "x")
			if !refused(code, errOut, "not a pinned binary") {
				t.Errorf("modified binary: code %d err %q", code, errOut)
			}

			// Pinning and a filesystem sandbox together: the pinned
			// descriptor must still be executable under Landlock.
			if s.ABI() >= 1 {
				both := leash.Spec{FS: true, Read: append(systemRoots(), dir), Pin: true, PinNames: []string{"myecho"}}
				out, errOut, code = runWith(t, start, s, both, echo, "both")
				if code != 0 || out != "both\n" {
					t.Errorf("pinned and confined: code %d out %q err %q", code, out, errOut)
				}
				_, errOut, code = runWith(t, start, s, leash.Spec{FS: true, Read: systemRoots(), Pin: true, PinNames: []string{"myecho"}}, echo, "x")
				if code == 0 || !strings.Contains(errOut, "ermission denied") {
					t.Errorf("pinned binary outside the read roots ran: code %d err %q", code, errOut)
				}
			}

			// A pinned script runs: its descriptor must survive exec.
			script := filepath.Join(dir, "script")
			os.WriteFile(script, []byte("#!/bin/sh\necho script-ok \"$@\"\n"), 0o755)
			out, errOut, code = runWith(t, start, s, leash.Spec{Pin: true, PinHashes: []string{blake3Hex(t, script)}}, script, "a")
			if code != 0 || out != "script-ok a\n" {
				t.Errorf("pinned script: code %d out %q err %q", code, out, errOut)
			}
		}
	})
}

func TestNoLandlockSwitch(t *testing.T) {
	t.Parallel()
	s := New(&Options{DisableLandlock: true})
	spec := leash.Spec{FS: true, Read: []string{"/usr"}, RestrictConnect: true}
	st := s.Status(spec)
	if st.AvailableTier != TierB || st.ActiveTier != TierNone || st.Enforced || st.FilesystemEnforced ||
		st.NetworkEnforced != NetNone || st.LandlockABI != 0 || !strings.Contains(st.Detail, "landlock disabled") {
		t.Errorf("status %+v", st)
	}
	spec.Hermetic = true
	cmd := exec.Command("true")
	origPath := cmd.Path
	if _, err := s.Wrap(cmd, spec); !errors.Is(err, ErrNotEnforceable) {
		t.Errorf("hermetic Wrap = %v, want ErrNotEnforceable", err)
	}
	if cmd.Path != origPath || len(cmd.Args) != 1 {
		t.Error("refused Wrap modified the command")
	}
	// Non-hermetic: runs unconfined, untouched, and says so.
	spec.Hermetic = false
	cmd = exec.Command("true")
	st, err := s.Wrap(cmd, spec)
	if err != nil || cmd.Path != origPath || st.Enforced {
		t.Errorf("non-hermetic Wrap: %v %s %+v", err, cmd.Path, st)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	s := New(nil)
	if s.ABI() == 0 {
		t.Skip("no landlock")
	}
	cases := []struct {
		name string
		spec leash.Spec
		want Status
	}{
		{"permissive", leash.Spec{}, Status{AvailableTier: TierA, ActiveTier: TierNone, NetworkEnforced: NetNone}},
		{"fs", leash.Spec{FS: true, Read: []string{"/usr"}}, Status{AvailableTier: TierA, ActiveTier: TierA, Enforced: true, FilesystemEnforced: true, NetworkEnforced: NetNone}},
		{"net", leash.Spec{RestrictBind: true}, Status{AvailableTier: TierA, ActiveTier: TierA, Enforced: true, NetworkEnforced: NetPorts}},
		{"pin only", leash.Spec{Pin: true}, Status{AvailableTier: TierA, ActiveTier: TierNone, Enforced: true, NetworkEnforced: NetNone, SpawnExecEnforced: true}},
	}
	for _, tc := range cases {
		got := s.Status(tc.spec)
		tc.want.LandlockABI = s.ABI()
		tc.want.Detail = got.Detail
		if got != tc.want {
			t.Errorf("%s: got %+v\nwant %+v", tc.name, got, tc.want)
		}
		if !strings.Contains(got.Detail, "landlock ABI") {
			t.Errorf("%s: detail %q", tc.name, got.Detail)
		}
	}
	if d := s.Status(leash.Spec{RestrictConnect: true}).Detail; !strings.Contains(d, "host names not enforced") {
		t.Errorf("network detail does not admit the host-name gap: %q", d)
	}
}

func TestWrapUntouchedForPermissive(t *testing.T) {
	t.Parallel()
	s := New(nil)
	cmd := exec.Command("true")
	path := cmd.Path
	if _, err := s.Wrap(cmd, leash.Spec{}); err != nil || cmd.Path != path {
		t.Errorf("permissive spec rewrote the command: %v %s", err, cmd.Path)
	}
	bad := exec.Command("no-such-binary-shoal")
	if _, err := s.Wrap(bad, leash.Spec{Pin: true}); err == nil {
		t.Error("Wrap accepted a command whose lookup failed")
	}
}

func TestHelperBadInput(t *testing.T) {
	t.Parallel()
	// Each of these fails before any exec, so calling Main in-process is safe.
	cases := [][]string{
		nil,
		{"{}"},
		{"{}", "x", "true"},
		{"not json", "--", "true"},
		{`{"v":99}`, "--", "true"},
		{`{"v":1,"path":"/nonexistent/x"}`, "--", "x"},
		{`{"v":1}`, "--", "no-such-binary-shoal"},
	}
	for _, args := range cases {
		if code := Main(args); code != ExitHelperFailed {
			t.Errorf("Main(%q) = %d, want %d", args, code, ExitHelperFailed)
		}
	}
}

func TestCapsEnforced(t *testing.T) {
	t.Parallel()
	fs := leash.Spec{FS: true, Read: []string{"/usr"}}
	if New(&Options{DisableLandlock: true}).CapsEnforced(fs) {
		t.Error("tier B reports caps_enforced")
	}
	s := New(nil)
	if s.CapsEnforced(leash.Spec{}) {
		t.Error("permissive spec reports caps_enforced")
	}
	if s.ABI() > 0 && !s.CapsEnforced(fs) {
		t.Error("enforced fs spec not reported")
	}
	e := Status{FilesystemEnforced: true, NetworkEnforced: NetPorts}.Enforcement()
	if e != (Enforcement{Filesystem: true, Network: true}) {
		t.Errorf("Enforcement = %+v", e)
	}
}

// TestStatusByABI covers hosts older than this one by setting the probed
// ABI directly.
func TestStatusByABI(t *testing.T) {
	t.Parallel()
	net := leash.Spec{RestrictConnect: true, ConnectPorts: []int{443}}
	fs := leash.Spec{FS: true, Read: []string{"/usr"}}
	for abi := 0; abi <= 7; abi++ {
		s := &Sandbox{abi: abi}
		st := s.Status(net)
		wantNet := abi >= 4
		if (st.NetworkEnforced == NetPorts) != wantNet || st.Enforced != wantNet {
			t.Errorf("ABI %d net: %+v", abi, st)
		}
		hermetic := net
		hermetic.Hermetic = true
		if err := s.Check(hermetic); (err == nil) != wantNet {
			t.Errorf("ABI %d hermetic net: Check = %v", abi, err)
		}
		st = s.Status(fs)
		if st.FilesystemEnforced != (abi >= 1) || st.AvailableTier != map[bool]string{true: TierA, false: TierB}[abi >= 1] {
			t.Errorf("ABI %d fs: %+v", abi, st)
		}
		if abi >= 1 && abi < 3 && !strings.Contains(st.Detail, "truncation") {
			t.Errorf("ABI %d: detail hides the truncate gap: %q", abi, st.Detail)
		}
	}
	// Non-hermetic net on ABI 3: Wrap strips the unenforceable rules, and
	// with nothing left the command runs untouched, as the status says.
	cmd := exec.Command("true")
	path := cmd.Path
	st, err := (&Sandbox{abi: 3, opts: Options{Exe: "/proc/self/exe", Argv0: "shoal"}}).Wrap(cmd, net)
	if err != nil || cmd.Path != path || st.NetworkEnforced != NetNone || st.Enforced {
		t.Errorf("ABI 3 Wrap: %v %s %+v", err, cmd.Path, st)
	}
}

func TestLowerAgainstHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := leash.Parse([]byte(`[principal.a]
fs.read = ["/usr/**", "`+dir+`/missing/**", "~/x/**"]
fs.write = ["`+dir+`/**"]
`), &leash.ParseOptions{Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := p.Principal("a")
	spec := Lower(pr, dir)
	if !spec.FS || strings.Join(spec.Read, ",") != "/usr" || strings.Join(spec.Write, ",") != dir {
		t.Errorf("spec %+v", spec)
	}
}

// TestThreadStartIsolation mixes confined in-process starts with plain
// spawns and file writes from other goroutines: confinement must stay with
// the children it was meant for and never leak to the rest of the process.
func TestThreadStartIsolation(t *testing.T) {
	t.Parallel()
	s := needLandlock(t, 1)
	outside := t.TempDir()
	spec := leash.Spec{FS: true, Read: systemRoots()}
	const n = 24
	errs := make(chan error, 3*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.Command("sh", "-c", `: > "$1"`, "sh", filepath.Join(outside, "confined"+strconv.Itoa(i)))
			if _, err := s.Start(cmd, spec); err != nil {
				errs <- err
				return
			}
			if cmd.Wait() == nil {
				errs <- fmt.Errorf("confined child %d wrote outside its sandbox", i)
			}
		})
		wg.Go(func() {
			p := filepath.Join(outside, "plain"+strconv.Itoa(i))
			if out, err := exec.Command("sh", "-c", `: > "$1"`, "sh", p).CombinedOutput(); err != nil {
				errs <- fmt.Errorf("unconfined child %d: %v %s", i, err, out)
			}
		})
		wg.Go(func() {
			if err := os.WriteFile(filepath.Join(outside, "parent"+strconv.Itoa(i)), nil, 0o644); err != nil {
				errs <- fmt.Errorf("parent write %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestAttachCaps(t *testing.T) {
	t.Parallel()
	s := New(nil)
	local := leash.Permissive("uid:0")
	c := s.AttachCaps(local, "uid:0", "/root")
	if c.Enforced || c.Opaque != "allow" || c.PolicyPrincipal != "uid:0" || c.Tier != s.AvailableTier() || c.Tier != c.AvailableTier {
		t.Errorf("permissive caps %+v", c)
	}
	if c := s.AttachCaps(local, "agent:x", "/root"); c.Opaque != "deny" || c.PolicyPrincipal != "" || c.Enforced {
		t.Errorf("unknown principal caps %+v", c)
	}
	pol, err := leash.Parse([]byte("[principal.\"agent:r\"]\nopaque = \"ask\"\nfs.read = [\"/usr/**\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c = s.AttachCaps(pol, "agent:r", "/root")
	wantEnforced := s.ABI() >= 4 // fs plus "no TCP at all" both need enforcing
	if c.Enforced != wantEnforced || c.Opaque != "approval_required" || c.Enforcement.Filesystem != (s.ABI() >= 1) {
		t.Errorf("agent caps %+v", c)
	}
}

func TestHashFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	got, err := HashFile(p)
	if err != nil || got != blake3Hex(t, p) || len(got) != 64 {
		t.Errorf("HashFile = %q, %v", got, err)
	}
	if _, err := HashFile(p + "-missing"); err == nil {
		t.Error("missing file hashed")
	}
}
