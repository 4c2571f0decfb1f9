package kernel_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/leash/sandbox"
	"github.com/shoal-sh/shoal/tokens"
)

// secKernel is a kernel with a real policy file and a real tokens.json, both in t.TempDir();
// its first client is unattached. Policy text may use {LOCAL} for the kernel's principal.
type secKernel struct {
	*kerneltest.Kernel
	t      *testing.T
	store  *tokens.Store
	local  string
	home   string
	cwd    string
	policy string
}

func newSecKernel(t *testing.T, policy string, sb *sandbox.Options) *secKernel {
	t.Helper()
	dir := t.TempDir()
	sk := &secKernel{t: t, local: "uid:" + strconv.Itoa(os.Geteuid()), home: filepath.Join(dir, "home"), cwd: filepath.Join(dir, "work")}
	for _, d := range []string{sk.home, sk.cwd} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	policy = strings.NewReplacer("{LOCAL}", sk.local, "{CWD}", sk.cwd, "{HOME}", sk.home).Replace(policy)
	sk.policy = filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(sk.policy, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	storePath := filepath.Join(dir, "tokens.json")
	store, err := tokens.Open(storePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	sk.store = store
	sk.Kernel = newKernel(t, &kerneltest.Options{NoAttach: true, Cwd: sk.cwd,
		Env:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + sk.home},
		Kernel: &kernel.Options{PolicyFile: sk.policy, TokenStore: storePath, Sandbox: sb}})
	return sk
}

// agent dials a client attached to session as principal, with a fresh token.
func (sk *secKernel) agent(principal, session string) (*client.Client, proto.SessionAttachResult) {
	sk.t.Helper()
	secret, _, err := sk.store.Create(principal, "default", []string{"fs.read"}, nil)
	if err != nil {
		sk.t.Fatal(err)
	}
	c := sk.Dial()
	a, err := c.Attach(ctxT(sk.t), proto.SessionAttachParams{Session: session, Token: &secret})
	if err != nil {
		sk.t.Fatalf("attach %s: %v", principal, err)
	}
	return c, a
}

// human dials a tokenless client.
func (sk *secKernel) human(session string) *client.Client {
	sk.t.Helper()
	c := sk.Dial()
	sk.AttachClient(c, session)
	return c
}

func execOn(t *testing.T, c *client.Client, p proto.ExecParams) (proto.ExecResult, error) {
	t.Helper()
	return c.Exec(ctxT(t), p)
}

func planOn(t *testing.T, c *client.Client, src string) proto.ExecPlanResult {
	t.Helper()
	return mustCall[proto.ExecPlanResult](t, c, proto.MethodExec, proto.ExecParams{Src: &src, Mode: proto.ModePlan})
}

var planRefRE = regexp.MustCompile(`^plan:[0-9a-f]{32}$`)

// A policy file that does not parse stops the kernel with its line number.
func TestPolicyFileInvalid(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(path, []byte("[principal.\"agent:x\"]\nopaque = \"ask\"\nfs_reed = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := kernel.New(&kernel.Options{PolicyFile: path})
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), path) {
		t.Fatalf("New with a bad policy = %v", err)
	}
	_, err = kernel.New(&kernel.Options{PolicyFile: filepath.Join(t.TempDir(), "missing.toml")})
	if err == nil {
		t.Fatal("a missing policy file was accepted")
	}
}

// Attach reports the principal, its policy's opaque verdict and what this host enforces; a
// principal the policy does not name may attach but is denied everything.
func TestAttachCapsUnderPolicy(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."{LOCAL}"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
opaque = "allow"
auto_apply = "in-grant"
net_connect = ["*:*"]
net_listen = ["*"]

[principal."agent:box"]
fs.read = ["/usr/**", "{CWD}/**"]
fs.write = ["{CWD}/**"]
opaque = "ask"
`, nil)
	h := sk.Dial()
	la := sk.AttachClient(h, "s")
	if la.Principal != sk.local || la.Caps.Profile != "local-human" || la.CapsEnforced || la.Caps.Opaque != "allow" ||
		la.Caps.PolicyPrincipal != sk.local || la.Caps.TokenCapsEnforced {
		t.Errorf("local attach = %+v", la)
	}
	_, a := sk.agent("agent:box", "s")
	abi := sandbox.New(nil).ABI()
	if a.Principal != "agent:box" || a.Caps.Opaque != "approval_required" || a.Caps.TokenCapsEnforced ||
		len(a.Caps.TokenCaps) != 1 || a.Caps.Tier != a.Caps.AvailableTier {
		t.Errorf("agent attach = %+v", a)
	}
	if abi >= 4 {
		if !a.CapsEnforced || !a.Caps.Enforced || !a.Caps.Enforcement.Filesystem || !a.Caps.Enforcement.Network || a.Caps.Tier != "A" {
			t.Errorf("landlock ABI %d but attach says %+v", abi, a.Caps)
		}
	}
	_, u := sk.agent("agent:nobody", "s")
	if u.Caps.PolicyPrincipal != "" || u.Caps.Opaque != "deny" {
		t.Errorf("unknown principal attach = %+v", u.Caps)
	}
}

// With Landlock switched off the host is tier B and attach says nothing is enforced.
func TestAttachLandlockDisabled(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."agent:box"]
fs.read = ["/usr/**"]
fs.write = ["{CWD}/**"]
`, &sandbox.Options{DisableLandlock: true})
	c, a := sk.agent("agent:box", "s")
	if a.CapsEnforced || a.Caps.Enforced || a.Caps.Tier != "B" || a.Caps.AvailableTier != "B" || a.Caps.Enforcement.Filesystem || a.Caps.Enforcement.Network {
		t.Errorf("attach with landlock disabled = %+v", a)
	}
	ex, err := c.Explain(ctxT(t), proto.ExplainParams{Src: ptr("1 + 2")})
	if err != nil || ex.Sandbox == nil || ex.Sandbox.LandlockABI != 0 || !strings.Contains(ex.Sandbox.Detail, "landlock disabled") {
		t.Errorf("explain = %+v, %v", ex.Sandbox, err)
	}
}

