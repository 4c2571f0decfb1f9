package leash

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEffectVerdicts(t *testing.T) {
	t.Parallel()
	p := mustParse(t, examplePolicy+`
[principal."agent:bare"]

[principal."agent:envall"]
env_read = ["*"]
opaque = "allow"
net_listen = ["*"]
`)
	r := "agent:reviewer"
	cases := []struct {
		name      string
		principal string
		e         Effect
		want      Verdict
	}{
		{"unknown principal", "agent:nobody", Effect{Kind: KindTime}, Deny},
		{"unknown kind", r, Effect{Kind: "teleport"}, Deny},
		{"fs read in grant", r, Effect{Kind: KindFsRead, Paths: []string{"/home/me/src/shoal/main.go", "/usr/lib/x"}}, Allow},
		{"fs read one outside", r, Effect{Kind: KindFsRead, Paths: []string{"/home/me/src/shoal/a", "/etc/passwd"}}, Deny},
		{"fs read grant dir itself", r, Effect{Kind: KindFsRead, Paths: []string{"/home/me/src/shoal"}}, Deny},
		{"fs write in grant", r, Effect{Kind: KindFsWrite, Paths: []string{"/home/me/src/shoal/target/x"}}, Allow},
		{"fs write read-only area", r, Effect{Kind: KindFsWrite, Paths: []string{"/home/me/src/shoal/main.go"}}, Deny},
		{"fs delete in grant", r, Effect{Kind: KindFsDelete, Paths: []string{"/home/me/src/shoal/target/tmp/a"}}, Allow},
		{"fs delete outside", r, Effect{Kind: KindFsDelete, Paths: []string{"/home/me/src/shoal/target/a"}}, Deny},
		{"fs no paths", r, Effect{Kind: KindFsWrite}, Allow},
		{"dotted kind", r, Effect{Kind: "fs.write", Paths: []string{"/home/me/src/shoal/target/x"}}, Allow},
		{"spawn by basename", r, Effect{Kind: KindProcSpawn, Argv0: "/usr/bin/git"}, Allow},
		{"spawn by full argv0", r, Effect{Kind: KindProcSpawn, Argv0: "/usr/bin/cargo"}, Allow},
		{"spawn full path grant needs full argv0", r, Effect{Kind: KindProcSpawn, Argv0: "cargo"}, Deny},
		{"spawn by hash", r, Effect{Kind: KindProcSpawn, Argv0: "/opt/tool", BinHash: hash64}, Allow},
		{"spawn by hash upper", r, Effect{Kind: KindProcSpawn, Argv0: "/opt/tool", BinHash: "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"}, Allow},
		{"spawn unpinned", r, Effect{Kind: KindProcSpawn, Argv0: "python3", BinHash: "ff"}, Deny},
		{"spawn pinning inactive", "agent:bare", Effect{Kind: KindProcSpawn, Argv0: "python3"}, Allow},
		{"connect exact", r, Effect{Kind: KindNetConnect, Host: "github.com", Port: 443}, Allow},
		{"connect host case", r, Effect{Kind: KindNetConnect, Host: "GitHub.com.", Port: 443}, Allow},
		{"connect wrong port", r, Effect{Kind: KindNetConnect, Host: "github.com", Port: 80}, Deny},
		{"connect glob any port", r, Effect{Kind: KindNetConnect, Host: "raw.githubusercontent.com", Port: 8443}, Allow},
		{"connect other host", r, Effect{Kind: KindNetConnect, Host: "evil.com", Port: 443}, Deny},
		{"connect no grants", "agent:bare", Effect{Kind: KindNetConnect, Host: "a", Port: 1}, Deny},
		{"listen listed", r, Effect{Kind: KindNetListen, Port: 8080}, Allow},
		{"listen unlisted", r, Effect{Kind: KindNetListen, Port: 8081}, Deny},
		{"listen any", "agent:envall", Effect{Kind: KindNetListen, Port: 9}, Allow},
		{"env read listed", r, Effect{Kind: KindEnvRead, Names: []string{"HOME", "PATH"}}, Allow},
		{"env read one unlisted", r, Effect{Kind: KindEnvRead, Names: []string{"HOME", "AWS_SECRET"}}, Deny},
		{"env read star", "agent:envall", Effect{Kind: KindEnvRead, Names: []string{"ANY"}}, Allow},
		{"env write empty list", r, Effect{Kind: KindEnvWrite, Names: []string{"X"}}, Deny},
		{"secret listed", r, Effect{Kind: KindSecretUse, Names: []string{"github-token"}}, Allow},
		{"secret unlisted", r, Effect{Kind: KindSecretUse, Names: []string{"aws"}}, Deny},
		{"session_write true", r, Effect{Kind: KindSessionWrite}, Allow},
		{"session_write false", "agent:bare", Effect{Kind: KindSessionWrite}, Deny},
		{"journal_read true", r, Effect{Kind: KindJournalRead}, Allow},
		{"journal_read false", "agent:bare", Effect{Kind: KindJournalRead}, Deny},
		{"time true", r, Effect{Kind: KindTime}, Allow},
		{"time false", "agent:bare", Effect{Kind: KindTime}, Deny},
		{"opaque ask", r, Effect{Kind: KindOpaque}, ApprovalRequired},
		{"opaque deny default", "agent:bare", Effect{Kind: KindOpaque}, Deny},
		{"opaque allow", "agent:envall", Effect{Kind: KindOpaque}, Allow},
	}
	for _, tc := range cases {
		if got := p.EffectVerdict(tc.principal, tc.e); got != tc.want {
			t.Errorf("%s: verdict %s, want %s", tc.name, got, tc.want)
		}
	}
	if v := p.OpaqueVerdict(r); v != ApprovalRequired {
		t.Errorf("OpaqueVerdict = %s", v)
	}
}

