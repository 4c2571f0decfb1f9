package mcp

import (
	"encoding/json"
	"github.com/shoal-sh/shoal/kernel/proto"
	"strings"
	"testing"
)

func TestBoundTextKeepsWholeLinesAndNamesTheURI(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		b.WriteString(strings.Repeat("x", 40))
		b.WriteString("\n")
	}
	got := proto.BoundText(b.String(), "shoal://out/3")
	if len(got) > proto.RenderCap {
		t.Fatalf("bounded text is %d bytes, over %d", len(got), proto.RenderCap)
	}
	if !strings.HasSuffix(got, "more lines, fetch via shoal://out/3)") {
		t.Fatalf("missing fetch marker: %q", got[len(got)-80:])
	}
	body, marker, _ := strings.Cut(got, "\n…(")
	for _, line := range strings.Split(body, "\n") {
		if len(line) != 40 {
			t.Fatalf("a line was cut: %q", line)
		}
	}
	kept := strings.Count(body, "\n") + 1
	if !strings.HasPrefix(marker, itoa(5000-kept)+" more lines") {
		t.Fatalf("kept %d lines, marker %q", kept, marker)
	}
	if short := "a\nb"; proto.BoundText(short, "") != short {
		t.Fatal("short text must pass unchanged")
	}
	long := strings.Repeat("é", proto.RenderCap) // one line, multi-byte
	got = proto.BoundText(long, "")
	if !strings.HasSuffix(got, "fetch via ref)") || !json.Valid(mustJSON(got)) {
		t.Fatalf("hard cut broke UTF-8 or the marker: %q", got[len(got)-40:])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func mustJSON(s string) []byte { b, _ := json.Marshal(s); return b }

func TestRefURIRoundTrip(t *testing.T) {
	for ref, uri := range map[string]string{"out:17": "shoal://out/17", "pty:3": "shoal://pty/3", "val:blake3:ab": "shoal://val/blake3:ab"} {
		if got := refURI(ref); got != uri {
			t.Errorf("refURI(%q) = %q, want %q", ref, got, uri)
		}
		if got := uriRef(uri); got != ref {
			t.Errorf("uriRef(%q) = %q, want %q", uri, got, ref)
		}
	}
	if got := uriRef("shoal://pty/pty:3"); got != "pty:3" {
		t.Errorf("full-ref segment: %q", got)
	}
	if refURI("nocolon") != "" {
		t.Error("a string without kind must give no URI")
	}
}

func TestToolSchemasValidate(t *testing.T) {
	cases := []struct {
		tool, args string
		ok         bool
	}{
		{"shoal_exec", `{"src":"1+2"}`, true},
		{"shoal_exec", `{}`, false},
		{"shoal_exec", `{"src":"1","bogus":1}`, false},
		{"shoal_exec", `{"src":"1","mode":"approved"}`, false},
		{"shoal_exec", `{"src":"1","timeout_ms":0}`, false},
		{"shoal_exec", `{"src":"1","timeout_ms":1.5}`, false},
		{"shoal_exec", `{"src":"1","elide":{"max_rows":5,"other":true}}`, true},
		{"shoal_get", `{"ref":"out:1","slice":[0,1]}`, true},
		{"shoal_get", `{"ref":"out:1","slice":[0]}`, false},
		{"shoal_pty_open", `{"cmd":"vim","cols":1001}`, false},
		{"shoal_pty_open", `{"cmd":"vim","env":{"A":"b"}}`, true},
		{"shoal_pty_open", `{"cmd":"vim","env":{"A":1}}`, false},
		{"shoal_pty_send", `{"pty_id":"pty:1","input":[{"key":"Enter"}]}`, true},
		{"shoal_pty_read", `{"pty_id":"pty:1","wait_ms":30001}`, false},
		{"shoal_pty_list", `{}`, true},
		{"shoal_pty_list", `{"x":1}`, false},
		{"shoal_cap_request", `{"plan_ref":"plan:1","effects":["fs.write",{"kind":"opaque"}]}`, true},
		{"shoal_journal", `{"limit":0}`, false},
	}
	for _, c := range cases {
		args, err := decodeArgs(json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		err = toolByName[c.tool].in.validate(args, "arguments")
		if (err == nil) != c.ok {
			t.Errorf("%s %s: err = %v, want ok=%v", c.tool, c.args, err, c.ok)
		}
	}
	if len(tools) != 13 {
		t.Fatalf("%d tools, want 13", len(tools))
	}
}

func TestChannelFor(t *testing.T) {
	for uri, want := range map[string]string{
		"shoal://events/user.x": "user.x", "shoal://task/9": "task.9", "shoal://task/9/out": "task.9",
		"shoal://task/task:9": "task.9", "shoal://pty/2": "pty.2",
	} {
		if got, ok := channelFor(uri); !ok || got != want {
			t.Errorf("channelFor(%q) = %q, %v; want %q", uri, got, ok, want)
		}
	}
	for _, uri := range []string{"shoal://out/1", "shoal://journal", "http://x", "shoal://task/1/zz"} {
		if _, ok := channelFor(uri); ok {
			t.Errorf("%q must not be subscribable", uri)
		}
	}
}