// Scenario 3 under a policy, plus --require-token: tokenless attach is refused, a token made
// after start works, a revoked one fails at the next attach.
func TestRequireTokenWithStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	storePath := filepath.Join(dir, "tokens.json")
	store, err := tokens.Open(storePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{NoAttach: true, Kernel: &kernel.Options{TokenStore: storePath, RequireToken: true}})
	ctx := ctxT(t)
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{})
	wantCode(t, err, proto.CodeAuthFailed)
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{Token: ptr("bogus")})
	wantCode(t, err, proto.CodeAuthFailed)
	secret, tok, err := store.Create("agent:late", "default", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := k.Client.Attach(ctx, proto.SessionAttachParams{Token: &secret}); err != nil || a.Principal != "agent:late" {
		t.Fatalf("attach with a new token = %+v, %v", a, err)
	}
	// The permissive policy knows only the local principal: the agent is denied every effect.
	_, err = execOn(t, k.Client, proto.ExecParams{Src: ptr("1 + 2")})
	wantCode(t, err, proto.CodeLeashDenied)
	if err := store.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{Token: &secret})
	wantCode(t, err, proto.CodeAuthFailed)
	ttl := -time.Second
	expired, _, err := store.Create("agent:old", "default", nil, &ttl)
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{Token: &expired})
	wantCode(t, err, proto.CodeAuthFailed)
}

const askPolicy = `
[principal."agent:a"]
fs.read = ["/**"]
fs.write = ["{CWD}/**"]
opaque = "ask"
auto_apply = "in-grant"
journal_read = true

[principal."agent:b"]
fs.read = ["/**"]
opaque = "ask"
auto_apply = "in-grant"

[principal."agent:lead"]
approve = ["agent:a"]
journal_read = true
journal_read_all = true
`

