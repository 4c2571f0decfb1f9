package leash_test

import (
	"fmt"

	"github.com/shoal-sh/shoal/leash"
)

func ExampleParse() {
	pol, err := leash.Parse([]byte(`
[principal."agent:reviewer"]
fs.read = ["~/src/**"]
proc_spawn = ["git"]
opaque = "ask"
auto_apply = "reversible"
`), &leash.ParseOptions{Home: "/home/me"})
	if err != nil {
		fmt.Println(err)
		return
	}
	read := leash.Effect{Kind: leash.KindFsRead, Paths: []string{leash.NormalizePath("~/src/a.go", "/home/me", "")}}
	fmt.Println(pol.EffectVerdict("agent:reviewer", read))
	fmt.Println(pol.EffectVerdict("agent:reviewer", leash.Effect{Kind: leash.KindProcSpawn, Argv0: "python3"}))
	fmt.Println(pol.PlanVerdict("agent:reviewer", []leash.Effect{read, {Kind: leash.KindOpaque}}))
	fmt.Println(pol.PlanVerdict("agent:nobody", nil))

	_, err = leash.Parse([]byte("[principal.a]\nfs_read = []\n"), nil)
	fmt.Println(err)
	// Output:
	// allow
	// deny
	// approval_required
	// deny
	// policy line 2: unknown key principal.a.fs_read (line 2)
}
