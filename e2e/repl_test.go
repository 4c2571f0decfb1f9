package e2e

import (
	"testing"
)

// The plain REPL on a real terminal, driven through Shoal's own PTY tools:
// bindings persist across lines, incomplete input continues on the next
// line, errors are reported without ending the session, it/out hold
// results, and Ctrl-D exits 0.
func TestREPLOnTerminal(t *testing.T) {
	sb := newSandbox(t)
	t.Cleanup(func() { stopKernel(t, sb.socket()) })
	cs := mcpClient(t, sb, nil, nil)
	id := ptyOpenTool(t, cs, map[string]any{"cmd": shoalBinary(t), "cols": 100, "rows": 30})
	readUntil(t, cs, id, "›")

	send := func(line string) {
		ptyCall(t, cs, "shoal_pty_send", map[string]any{"pty_id": id, "input": []any{line, map[string]any{"key": "Enter"}}})
	}
	send("let answer = 40")
	send("answer + 2")
	readUntil(t, cs, id, "42")

	// An open parenthesis continues on the next line.
	send("(answer +")
	readUntil(t, cs, id, "…")
	send("60)")
	readUntil(t, cs, id, "100")

	// it is the last result; errors do not end the session.
	send("it * 2")
	readUntil(t, cs, id, "200")
	send("1 / 0")
	readUntil(t, cs, id, "error[div_zero]")
	// out holds every result so far: null (the let), 42, 100, 200 and the error.
	send(`"n={out.len()} first={out[1]}"`)
	readUntil(t, cs, id, `n=5 first=42`)

	ptyCall(t, cs, "shoal_pty_send", map[string]any{"pty_id": id, "input": map[string]any{"key": "Ctrl-D"}})
	r := readWhile(t, cs, id, "REPL exit", func(r map[string]any) bool { return r["alive"] == true })
	exit, _ := r["exit"].(map[string]any)
	if exit == nil || exit["status"] != float64(0) {
		t.Fatalf("REPL exit = %v\n%s", r["exit"], dump(r))
	}
}