// Scenario 10: an opaque program needs approval; cap.request must cover every effect kind;
// an approved plan applies once.
func TestScenario10ApprovalFlow(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, askPolicy, nil)
	a, _ := sk.agent("agent:a", "work")
	lead, _ := sk.agent("agent:lead", "desk")
	human := sk.human("desk")
	ctx := ctxT(t)
	src := "sh { echo hi }"

	pl := planOn(t, a, src)
	if !planRefRE.MatchString(pl.PlanRef) || pl.Verdict != proto.VerdictApprovalRequired || !pl.ApprovalPending ||
		pl.Reversibility != "irreversible" || len(pl.Fingerprint) != 64 || pl.ExpiresNs <= time.Now().UnixNano() {
		t.Fatalf("plan = %+v", pl)
	}
	// The approval event reaches the owner, an approver of the owner and the local human.
	for _, c := range []*client.Client{a, lead, human} {
		evs, err := c.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelApproval})
		if err != nil || !slices.ContainsFunc(evs.Events, func(e proto.Event) bool { return strings.Contains(string(e.Payload), pl.PlanRef) }) {
			t.Errorf("approval event not visible: %+v, %v", evs, err)
		}
	}
	other, _ := sk.agent("agent:b", "work")
	if evs, _ := other.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelApproval}); len(evs.Events) != 0 {
		t.Errorf("agent:b sees approval events: %+v", evs.Events)
	}

	_, err := call[proto.ExecResult](t, a, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: pl.PlanRef})
	wantCode(t, err, proto.CodeApprovalRequired)

	partial := mustCall[proto.CapRequestResult](t, lead, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef, "effects": []string{"fs.write"}})
	if partial.Grant != "approval_pending" || !slices.Equal(partial.UncoveredEffects, []string{"opaque"}) || partial.Why == "" {
		t.Fatalf("partial cap.request = %+v", partial)
	}
	if p := mustCall[proto.CapRequestResult](t, lead, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef,
		"effects": []any{map[string]string{"kind": "proc.spawn"}}}); p.Grant != "approval_pending" || !slices.Equal(p.UncoveredEffects, []string{"opaque"}) {
		t.Fatalf("proc_spawn scope = %+v", p)
	}
	// opaque is the one effect that needed approval (proc_spawn was allowed), so it covers the plan.
	full := mustCall[proto.CapRequestResult](t, lead, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef, "effects": []string{"opaque"}})
	if full.Grant != "approved" || full.Enforced == nil || len(full.GrantedEffects) != 1 {
		t.Fatalf("cap.request = %+v", full)
	}
	got := mustCall[proto.PlanGetResult](t, a, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: pl.PlanRef})
	if !got.Approved || got.ApprovalPending || got.Src != src || got.Fingerprint != pl.Fingerprint || string(got.AST) == "null" {
		t.Errorf("plan.get after approval = %+v", got)
	}
	res := mustCall[proto.ExecResult](t, a, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: pl.PlanRef})
	if res.Ref == "" || res.Render == nil || !strings.Contains(*res.Render, "hi") {
		t.Errorf("apply = %+v", res)
	}
	// The approval was consumed [D31].
	_, err = call[proto.ExecResult](t, a, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: pl.PlanRef})
	wantCode(t, err, proto.CodeApprovalRequired)

	// A run that needs approval stores a plan and names it [D34]; the empty scope approves all.
	_, err = execOn(t, a, proto.ExecParams{Src: &src})
	e := wantCode(t, err, proto.CodeApprovalRequired)
	var data struct {
		PlanRef string           `json:"plan_ref"`
		Effects []map[string]any `json:"effects"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || !planRefRE.MatchString(data.PlanRef) || len(data.Effects) == 0 || data.PlanRef == pl.PlanRef {
		t.Fatalf("approval data = %s", e.Data)
	}
	if r := mustCall[proto.CapRequestResult](t, human, proto.MethodCapRequest, map[string]any{"plan_ref": data.PlanRef}); r.Grant != "approved" {
		t.Fatalf("local approval = %+v", r)
	}
	// exec mode approved needs the exact src.
	_, err = execOn(t, a, proto.ExecParams{Src: ptr("sh { echo other }"), Mode: proto.ModeApproved, PlanRef: data.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	if _, err := execOn(t, a, proto.ExecParams{Src: &src, Mode: proto.ModeApproved, PlanRef: data.PlanRef}); err != nil {
		t.Fatalf("approved exec: %v", err)
	}
	_, err = call[proto.ExecResult](t, a, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: "plan:" + strings.Repeat("0", 32)})
	wantCode(t, err, proto.CodeUnknownPlan)
	_, err = call[proto.ExecResult](t, a, proto.MethodPlanApply, proto.PlanApplyParams{})
	wantCode(t, err, -32602)
}

// An approval binds the effects: a plan whose effects differ when applied is refused with
// effects_changed, and the approval survives for a retry.
func TestApplyEffectsChanged(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."{LOCAL}"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
opaque = "allow"
auto_apply = "never"
session_write = true
`, nil)
	h := sk.human("s")
	src := "mkdir x"
	pl := planOn(t, h, src)
	if pl.Verdict != proto.VerdictApprovalRequired {
		t.Fatalf("auto_apply never: %+v", pl)
	}
	mustCall[proto.CapRequestResult](t, h, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef})
	// Moving the session changes where the relative path resolves.
	if err := os.Mkdir(filepath.Join(sk.cwd, "elsewhere"), 0o700); err != nil {
		t.Fatal(err)
	}
	cd := planOn(t, h, "cd elsewhere")
	mustCall[proto.CapRequestResult](t, h, proto.MethodCapRequest, map[string]any{"plan_ref": cd.PlanRef})
	mustCall[proto.ExecResult](t, h, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: cd.PlanRef})
	_, err := call[proto.ExecResult](t, h, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: pl.PlanRef})
	e := wantCode(t, err, proto.CodeApprovalRequired)
	if obj(t, e.Data)["reason"] != "effects_changed" {
		t.Errorf("data = %s", e.Data)
	}
	if got := mustCall[proto.PlanGetResult](t, h, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: pl.PlanRef}); !got.Approved {
		t.Errorf("a refused apply consumed the approval: %+v", got)
	}
}

