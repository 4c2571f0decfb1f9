package kernel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Scenario 1: only attach, parse and complete work unattached.
func TestUnattached(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{NoAttach: true})
	ctx := ctxT(t)
	_, err := k.Client.Exec(ctx, proto.ExecParams{Src: ptr("1 + 2")})
	wantCode(t, err, proto.CodeNotAttached)
	_, err = k.Client.JournalQuery(ctx, proto.JournalQueryParams{})
	wantCode(t, err, proto.CodeNotAttached)
	_, err = k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: "journal"})
	wantCode(t, err, proto.CodeNotAttached)

	res, err := k.Client.Parse(ctx, "1 + 2")
	if err != nil {
		t.Fatal(err)
	}
	if res.ASTVersion != 2 {
		t.Errorf("ast_version = %d, want 2", res.ASTVersion)
	}
	ast := obj(t, res.AST)
	if ast["type"] != "Program" {
		t.Errorf("ast type = %v, want Program (%s)", ast["type"], res.AST)
	}
	_, err = k.Client.Parse(ctx, "let = ")
	wantCode(t, err, proto.CodeParseError)
	c, err := k.Client.Complete(ctx, proto.CompleteParams{Src: "le"})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesContains(c.Candidates, "let") {
		t.Errorf("complete le = %v, want let among them", c.Candidates)
	}
}

func slicesContains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Scenario 2: tokenless attach is the kernel's uid, honestly unenforced.
func TestAttachTokenless(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	a := k.Attach
	if want := fmt.Sprintf("uid:%d", os.Geteuid()); a.Principal != want {
		t.Errorf("principal = %q, want %q", a.Principal, want)
	}
	if a.Caps.Profile != "local-human" || a.CapsEnforced || a.Caps.Enforced {
		t.Errorf("caps = %+v caps_enforced=%v, want local-human and unenforced", a.Caps, a.CapsEnforced)
	}
	if diff := cmp.Diff([]string{"session.transcript", "journal", "approval", "render"}, a.Channels); diff != "" {
		t.Errorf("channels (-want +got):\n%s", diff)
	}
	if a.ElideDefaults.HardCap != 65536 || a.ASTVersion != 2 || a.Session != "default" {
		t.Errorf("attach = %+v", a)
	}
	if a.Kernel.Pid != os.Getpid() || a.Kernel.StartedNs == 0 || len(a.EnvHash) != 64 {
		t.Errorf("kernel info = %+v env_hash=%q", a.Kernel, a.EnvHash)
	}
}

// Scenario 4: a plain exec, and value.get refusing slice/raw on an int.
func TestExecIntAndValueGet(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res := mustExec(t, k, "1 + 2")
	if res.Ref != "out:1" || res.URI != "shoal://out/1" || string(res.Value) != `{"$":"int","v":3}` || res.Render == nil || *res.Render != "3" {
		t.Fatalf("exec = %+v value=%s", res, res.Value)
	}
	_, err := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1", Slice: []int{0, 1}})
	wantCode(t, err, proto.CodeBadPathOrSlice)
	_, err = k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1", Format: "raw"})
	wantCode(t, err, proto.CodeBadPathOrSlice)
	_, err = k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1", Format: "yaml"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "out:9"})
	wantCode(t, err, proto.CodeUnknownRef)
	got, err := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "it"})
	if err != nil || got.Ref != "out:1" || string(got.Value) != `{"$":"int","v":3}` {
		t.Fatalf("value.get it = %+v, %v", got, err)
	}
	// "it" is per connection: a second connection on the same session has none yet.
	c2 := k.Dial()
	k.AttachClient(c2, "default")
	_, err = c2.ValueGet(ctx, proto.ValueGetParams{Ref: "it"})
	wantCode(t, err, proto.CodeUnknownRef)
	_, err = c2.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1"})
	if err != nil {
		t.Fatalf("same session, other connection: %v", err)
	}
	_, err = k.Client.Exec(ctx, proto.ExecParams{Src: ptr("1 +")})
	wantCode(t, err, proto.CodeParseError)
	_, err = k.Client.Exec(ctx, proto.ExecParams{})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = k.Client.Exec(ctx, proto.ExecParams{Src: ptr("1"), Mode: "walk"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = k.Client.Exec(ctx, proto.ExecParams{Src: ptr("1"), Position: "middle"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
}

// Scenario 5: a failing command is a value in value position and RAISED in stmt position.
func TestFailedCommand(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("^false"), Position: "value"})
	if err != nil {
		t.Fatal(err)
	}
	v := obj(t, res.Value)
	if v["$"] != "outcome" || v["ok"] != false || v["status"] != float64(1) {
		t.Fatalf("value position = %s", res.Value)
	}
	_, err = exec(t, k, proto.ExecParams{Src: ptr("^false")})
	e := wantCode(t, err, proto.CodeRaised)
	var data proto.RaisedData
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Code != "cmd_failed" || data.Ref != "out:2" || data.URI != "shoal://out/2" {
		t.Fatalf("raised data = %+v", data)
	}
	got, err := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: data.Ref})
	if err != nil {
		t.Fatal(err)
	}
	if ev := obj(t, got.Value); ev["$"] != "error" || ev["code"] != "cmd_failed" {
		t.Fatalf("stored error = %s", got.Value)
	}
	// The raised error was announced on the transcript too.
	evs, err := k.Client.EventsRead(ctx, proto.EventsReadParams{Channel: proto.ChannelTranscript})
	if err != nil || len(evs.Events) != 2 {
		t.Fatalf("transcript events = %+v, %v", evs, err)
	}
}

