package leash

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const examplePolicy = `
[principal."agent:reviewer"]
net_connect = ["github.com:443", "*.githubusercontent.com:*"]  # alias net
net_listen  = [8080]
proc_spawn  = ["git", "/usr/bin/cargo", "` + hash64 + `"]
env_read    = ["HOME", "PATH"]
env_write   = []
secret_use  = ["github-token"]
session_write = true
journal_read  = true
journal_read_all = false
approve     = []
time        = true
auto_apply  = "reversible"
opaque      = "ask"
hermetic    = false

[principal."agent:reviewer".fs]
read   = ["~/src/shoal/**", "/usr/**"]
write  = ["~/src/shoal/target/**"]
delete = ["~/src/shoal/target/tmp/**"]
`

const hash64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// principalFields compares the exported policy fields, not compiled globs.
var principalFields = cmpopts.IgnoreUnexported(Principal{})

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := Parse([]byte(src), &ParseOptions{Home: "/home/me"})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestParseExample(t *testing.T) {
	t.Parallel()
	p := mustParse(t, examplePolicy)
	got, ok := p.Principal("agent:reviewer")
	if !ok {
		t.Fatal("principal missing")
	}
	want := &Principal{
		Name:         "agent:reviewer",
		FsRead:       []string{"/home/me/src/shoal/**", "/usr/**"},
		FsWrite:      []string{"/home/me/src/shoal/target/**"},
		FsDelete:     []string{"/home/me/src/shoal/target/tmp/**"},
		NetConnect:   []string{"github.com:443", "*.githubusercontent.com:*"},
		NetListen:    []int{8080},
		ProcSpawn:    []string{"git", "/usr/bin/cargo", hash64},
		EnvRead:      []string{"HOME", "PATH"},
		EnvWrite:     []string{},
		SecretUse:    []string{"github-token"},
		Approve:      []string{},
		SessionWrite: true,
		JournalRead:  true,
		Time:         true,
		AutoApply:    AutoReversible,
		Opaque:       OpaqueAsk,
		Quotas:       DefaultQuotas,
	}
	if diff := cmp.Diff(want, got, principalFields); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
	if p.Permissive {
		t.Error("parsed policy claims to be permissive")
	}
}

func TestParseAliasesAndNesting(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `
[principal.a]
net = ["h:1"]
spawn = ["git"]
secrets = ["s1"]
fs.read = ["/r/**"]
fs.write = ["/w/**"]
env.read = ["HOME"]
env.write = ["X"]
secret.use = ["s2"]
proc.spawn = ["ls"]

[principal.a.quotas]
sessions = 2
ptys = 0
`)
	got, _ := p.Principal("a")
	want := &Principal{
		Name: "a", NetConnect: []string{"h:1"}, ProcSpawn: []string{"git", "ls"},
		SecretUse: []string{"s1", "s2"}, FsRead: []string{"/r/**"}, FsWrite: []string{"/w/**"},
		EnvRead: []string{"HOME"}, EnvWrite: []string{"X"}, Approve: []string{},
		AutoApply: AutoNever, Opaque: OpaqueDeny,
		Quotas: Quotas{Sessions: 2, Tasks: 64, PTYs: 0, Subscriptions: 64},
	}
	if diff := cmp.Diff(want, got, principalFields); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "[principal.\"agent:x\"]\n")
	pr, _ := p.Principal("agent:x")
	if pr.AutoApply != AutoNever || pr.Opaque != OpaqueDeny || pr.SessionWrite || pr.Time ||
		pr.JournalRead || pr.Hermetic || len(pr.FsRead) != 0 || pr.Quotas != DefaultQuotas {
		t.Errorf("defaults wrong: %+v", pr)
	}
	if q := p.Quotas("nobody"); q != DefaultQuotas {
		t.Errorf("unknown principal quotas %+v", q)
	}
	empty := mustParse(t, "")
	if len(empty.Names()) != 0 {
		t.Error("empty file has principals")
	}
}