func TestPlanVerdicts(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `
[principal.never]
time = true
opaque = "ask"
[principal.ingrant]
time = true
auto_apply = "in-grant"
net = ["h:1"]
opaque = "ask"
[principal.rev]
time = true
auto_apply = "reversible"
net = ["h:1"]
fs.delete = ["/t/**"]
`)
	tm := Effect{Kind: KindTime}
	conn := Effect{Kind: KindNetConnect, Host: "h", Port: 1}
	del := Effect{Kind: KindFsDelete, Paths: []string{"/t/a"}}
	permDel := Effect{Kind: KindFsDelete, Paths: []string{"/t/a"}, Permanent: true}
	cases := []struct {
		name, principal string
		effects         []Effect
		want            Verdict
	}{
		{"unknown principal", "ghost", nil, Deny},
		{"no effects", "never", nil, Allow},
		{"never", "never", []Effect{tm}, ApprovalRequired},
		{"any deny wins over approval", "never", []Effect{{Kind: KindOpaque}, conn}, Deny},
		{"approval", "ingrant", []Effect{tm, {Kind: KindOpaque}}, ApprovalRequired},
		{"in-grant irreversible", "ingrant", []Effect{tm, conn}, Allow},
		{"reversible plan", "rev", []Effect{tm, del}, Allow},
		{"reversible mode irreversible plan", "rev", []Effect{tm, conn}, ApprovalRequired},
		{"permanent delete", "rev", []Effect{permDel}, ApprovalRequired},
	}
	for _, tc := range cases {
		if got := p.PlanVerdict(tc.principal, tc.effects); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestReversibility(t *testing.T) {
	t.Parallel()
	cases := []struct {
		effects []Effect
		want    string
	}{
		{nil, Reversible},
		{[]Effect{{Kind: KindFsWrite}, {Kind: KindFsDelete}, {Kind: KindProcSpawn}}, Reversible},
		{[]Effect{{Kind: KindFsDelete, Permanent: true}}, Irreversible},
		{[]Effect{{Kind: KindOpaque}}, Irreversible},
		{[]Effect{{Kind: KindNetConnect}}, Irreversible},
		{[]Effect{{Kind: KindTime}, {Kind: KindNetListen}}, Irreversible},
	}
	for _, tc := range cases {
		if got := Reversibility(tc.effects); got != tc.want {
			t.Errorf("Reversibility(%v) = %s, want %s", tc.effects, got, tc.want)
		}
	}
}

func TestApprover(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `
[principal."agent:lead"]
approve = ["agent:*"]
[principal."agent:self"]
approve = ["agent:self"]
[principal."agent:worker"]
`)
	const local = "uid:1000"
	cases := []struct {
		approver, owner string
		want            bool
	}{
		{local, "agent:worker", true},
		{local, "anyone", true},
		{"agent:lead", "agent:worker", true},
		{"agent:lead", "agent:lead", true}, // its glob covers itself
		{"agent:lead", "uid:1000", false},
		{"agent:worker", "agent:worker", false}, // no self-approval unless listed
		{"agent:worker", "agent:lead", false},
		{"agent:self", "agent:self", true},
		{"agent:self", "agent:worker", false},
		{"agent:ghost", "agent:worker", false},
	}
	for _, tc := range cases {
		if got := p.CanApprove(tc.approver, tc.owner, local); got != tc.want {
			t.Errorf("CanApprove(%s, %s) = %v, want %v", tc.approver, tc.owner, got, tc.want)
		}
	}
}