// Scenario 6: a 150-row table is elided with a typed preview; paths and overrides work.
func TestElideTable(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res := mustExec(t, k, "tbl")
	v := obj(t, res.Value)
	if v["$"] != "ref" || v["of"] != "table" || v["n"] != float64(150) || v["uri"] != "shoal://out/1" {
		t.Fatalf("elided = %s", res.Value)
	}
	if diff := cmp.Diff(map[string]any{"name": "str", "size": "size"}, v["cols"]); diff != "" {
		t.Errorf("cols (-want +got):\n%s", diff)
	}
	if p := v["preview"].(map[string]any); p["n"] != float64(5) || p["$"] != "table" {
		t.Errorf("preview = %v", p)
	}
	if v["render_head"] == "" {
		t.Errorf("render_head empty")
	}
	got, err := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1", Path: ".rows[0..2]"})
	if err != nil {
		t.Fatal(err)
	}
	lv := obj(t, got.Value)
	items, _ := lv["v"].([]any)
	if lv["$"] != "list" || len(items) != 2 || items[0].(map[string]any)["$"] != "record" {
		t.Fatalf(".rows[0..2] = %s", got.Value)
	}
	inline, err := exec(t, k, proto.ExecParams{Src: ptr("tbl"), Elide: &proto.Elide{MaxRows: ptr(1000), MaxBytes: ptr(65536)}})
	if err != nil {
		t.Fatal(err)
	}
	if iv := obj(t, inline.Value); iv["$"] != "table" || iv["n"] != float64(150) {
		t.Fatalf("max_rows 1000 = %.200s", inline.Value)
	}
}

// Scenario 7: a 200 KiB string stays elided, raw is capped, a slice pages it.
func TestElideBigString(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	res, err := exec(t, k, proto.ExecParams{Src: ptr("big"), Elide: &proto.Elide{MaxBytes: ptr(10000000)}})
	if err != nil {
		t.Fatal(err)
	}
	v := obj(t, res.Value)
	if v["$"] != "ref" || v["of"] != "str" || v["n"] != float64(200<<10) {
		t.Fatalf("elided = %.300s", res.Value)
	}
	if p := v["preview"].(map[string]any); len(p["v"].(string)) != 256 {
		t.Errorf("preview length = %d", len(p["v"].(string)))
	}
	_, err = k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: res.Ref, Format: "raw"})
	e := wantCode(t, err, proto.CodeBadPathOrSlice)
	if d := obj(t, e.Data); d["max"] != float64(65536) || d["len"] != float64(200<<10) {
		t.Errorf("raw data = %s", e.Data)
	}
	got, err := k.Client.ValueGet(ctx, proto.ValueGetParams{Ref: res.Ref, Format: "raw", Slice: []int{0, 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Raw == nil || len(*got.Raw) != 1000 {
		t.Fatalf("sliced raw = %+v", got)
	}
}
