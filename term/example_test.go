package term_test

import (
	"context"
	"fmt"
	"time"

	"github.com/shoal-sh/shoal/term"
)

// The kernel's use of a Manager: open, send text and a key, wait for the output, close.
func ExampleManager() {
	ctx := context.Background()
	m := term.NewManager(&term.ManagerOptions{Quota: 4})
	defer m.CloseAll(ctx)
	owner := term.Owner{Principal: "agent", Session: "main"}

	p, err := m.Open(ctx, owner, term.SpawnOptions{Argv: []string{"cat"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := term.ParseInput([]byte(`["hello", {"key": "Enter"}]`)) // pty.send's input, verbatim
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _ := p.Send(ctx, in)
	fmt.Println(p.ID(), "sent", n)

	// The tty echoes the line, then cat prints it: wait for the second copy.
	s, err := p.Read(ctx, term.ReadOptions{UntilText: "hello\nhello", WaitMs: int(10 * time.Second / time.Millisecond)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Lines[0], s.Lines[1], s.Matched, s.Changed, s.Alive, s.Cols, s.Rows)

	exit, err := m.Close(ctx, owner, p.ID())
	fmt.Println(*exit.Signal, err)
	// Output:
	// pty:1 sent 6
	// hello hello true true true 80 24
	// SIGHUP <nil>
}