func TestJournalVisibility(t *testing.T) {
	t.Parallel()
	const local = "uid:0"
	p := mustParse(t, `
[principal."agent:r"]
journal_read = true
[principal."agent:all"]
journal_read = true
journal_read_all = true
[principal."agent:none"]
journal_read_all = true
[principal."uid:0"]
journal_read = true
`)
	cases := []struct {
		viewer, row string
		want        bool
	}{
		{"agent:r", "agent:r", true},
		{"agent:r", "agent:x", false},
		{"agent:all", "agent:x", true},
		{"agent:none", "agent:none", false}, // no journal_read at all
		{local, "agent:x", true},
		{"agent:ghost", "agent:ghost", false},
	}
	for _, tc := range cases {
		if got := p.JournalRowVisible(tc.viewer, tc.row, local); got != tc.want {
			t.Errorf("JournalRowVisible(%s, %s) = %v, want %v", tc.viewer, tc.row, got, tc.want)
		}
	}
	if !Permissive(local).JournalRowVisible(local, "agent:x", local) {
		t.Error("local human cannot see agent rows under the permissive policy")
	}
}

func TestUncovered(t *testing.T) {
	t.Parallel()
	plan := []Effect{{Kind: KindFsWrite}, {Kind: KindOpaque}, {Kind: KindFsWrite}}
	if got := Uncovered(plan, []string{"fs.write"}); !cmp.Equal(got, []Kind{KindOpaque}) {
		t.Errorf("Uncovered = %v", got)
	}
	if got := Uncovered(plan, []string{"opaque", "fs_write"}); len(got) != 0 {
		t.Errorf("Uncovered = %v, want none", got)
	}
}

func TestEffectJSON(t *testing.T) {
	t.Parallel()
	var e Effect
	if err := json.Unmarshal([]byte(`{"kind":"fs.write","paths":["./out"]}`), &e); err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindFsWrite {
		t.Errorf("kind %q", e.Kind)
	}
	b, _ := json.Marshal(e)
	if string(b) != `{"kind":"fs_write","paths":["./out"]}` {
		t.Errorf("marshal %s", b)
	}
	b, _ = json.Marshal(Effect{Kind: KindNetConnect, Host: "h", Port: 443})
	if string(b) != `{"kind":"net_connect","host":"h","port":443}` {
		t.Errorf("marshal %s", b)
	}
	if err := json.Unmarshal([]byte(`{"kind":"fs.exec"}`), &e); err == nil {
		t.Error("unknown kind accepted")
	}
	if err := json.Unmarshal([]byte(`{"kind":3}`), &e); err == nil {
		t.Error("numeric kind accepted")
	}
}

func TestNormalizePath(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, cwd, want string }{
		{"~", "", "/home/me"},
		{"~/x/../y", "", "/home/me/y"},
		{"./out", "/p", "/p/out"},
		{"a/./b/../../c", "/p", "/p/c"},
		{"/a/../../b", "", "/b"},
		{"rel", "", "rel"},
		{"~user/x", "/p", "/p/~user/x"},
	}
	if got := NormalizePath("~/x", "", ""); got != "~/x" {
		t.Errorf("no home: %q", got)
	}
	if got := ExpandHome("~/x/**", ""); got != "~/x/**" {
		t.Errorf("ExpandHome without home: %q", got)
	}
	if got := ExpandHome("~/x/**", "/home/me/"); got != "/home/me/x/**" {
		t.Errorf("ExpandHome trailing slash: %q", got)
	}
	for _, tc := range cases {
		if got := NormalizePath(tc.in, "/home/me", tc.cwd); got != tc.want {
			t.Errorf("NormalizePath(%q, cwd %q) = %q, want %q", tc.in, tc.cwd, got, tc.want)
		}
	}
	e := Effect{Kind: "fs.read", Paths: []string{"~/a/./b"}}.Normalize("/home/me", "/")
	if e.Kind != KindFsRead || e.Paths[0] != "/home/me/a/b" {
		t.Errorf("Normalize = %+v", e)
	}
}

func TestNilPolicyDenies(t *testing.T) {
	t.Parallel()
	var p *Policy
	if p.EffectVerdict("x", Effect{Kind: KindTime}) != Deny || p.PlanVerdict("x", nil) != Deny ||
		p.CanApprove("x", "y", "z") || p.JournalRead("x") || len(p.Names()) != 0 || p.Quotas("x") != DefaultQuotas {
		t.Error("nil policy granted something")
	}
}
