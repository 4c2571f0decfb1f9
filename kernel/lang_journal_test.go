package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

func recField(t *testing.T, v value.Value, key string) value.Value {
	t.Helper()
	r, ok := v.(*value.Record)
	if !ok {
		t.Fatalf("want a record, got %s", value.Display(v))
	}
	f, ok := r.Get(key)
	if !ok {
		t.Fatalf("record %s has no %s", value.Display(v), key)
	}
	return f
}

// In a kernel session plan/explain derive effects and the policy verdict, apply runs a stored
// plan of the same principal and session through the approved path, and undo says honestly
// that there is nothing to undo from.
func TestLanguagePlanApplyExplainUndo(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	k := newKernel(t, &kerneltest.Options{Cwd: cwd})
	ctx := ctxT(t)

	pl, err := k.Run(`(plan "touch a.txt").out`)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := recField(t, pl, "id").(value.Str)
	if !planRefRE.MatchString(string(id)) || value.Display(recField(t, pl, "verdict")) != "allow" ||
		recField(t, pl, "reversible") != value.Bool(true) || !strings.Contains(value.Display(recField(t, pl, "effects")), "fs_write") {
		t.Fatalf("plan = %s", value.Display(pl))
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err == nil {
		t.Fatal("plan ran the program")
	}
	// The plan is a kernel plan: plan.get sees it.
	got := mustCall[proto.PlanGetResult](t, k.Client, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: string(id)})
	if got.Src != "touch a.txt" || got.Verdict != "allow" {
		t.Fatalf("plan.get = %+v", got)
	}

	ex, err := k.Run(`(explain "rm --permanent a.txt").out`)
	if err != nil {
		t.Fatal(err)
	}
	if recField(t, ex, "id") != (value.Null{}) || recField(t, ex, "reversible") != value.Bool(false) ||
		!strings.Contains(value.Display(recField(t, ex, "effects")), "fs_delete") {
		t.Fatalf("explain = %s", value.Display(ex))
	}

	v, err := k.Run(`(apply ` + string(id) + `).out.out`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err != nil || !strings.Contains(value.Display(v), "a.txt") {
		t.Fatalf("apply = %s; stat: %v", value.Display(v), err)
	}
	// The applied program is its own journal row, next to the apply's.
	rows, err := k.Client.JournalQuery(ctx, proto.JournalQueryParams{})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, r := range rows {
		srcs = append(srcs, r.Src)
	}
	joined := strings.Join(srcs, "\n")
	if !strings.Contains(joined, "\ntouch a.txt\n") && !strings.HasPrefix(joined, "touch a.txt\n") {
		t.Errorf("journal srcs = %q", srcs)
	}

	// Errors: unknown plan, another session's plan, a failing program, undo.
	wantLangErr := func(src, code string) *diag.Error {
		t.Helper()
		_, err := k.Run(src)
		d, ok := err.(*diag.Error)
		if !ok || d.Code != code {
			t.Fatalf("%s: want %s, got %v", src, code, err)
		}
		return d
	}
	wantLangErr(`apply plan:00000000000000000000000000000000`, diag.NotFound)
	other := k.Dial()
	k.AttachClient(other, "other")
	src := `(plan "touch b.txt").out.id`
	res, err := other.Exec(ctx, proto.ExecParams{Src: &src})
	if err != nil {
		t.Fatal(err)
	}
	otherID := strings.Trim(string(res.Value), `"`)
	if w, err := kernel.DecodeWire(res.Value); err == nil {
		otherID = value.Display(w)
	}
	wantLangErr(`apply `+otherID, diag.Permission)
	fail, err := k.Run(`(plan "ls /nonexistent-dir-for-apply").out.id`)
	if err != nil {
		t.Fatal(err)
	}
	// The applied program's own error is apply's.
	if d := wantLangErr(`apply `+value.Display(fail), diag.Custom); !strings.Contains(d.Msg, "no such file") {
		t.Errorf("failing apply = %v", d)
	}
	if d := wantLangErr(`undo`, diag.NotFound); !strings.Contains(d.Msg, "nothing to undo") {
		t.Errorf("undo = %v", d)
	}
}

// Under a Leash policy with opaque = "ask" an in-language plan reports the pending approval.
func TestLanguagePlanVerdict(t *testing.T) {
	t.Parallel()
	sk := newSecKernel(t, askPolicy, nil)
	a, _ := sk.agent("agent:a", "work")
	src := `(plan 'sh { echo hi }').out`
	res, err := execOn(t, a, proto.ExecParams{Src: &src})
	if err != nil {
		t.Fatal(err)
	}
	v, err := kernel.DecodeWire(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	if value.Display(recField(t, v, "verdict")) != "approval_required" || recField(t, v, "approval_pending") != value.Bool(true) {
		t.Fatalf("plan = %s", value.Display(v))
	}
	ref := value.Display(recField(t, v, "id"))
	got := mustCall[proto.PlanGetResult](t, a, proto.MethodPlanGet, proto.PlanGetParams{PlanRef: ref})
	if !got.ApprovalPending || got.Src != "sh { echo hi }" {
		t.Fatalf("plan.get = %+v", got)
	}
}