// Scenario 11: the same source planned by two principals gives two plans, each visible only
// to its owner.
func TestScenario11PlanScoping(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, askPolicy, nil)
	a, _ := sk.agent("agent:a", "work")
	b, _ := sk.agent("agent:b", "work")
	pa, pb := planOn(t, a, "sh { echo hi }"), planOn(t, b, "sh { echo hi }")
	if pa.PlanRef == pb.PlanRef {
		t.Fatalf("equal plans share a ref: %s", pa.PlanRef)
	}
	la := mustCall[proto.PlanListResult](t, a, proto.MethodPlanList, struct{}{})
	lb := mustCall[proto.PlanListResult](t, b, proto.MethodPlanList, struct{}{})
	if len(la) != 1 || la[0].PlanRef != pa.PlanRef || len(lb) != 1 || lb[0].PlanRef != pb.PlanRef {
		t.Fatalf("plan.list a=%+v b=%+v", la, lb)
	}
	_, err := call[proto.PlanGetResult](t, a, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: pb.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	_, err = call[proto.ExecResult](t, b, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: pa.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	// Another session of the same principal does not see it either.
	a2, _ := sk.agent("agent:a", "other")
	if l := mustCall[proto.PlanListResult](t, a2, proto.MethodPlanList, struct{}{}); len(l) != 0 {
		t.Errorf("other session lists %+v", l)
	}
	_, err = call[proto.PlanGetResult](t, a2, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: pa.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	_, err = call[proto.PlanGetResult](t, a, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: "plan:nope"})
	wantCode(t, err, proto.CodeUnknownPlan)
}

// Scenario 12: cap.request needs an attachment and an approver.
func TestScenario12CapRequestAuth(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, askPolicy, nil)
	a, _ := sk.agent("agent:a", "work")
	b, _ := sk.agent("agent:b", "work")
	pl := planOn(t, a, "sh { echo hi }")
	_, err := call[proto.CapRequestResult](t, sk.Client, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef})
	wantCode(t, err, proto.CodeNotAttached)
	_, err = call[proto.CapRequestResult](t, b, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	// Self-approval needs an explicit grant.
	_, err = call[proto.CapRequestResult](t, a, proto.MethodCapRequest, map[string]any{"plan_ref": pl.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	_, err = call[proto.CapRequestResult](t, a, proto.MethodCapRequest, map[string]any{})
	wantCode(t, err, -32602)
	// An approver cannot approve what the owner's policy denies.
	denied := planOn(t, a, "mkdir /definitely-not-granted")
	if denied.Verdict != proto.VerdictDeny {
		t.Fatalf("plan outside grants = %+v", denied)
	}
	_, err = call[proto.CapRequestResult](t, sk.human("x"), proto.MethodCapRequest, map[string]any{"plan_ref": denied.PlanRef})
	wantCode(t, err, proto.CodeLeashDenied)
	_, err = execOn(t, a, proto.ExecParams{Src: ptr("mkdir /definitely-not-granted")})
	if e := wantCode(t, err, proto.CodeLeashDenied); !strings.Contains(string(e.Data), "fs_write") {
		t.Errorf("deny data = %s", e.Data)
	}
}

// Scenario 13: journal.query needs an attachment and journal_read; agents see their own rows
// unless journal_read_all; filters apply before the limit. blob.get follows the same scope.
func TestScenario13JournalScoping(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, askPolicy+`
[principal."{LOCAL}"]
journal_read = true

[principal."agent:c"]
fs.read = ["/**"]
fs.write = ["{CWD}/**"]
auto_apply = "in-grant"
journal_read = true
`, nil)
	_, err := sk.Client.JournalQuery(ctxT(t), proto.JournalQueryParams{})
	wantCode(t, err, proto.CodeNotAttached)
	a, _ := sk.agent("agent:a", "work")
	b, _ := sk.agent("agent:b", "work")
	c, _ := sk.agent("agent:c", "work")
	lead, _ := sk.agent("agent:lead", "work")
	_, err = b.JournalQuery(ctxT(t), proto.JournalQueryParams{})
	wantCode(t, err, proto.CodeLeashDenied)

	mustExecOn(t, a, "mkdir a1")
	ra := mustExecOn(t, a, `"from a"`)
	mustExecOn(t, c, "mkdir c1")
	for range 3 {
		mustExecOn(t, c, "1 + 1")
	}
	for _, tc := range []struct {
		c    *client.Client
		want []string // principals seen
	}{{a, []string{"agent:a"}}, {c, []string{"agent:c"}}, {lead, []string{"agent:a", "agent:c"}}} {
		rows, err := tc.c.JournalQuery(ctxT(t), proto.JournalQueryParams{})
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, r := range rows {
			if !slices.Contains(seen, r.Principal) {
				seen = append(seen, r.Principal)
			}
		}
		slices.Sort(seen)
		if !slices.Equal(seen, tc.want) {
			t.Errorf("rows seen %v, want %v", seen, tc.want)
		}
	}
	rows, err := c.JournalQuery(ctxT(t), proto.JournalQueryParams{Effects: []string{"fs.write"}, Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].Src != "mkdir c1" {
		t.Fatalf("effects filter = %+v, %v", rows, err)
	}
	// The local human sees every row.
	if rows, err := sk.human("x").JournalQuery(ctxT(t), proto.JournalQueryParams{}); err != nil || len(rows) != 6 {
		t.Errorf("local sees %d rows (%v), want 6", len(rows), err)
	}
	// blob.get serves only hashes of rows the caller may read.
	arows, _ := a.JournalQuery(ctxT(t), proto.JournalQueryParams{Limit: 1})
	if len(arows) != 1 || len(arows[0].Outputs) == 0 || arows[0].Src != `"from a"` {
		t.Fatalf("a's rows = %+v (%s)", arows, ra.Ref)
	}
	h := arows[0].Outputs[0].Hash
	if _, err := a.BlobGet(ctxT(t), proto.BlobGetParams{Hash: h}); err != nil {
		t.Errorf("own blob: %v", err)
	}
	_, err = c.BlobGet(ctxT(t), proto.BlobGetParams{Hash: h})
	wantCode(t, err, proto.CodeUnknownRef)
	// Journal events follow the same rule.
	evs, _ := c.EventsRead(ctxT(t), proto.EventsReadParams{Channel: proto.ChannelJournal})
	for _, e := range evs.Events {
		if strings.Contains(string(e.Payload), "agent:a") {
			t.Errorf("agent:c sees a's journal event %s", e.Payload)
		}
	}
	if evs, _ := b.EventsRead(ctxT(t), proto.EventsReadParams{Channel: proto.ChannelJournal}); len(evs.Events) != 0 {
		t.Errorf("agent:b without journal_read sees %d journal events", len(evs.Events))
	}
}

// Scenario 22: a pinned principal cannot open an unpinned program in a PTY, nor run one.
func TestScenario22PinnedSpawn(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."agent:git"]
fs.read = ["/**"]
proc_spawn = ["git", "sh"]
opaque = "allow"
auto_apply = "in-grant"
`, nil)
	c, _ := sk.agent("agent:git", "s")
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "python3"})
	if e := wantCode(t, err, proto.CodeLeashDenied); obj(t, e.Data)["cmd"] != "python3" {
		t.Errorf("data = %s", e.Data)
	}
	_, err = execOn(t, c, proto.ExecParams{Src: ptr("python3 -c 1")})
	if e := wantCode(t, err, proto.CodeLeashDenied); !strings.Contains(string(e.Data), "python3") {
		t.Errorf("data = %s", e.Data)
	}
	// A pinned binary runs: the verdict allows it and the sandbox's pin check passes.
	if res, err := execOn(t, c, proto.ExecParams{Src: ptr("sh { echo pinned-ok }"), Position: proto.PositionValue}); err != nil || !strings.Contains(*res.Render, "pinned-ok") {
		t.Errorf("pinned sh = %+v, %v", res, err)
	}
}

// A confined principal's evaluator children run under Landlock: writes inside the granted
// directory work, writes elsewhere fail and leave nothing behind, and only granted TCP ports
// connect. The kernel itself stays unconfined.
func TestConfinedEvaluatorSpawns(t *testing.T) {
	t.Parallel()
	if sandbox.New(nil).ABI() < 4 {
		t.Skip("needs landlock ABI >= 4")
	}
	okLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer okLn.Close()
	badLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer badLn.Close()
	go acceptAll(okLn)
	go acceptAll(badLn)
	okPort, badPort := okLn.Addr().(*net.TCPAddr).Port, badLn.Addr().(*net.TCPAddr).Port
	outside := filepath.Join(os.TempDir(), fmt.Sprintf("outside-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(outside) })
	sk := newSecKernel(t, fmt.Sprintf(`
[principal."agent:box"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "{CWD}/**"]
fs.write = ["{CWD}/**"]
fs.delete = ["{CWD}/**"]
net_connect = ["127.0.0.1:%d"]
opaque = "allow"
auto_apply = "in-grant"
`, okPort), nil)
	c, a := sk.agent("agent:box", "s")
	if !a.CapsEnforced {
		t.Fatalf("attach = %+v", a.Caps)
	}
	val := func(src string) string {
		t.Helper()
		res, err := execOn(t, c, proto.ExecParams{Src: &src, Position: proto.PositionValue})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return *res.Render
	}
	if r := val(`sh { echo inside > in.txt && cat in.txt }`); !strings.Contains(r, "inside") {
		t.Errorf("write inside: %q", r)
	}
	r := val(fmt.Sprintf(`sh { exec 2>&1; echo x > %s/x; echo x > %s; echo status $? }`, sk.home, outside))
	if !strings.Contains(r, "ermission denied") {
		t.Errorf("write outside: %q", r)
	}
	for _, p := range []string{filepath.Join(sk.home, "x"), outside} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created by a confined child", p)
		}
	}
	if r := val(fmt.Sprintf(`bash { exec 3<>/dev/tcp/127.0.0.1/%d && echo connected }`, okPort)); !strings.Contains(r, "connected") {
		t.Errorf("granted port: %q", r)
	}
	if r := val(fmt.Sprintf(`bash { exec 2>&1; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected }`, badPort)); strings.Contains(r, "connected") || !strings.Contains(r, "ermission denied") {
		t.Errorf("ungranted port: %q", r)
	}
	// The kernel (this process) is not confined by any of it.
	if err := os.WriteFile(outside, []byte("kernel"), 0o600); err != nil {
		t.Errorf("kernel process confined: %v", err)
	}
}

func acceptAll(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// Quotas come from the policy: a principal limited to one session cannot open a second.
func TestPolicyQuotas(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."agent:q"]
[principal."agent:q".quotas]
sessions = 1
`, nil)
	sk.agent("agent:q", "one")
	secret, _, _ := sk.store.Create("agent:q", "", nil, nil)
	_, err := sk.Dial().Attach(ctxT(t), proto.SessionAttachParams{Session: "two", Token: &secret})
	wantCode(t, err, proto.CodeResourceLimit)
}

