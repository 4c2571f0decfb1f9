package leash

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScenarios walks the policy side of the acceptance scenarios on
// approvals, journal access and spawn pinning.
func TestScenarios(t *testing.T) {
	t.Parallel()
	const local = "uid:1000"
	p := mustParse(t, `
[principal."agent:asker"]
opaque = "ask"
auto_apply = "in-grant"

[principal."agent:other"]
opaque = "ask"

[principal."agent:lead"]
approve = ["agent:asker"]
journal_read = true

[principal."agent:git-only"]
proc_spawn = ["git"]
opaque = "allow"
`)
	// An opaque plan (sh { echo hi }) needs approval under opaque = "ask".
	plan := []Effect{{Kind: KindOpaque}}
	if v := p.PlanVerdict("agent:asker", plan); v != ApprovalRequired {
		t.Errorf("opaque plan: %s", v)
	}
	if Reversibility(plan) != Irreversible {
		t.Error("opaque plan called reversible")
	}
	// A cap.request scoped to fs.write does not cover it; opaque does.
	if got := Uncovered(plan, []string{"fs.write"}); !cmp.Equal(got, []Kind{KindOpaque}) {
		t.Errorf("uncovered = %v", got)
	}
	if got := Uncovered(plan, []string{"opaque"}); len(got) != 0 {
		t.Errorf("uncovered = %v", got)
	}
	// Who may approve it: the local human and the lead, not the owner
	// itself and not a bystander.
	for approver, want := range map[string]bool{local: true, "agent:lead": true, "agent:asker": false, "agent:other": false} {
		if got := p.CanApprove(approver, "agent:asker", local); got != want {
			t.Errorf("CanApprove(%s) = %v", approver, got)
		}
	}
	// The lead's grant does not extend to another owner.
	if p.CanApprove("agent:lead", "agent:other", local) {
		t.Error("lead approves agent:other")
	}
	// journal.query: denied without journal_read; own rows only without
	// journal_read_all.
	if p.JournalRead("agent:asker") {
		t.Error("agent without journal_read may query")
	}
	if !p.JournalRowVisible("agent:lead", "agent:lead", local) || p.JournalRowVisible("agent:lead", "agent:asker", local) {
		t.Error("journal row scoping wrong for agent:lead")
	}
	// proc_spawn = ["git"]: python3 is denied, git allowed.
	if v := p.EffectVerdict("agent:git-only", Effect{Kind: KindProcSpawn, Argv0: "/usr/bin/python3", BinHash: hash64}); v != Deny {
		t.Errorf("python3 spawn: %s", v)
	}
	if v := p.EffectVerdict("agent:git-only", Effect{Kind: KindProcSpawn, Argv0: "/usr/bin/git"}); v != Allow {
		t.Errorf("git spawn: %s", v)
	}
	// A principal without pinning spawns anything the opaque rule allows.
	if v := p.EffectVerdict("agent:asker", Effect{Kind: KindProcSpawn, Argv0: "python3"}); v != Allow {
		t.Errorf("unpinned spawn: %s", v)
	}
}
