package leash

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLower(t *testing.T) {
	t.Parallel()
	exists := func(p string) bool { return p != "/home/me/src/shoal/target/tmp" }
	p := mustParse(t, examplePolicy+`
[principal.rootall]
fs.read = ["/**"]
fs.write = ["/**", "/tmp/**"]
fs.delete = ["/*"]
net_listen = ["*"]
net = ["*:*"]

[principal.rootread]
fs.read = ["/**"]
fs.write = ["/tmp/x/**", "/tmp/x/*.log", "**/y", "rel/**"]

[principal.nofs]
net = ["a:80", "b:443", "c:80"]
net_listen = [9000, 8000, 9000]

[principal.onlyrel]
fs.read = ["**/x"]
net = ["*:*"]
net_listen = ["*"]
`)
	lower := func(name string) Spec {
		pr, ok := p.Principal(name)
		if !ok {
			t.Fatalf("no principal %s", name)
		}
		return pr.Lower(&LowerOptions{Home: "/home/me", Exists: exists})
	}
	cases := []struct {
		name string
		want Spec
	}{
		{"agent:reviewer", Spec{
			FS: true, Read: []string{"/home/me/src/shoal", "/usr"}, Write: []string{"/home/me/src/shoal/target"},
			// "*.githubusercontent.com:*" allows any port, so connect
			// cannot be narrowed by port.
			RestrictBind: true, BindPorts: []int{8080},
			Pin: true, PinHashes: []string{hash64}, PinPaths: []string{"/usr/bin/cargo"}, PinNames: []string{"git"},
		}},
		{"rootall", Spec{}},
		{"rootread", Spec{FS: true, Read: []string{"/"}, Write: []string{"/tmp/x"}, RestrictConnect: true, RestrictBind: true}},
		{"nofs", Spec{RestrictConnect: true, ConnectPorts: []int{80, 443}, RestrictBind: true, BindPorts: []int{8000, 9000}}},
		{"onlyrel", Spec{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, lower(tc.name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if lower("rootall").Concrete() || lower("onlyrel").Concrete() || !lower("nofs").Concrete() {
		t.Error("Concrete disagrees with the spec contents")
	}
	hp := mustParse(t, "[principal.h]\nhermetic = true\nfs.read = [\"/usr/**\"]\n")
	pr, _ := hp.Principal("h")
	if s := pr.Lower(nil); !s.Hermetic || !s.FS {
		t.Errorf("hermetic lost: %+v", s)
	}
}
