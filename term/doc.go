// Package term runs programs on pseudo-terminals and keeps a bounded, text-only view of
// their screens for agents: one job, the PTY sessions behind the kernel's pty.* methods.
//
// A [Manager] hands out "pty:N" ids, scopes each PTY to the [Owner] that opened it and
// enforces a per-principal quota. Each [PTY] is a child process that leads its own
// session and process group on a real PTY, a VT emulator fed by a reader goroutine, and
// a reaper that records the exit status. [PTY.Read] returns exactly the visible screen
// and can block until the screen changes or a text appears, so agents need not poll.
// [ParseInput] turns the wire forms of pty.send input into an [Input] whose named keys
// are encoded when sent, so arrow keys follow the program's cursor-key mode.
//
// Imports: the standard library, github.com/creack/pty, github.com/charmbracelet/x/vt
// (and its own vocabulary package github.com/charmbracelet/x/ansi, which vt's callback
// signatures are written in), and golang.org/x/sys/unix. Nothing else from this module:
// term is a leaf.
package term
