package kernel_test

import (
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/kernel/proto"
)

// The in-language journal and history heads read the kernel's journal.
func TestHistoryHead(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	mustExec(t, k, "1 + 1")
	mustExec(t, k, "2 + 2")
	other := k.Dial()
	k.AttachClient(other, "elsewhere")
	mustExecOn(t, other, "3 + 3")
	res, err := k.Client.Exec(ctxT(t), proto.ExecParams{Src: ptr("(history).out.map(r => r.src)"), Position: "value"})
	if err != nil {
		t.Fatal(err)
	}
	// The running exec's own row is already there (unfinished).
	if !strings.Contains(*res.Render, "1 + 1") || !strings.Contains(*res.Render, "2 + 2") || strings.Contains(*res.Render, "3 + 3") {
		t.Fatalf("history = %s / %q", res.Value, *res.Render)
	}
	all, err := k.Client.Exec(ctxT(t), proto.ExecParams{Src: ptr("(journal 3).out.map(r => r.src)"), Position: "value"})
	if err != nil {
		t.Fatal(err)
	}
	if v := obj(t, all.Value); len(v["v"].([]any)) != 3 || !strings.Contains(*all.Render, "3 + 3") {
		t.Fatalf("journal 3 = %s", all.Value)
	}
}
