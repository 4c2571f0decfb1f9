package kernel_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/term"
)

// The policy's PTY quota is the only one that applies, also above term's default of 16: the
// kernel disables term's own limit and counts per principal itself.
func TestPTYPolicyQuotaAboveTermDefault(t *testing.T) {
	t.Parallel()
	limit := term.DefaultQuota + 2
	pol := filepath.Join(t.TempDir(), "policy.toml")
	src := `[principal."uid:` + strconv.Itoa(os.Geteuid()) + `"]
opaque = "allow"
auto_apply = "in-grant"
proc_spawn = ["sleep"]
fs.read = ["/**"]
quotas.ptys = ` + strconv.Itoa(limit) + "\n"
	if err := os.WriteFile(pol, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{Kernel: &kernel.Options{PolicyFile: pol}})
	c := k.Client
	var ids []string
	for range limit {
		ids = append(ids, ptyOpen(t, c, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}}).PTYID)
	}
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "sleep", Args: []string{"1000"}})
	if e := wantCode(t, err, proto.CodeResourceLimit); obj(t, e.Data)["limit"] != float64(limit) || obj(t, e.Data)["resource"] != "ptys" {
		t.Errorf("quota data = %s", e.Data)
	}
	for _, id := range ids {
		ptyClose(t, c, id)
	}
}