// BenchmarkAttach1000Tokens measures a token attach against a store of 1,000 tokens.
func BenchmarkAttach1000Tokens(b *testing.B) {
	dir := b.TempDir()
	storePath := filepath.Join(dir, "tokens.json")
	store, err := tokens.Open(storePath, nil)
	if err != nil {
		b.Fatal(err)
	}
	var secret string
	for i := range 1000 {
		s, _, err := store.Create(fmt.Sprintf("agent:%d", i), "default", nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if i == 500 {
			secret = s
		}
	}
	k := kerneltest.New(b, &kerneltest.Options{NoAttach: true, Kernel: &kernel.Options{TokenStore: storePath}})
	ctx := b.Context()
	if _, err := k.Client.Attach(ctx, proto.SessionAttachParams{Token: &secret}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := k.Client.Attach(ctx, proto.SessionAttachParams{Token: &secret}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecSh compares `sh { true }` through the evaluator for an unconfined principal,
// one confined by Landlock (filesystem and TCP ports) and one that is also pinned (the
// binary is hashed for the verdict and again, as the executed descriptor, by the spawn).
func BenchmarkExecSh(b *testing.B) {
	for _, tc := range []struct{ name, principal string }{{"unconfined", "local"}, {"confined", "agent:box"}, {"pinned", "agent:pin"}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			policy := filepath.Join(dir, "p.toml")
			text := fmt.Sprintf(`
[principal."uid:%d"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
net_connect = ["*:*"]
net_listen = ["*"]
opaque = "allow"
auto_apply = "in-grant"

[principal."agent:box"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "%[2]s/**"]
fs.write = ["%[2]s/**"]
net_connect = ["127.0.0.1:9"]
opaque = "allow"
auto_apply = "in-grant"

[principal."agent:pin"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "%[2]s/**"]
fs.write = ["%[2]s/**"]
net_connect = ["127.0.0.1:9"]
proc_spawn = ["sh"]
opaque = "allow"
auto_apply = "in-grant"
`, os.Geteuid(), dir)
			if err := os.WriteFile(policy, []byte(text), 0o600); err != nil {
				b.Fatal(err)
			}
			storePath := filepath.Join(dir, "tokens.json")
			store, err := tokens.Open(storePath, nil)
			if err != nil {
				b.Fatal(err)
			}
			k := kerneltest.New(b, &kerneltest.Options{NoAttach: true, Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
				Kernel: &kernel.Options{PolicyFile: policy, TokenStore: storePath}})
			p := proto.SessionAttachParams{}
			if tc.principal != "local" {
				secret, _, _ := store.Create(tc.principal, "", nil, nil)
				p.Token = &secret
			}
			if _, err := k.Client.Attach(b.Context(), p); err != nil {
				b.Fatal(err)
			}
			src := "sh { true }"
			for b.Loop() {
				if _, err := k.Client.Exec(b.Context(), proto.ExecParams{Src: &src}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Nested evaluators (scripts run with run(), background tasks) share the session's host, so
// their children are confined too [D17].
func TestConfinementInherited(t *testing.T) {
	t.Parallel()
	if sandbox.New(nil).ABI() < 1 {
		t.Skip("needs landlock")
	}
	sk := newSecKernel(t, `
[principal."agent:box"]
fs.read = ["/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**", "{CWD}/**"]
fs.write = ["{CWD}/**"]
opaque = "allow"
auto_apply = "in-grant"
`, nil)
	c, _ := sk.agent("agent:box", "s")
	viaScript, viaTask := filepath.Join(sk.home, "script"), filepath.Join(sk.home, "task")
	script := fmt.Sprintf("sh { echo x > %s }\n", viaScript)
	if err := os.WriteFile(filepath.Join(sk.cwd, "nested.shl"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := execOn(t, c, proto.ExecParams{Src: ptr(`run("nested.shl")`)})
	if e := wantCode(t, err, proto.CodeRaised); !strings.Contains(string(e.Data), "ermission denied") {
		t.Errorf("script: %s %s", e.Message, e.Data)
	}
	h, err := execOn(t, c, proto.ExecParams{Src: ptr(fmt.Sprintf("sh { echo x > %s }", viaTask)), Async: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := c.TaskAwait(ctxT(t), h.Task, nil); err != nil || rec.State != proto.TaskFailed {
		t.Errorf("task = %+v, %v", rec, err)
	}
	for _, p := range []string{viaScript, viaTask} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written by a confined child", p)
		}
	}
}

// A hermetic principal's spawns are refused when the host cannot enforce its sandbox.
func TestHermeticRefusesUnenforceable(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."agent:h"]
fs.read = ["/usr/**", "{CWD}/**"]
fs.write = ["{CWD}/**"]
opaque = "allow"
auto_apply = "in-grant"
hermetic = true
`, &sandbox.Options{DisableLandlock: true})
	c, a := sk.agent("agent:h", "s")
	if a.CapsEnforced {
		t.Fatalf("attach = %+v", a.Caps)
	}
	_, err := execOn(t, c, proto.ExecParams{Src: ptr("sh { true }")})
	if e := wantCode(t, err, proto.CodeRaised); obj(t, e.Data)["code"] != "permission" {
		t.Errorf("hermetic spawn data = %s", e.Data)
	}
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "sh"})
	wantCode(t, err, proto.CodePTYSpawnFailed)
	// Nothing to spawn, nothing refused.
	mustExecOn(t, c, "1 + 2")
}

// net_listen grants become Landlock bind rules: only the listed port can be bound.
func TestConfinedListen(t *testing.T) {
	t.Parallel()
	if sandbox.New(nil).ABI() < 4 {
		t.Skip("needs landlock ABI >= 4")
	}
	if _, err := osexec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	free := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	okPort, badPort := free(), free()
	sk := newSecKernel(t, fmt.Sprintf(`
[principal."agent:srv"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
net_connect = ["*:*"]
net_listen = [%d]
opaque = "allow"
auto_apply = "in-grant"
`, okPort), nil)
	c, a := sk.agent("agent:srv", "s")
	if !a.Caps.Enforcement.Network || a.Caps.Enforcement.Filesystem {
		t.Fatalf("caps = %+v", a.Caps)
	}
	bind := func(port int) string {
		t.Helper()
		src := fmt.Sprintf("python3 { import socket\ns = socket.socket()\ntry:\n    s.bind((\"127.0.0.1\", %d)); print(\"bound\")\nexcept OSError as e:\n    print(\"refused\", e)\n}", port)
		res, err := execOn(t, c, proto.ExecParams{Src: &src, Position: proto.PositionValue})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return *res.Render
	}
	if r := bind(okPort); !strings.Contains(r, "bound") {
		t.Errorf("granted port: %q", r)
	}
	if r := bind(badPort); !strings.Contains(r, "refused") {
		t.Errorf("ungranted port: %q", r)
	}
}

// pty.open under opaque = "ask" offers a plan; once approved, a retry with its plan_ref
// opens the PTY, and the approval is spent [D28].
func TestPTYApprovalPath(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, `
[principal."agent:tty"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
net_connect = ["*:*"]
net_listen = ["*"]
opaque = "ask"
auto_apply = "in-grant"
`, nil)
	c, _ := sk.agent("agent:tty", "s")
	_, err := call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat"})
	ref, _ := obj(t, wantCode(t, err, proto.CodeApprovalRequired).Data)["plan_ref"].(string)
	if !planRefRE.MatchString(ref) {
		t.Fatalf("plan_ref %q", ref)
	}
	// A plan for a PTY is not applied through plan.apply.
	_, err = call[proto.ExecResult](t, c, proto.MethodPlanApply, proto.PlanApplyParams{PlanRef: ref})
	wantCode(t, err, -32602)
	mustCall[proto.CapRequestResult](t, sk.human("s"), proto.MethodCapRequest, map[string]any{"plan_ref": ref})
	// The approval is for this command line only.
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat", Args: []string{"-u"}, PlanRef: ref})
	wantCode(t, err, proto.CodeApprovalRequired)
	op := ptyOpen(t, c, proto.PTYOpenParams{Cmd: "cat", PlanRef: ref})
	ptyClose(t, c, op.PTYID)
	_, err = call[proto.PTYOpenResult](t, c, proto.MethodPTYOpen, proto.PTYOpenParams{Cmd: "cat", PlanRef: ref})
	wantCode(t, err, proto.CodeApprovalRequired)
}
