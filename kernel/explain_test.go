package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// explain derives effects without running; journal rows carry the same effects, and the
// effects filter finds the newest match behind newer non-matches.
func TestExplainAndEffectsFilter(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	ex, err := k.Client.Explain(ctx, proto.ExplainParams{Src: ptr("mkdir d")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Effects) != 1 || ex.Effects[0]["kind"] != "fs_write" || ex.Reversibility != "reversible" || len(ex.Fingerprint) != 64 || ex.PlanRef != nil {
		t.Fatalf("explain = %+v", ex)
	}
	if _, err := filepath.Glob(filepath.Join(k.Attach.Cwd.Display, "d")); err != nil {
		t.Fatal(err)
	}
	op, err := k.Client.Explain(ctx, proto.ExplainParams{Src: ptr("sh { echo hi }")})
	if err != nil || op.Reversibility != "irreversible" {
		t.Fatalf("explain sh = %+v, %v", op, err)
	}
	// From the AST: the same answer.
	again, err := k.Client.Explain(ctx, proto.ExplainParams{AST: ex.AST})
	if err != nil || again.Fingerprint != ex.Fingerprint {
		t.Fatalf("explain ast = %+v, %v", again, err)
	}
	_, err = k.Client.Explain(ctx, proto.ExplainParams{AST: []byte(`{"type":"nope"}`)})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = k.Client.Explain(ctx, proto.ExplainParams{})
	wantCode(t, err, jsonrpc.CodeInvalidParams)

	mustExec(t, k, "mkdir d")
	for range 3 {
		mustExec(t, k, "1 + 1")
	}
	rows, err := k.Client.JournalQuery(ctx, proto.JournalQueryParams{Effects: []string{"fs.write"}, Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].Src != "mkdir d" || rows[0].Effects[0]["kind"] != "fs_write" {
		t.Fatalf("effects filter = %+v, %v", rows, err)
	}
	res, err := exec(t, k, proto.ExecParams{Src: ptr("sh { true }")})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ = k.Client.JournalQuery(ctx, proto.JournalQueryParams{Limit: 1})
	if !rows[0].Opaque || rows[0].Src != "sh { true }" {
		t.Errorf("opaque flag not recorded: %+v (%s)", rows[0], res.Ref)
	}
}
