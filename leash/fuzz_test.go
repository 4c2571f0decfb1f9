package leash

import "testing"

// FuzzParsePolicy: arbitrary input never panics, and any accepted policy
// can be judged and lowered without panicking.
func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(examplePolicy))
	f.Add([]byte("[principal.a]\nnet_listen = [1, \"*\"]\nfs.read = [\"/[a-\"]\n"))
	f.Add([]byte("[principal.a.quotas]\ntasks = 3\n"))
	f.Add([]byte("[[principal]]\n"))
	f.Add([]byte("principal = 3"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src, &ParseOptions{Home: "/h"})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		for _, name := range p.Names() {
			pr, _ := p.Principal(name)
			for _, k := range Kinds {
				pr.EffectVerdict(Effect{Kind: k, Paths: []string{"/h/x"}, Host: "h", Port: 1, Names: []string{"A"}, Argv0: "x"})
			}
			pr.Lower(nil)
			p.CanApprove(name, name, "")
		}
	})
}