func TestParseNetListen(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "[principal.a]\nnet_listen = [80, \"*\"]\n")
	pr, _ := p.Principal("a")
	if !pr.NetListenAny || !cmp.Equal(pr.NetListen, []int{80}) {
		t.Errorf("net_listen = %v any=%v", pr.NetListen, pr.NetListenAny)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		line      int
		contains  string
	}{
		{"unknown key", "[principal.a]\nfs_read = []\n", 2, "unknown key"},
		{"unknown nested key", "[principal.a]\ntime = true\n[principal.a.fs]\nexecute = [\"/x\"]\n", 4, "unknown key"},
		{"unknown top key", "\n\nallow = true\n", 3, "unknown key"},
		{"syntax", "[principal.a]\ntime = \n", 2, ""},
		{"wrong type", "[principal.a]\n\ntime = \"yes\"\n", 3, ""},
		{"bad fs glob", "[principal.a]\nfs.read = [\"/ok/**\",\n  \"/bad[\"]\n", 3, "glob"},
		{"bad approve glob", "[principal.a]\napprove = [\"agent:[\"]\n", 2, "approve"},
		{"bad auto_apply", "[principal.a]\n\nauto_apply = \"always\"\n", 3, "auto_apply"},
		{"bad opaque", "[principal.a]\nopaque = \"maybe\"\n", 2, "opaque"},
		{"net grant without port", "[principal.a]\nnet_connect = [\"github.com\"]\n", 2, "HOST:PORT"},
		{"net grant bad port", "[principal.a]\nnet = [\"h:http\"]\n", 2, "port"},
		{"net grant port range", "[principal.a]\nnet = [\"h:70000\"]\n", 2, "port"},
		{"net grant empty host", "[principal.a]\nnet = [\":80\"]\n", 2, "empty host"},
		{"listen out of range", "[principal.a]\nnet_listen = [0]\n", 0, "out of range"},
		{"listen bad string", "[principal.a]\nnet_listen = [\"http\"]\n", 2, "net_listen"},
		{"listen float", "[principal.a]\nnet_listen = [1.5]\n", 2, "net_listen"},
		{"negative quota", "[principal.a.quotas]\ntasks = -1\n", 2, "quota"},
		{"empty spawn", "[principal.a]\nproc_spawn = [\"\"]\n", 2, "proc_spawn"},
		{"empty principal", "[principal.\"\"]\n", 0, "empty principal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.src), nil)
			var pe *PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want *PolicyError", err)
			}
			if tc.line != 0 && pe.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not mention %q", err, tc.contains)
			}
			if pe.Line > 0 && !strings.Contains(err.Error(), "line ") {
				t.Errorf("error %q hides its line", err)
			}
		})
	}
}

func TestPermissive(t *testing.T) {
	t.Parallel()
	p := Permissive("uid:1000")
	if !p.Permissive {
		t.Error("Permissive flag unset")
	}
	pr, ok := p.Principal("uid:1000")
	if !ok {
		t.Fatal("local principal missing")
	}
	for _, k := range Kinds {
		e := Effect{Kind: k, Paths: []string{"/etc/passwd"}, Host: "example.com", Port: 443,
			Names: []string{"X"}, Argv0: "python3", BinHash: hash64}
		if v := pr.EffectVerdict(e); v != Allow {
			t.Errorf("permissive %s = %s, want allow", k, v)
		}
	}
	if v := p.PlanVerdict("uid:1000", []Effect{{Kind: KindOpaque}, {Kind: KindNetConnect, Host: "x", Port: 1}}); v != Allow {
		t.Errorf("permissive irreversible plan = %s, want allow (in-grant)", v)
	}
	if v := p.PlanVerdict("agent:x", nil); v != Deny {
		t.Errorf("permissive policy knows agent:x: %s", v)
	}
	if s := pr.Lower(nil); s.Concrete() {
		t.Errorf("permissive policy lowers to a sandbox: %+v", s)
	}
}
