package term

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// emulator is the part of a VT emulator term relies on. It hides the vt library (one
// tagged release, untagged dependencies) behind a few operations, so a replacement
// touches only this file and elide.go. Implementations need not be safe for concurrent use: the
// PTY calls them under its own mutex.
type emulator interface {
	// Write feeds program output to the emulator.
	Write(p []byte)
	// Resize changes the emulator's size; it does not reflow.
	Resize(cols, rows int)
	// Snapshot returns the visible screen.
	Snapshot() snapshot
	// AppCursor reports whether the program enabled application cursor keys (DECCKM).
	AppCursor() bool
	// Replies is the emulator's answer stream (DA, DSR/CPR, OSC colour queries); it
	// must be drained into the PTY or Write blocks. It ends once CloseReplies is called.
	Replies() io.Reader
	// CloseReplies ends the Replies stream.
	CloseReplies()
}

// snapshot is the emulator's visible state at one moment.
type snapshot struct {
	lines     []string // exactly rows entries, trailing blanks trimmed
	cols      int
	rows      int
	cursor    Cursor
	altScreen bool
}

// vtEmulator is an [emulator] on charmbracelet/x/vt's plain Emulator. The SafeEmulator
// is not used: it leaves String unlocked and holds its lock while writing replies.
type vtEmulator struct {
	e         *vt.Emulator
	appCursor bool

	// Scroll elision state (see elide.go).
	elide     bool
	track     tracker
	margins   [2]bool // DECSTBM margins set on the main [0] / alt [1] screen
	lrMargins bool    // left/right margins were enabled at some point
	lrmm      bool    // left/right margin mode (DECLRMM) is on now

	logf   func(format string, args ...any) // nil: discard
	panics int                              // vt panics recovered, for tests
	elided int                              // chunks shortened, for tests
}

func newVTEmulator(cols, rows int, logf func(string, ...any)) *vtEmulator {
	v := &vtEmulator{e: vt.NewEmulator(cols, rows), elide: true, logf: logf}
	// Zero scrollback is the contract; vt ignores 0, and 1 line costs nothing.
	v.e.SetScrollbackSize(1)
	// vt keeps DECCKM private, but reports mode changes synchronously inside Write,
	// which already runs under the PTY's mutex, so a plain field is enough.
	v.e.SetCallbacks(vt.Callbacks{
		EnableMode: func(m ansi.Mode) {
			switch m {
			case ansi.ModeCursorKeys:
				v.appCursor = true
			case ansi.ModeLeftRightMargin:
				v.lrMargins, v.lrmm = true, true
			}
		},
		DisableMode: func(m ansi.Mode) {
			switch m {
			case ansi.ModeCursorKeys:
				v.appCursor = false
			case ansi.ModeLeftRightMargin:
				v.lrmm = false
			}
		},
	})
	// The same guard for DECSLRM (CSI s while left/right margin mode is on): a right
	// margin past the last column makes vt index past the row.
	v.e.RegisterCsiHandler('s', func(params ansi.Params) bool {
		if w := v.e.Width(); v.lrmm && len(params) > 1 {
			if right, _, _ := params.Param(1, w); right > w {
				params[1] = ansi.Param(w)
			}
		}
		return false
	})
	// Registered after vt's own DECSTBM handler, so called first; returning false
	// lets vt's run. It mirrors vt's validation to know whether margins are now set.
	v.e.RegisterCsiHandler('r', func(params ansi.Params) bool {
		top, _, _ := params.Param(0, 1)
		top = max(top, 1)
		h := v.e.Height()
		bottom, _, _ := params.Param(1, h)
		if bottom < 1 {
			bottom = h
		}
		if bottom > h {
			// vt would keep a bottom margin below the screen and later index past
			// its rows (SD and IL panic). xterm clamps it to the last row; so do we,
			// by rewriting the parameter in the parser's buffer, which params
			// aliases and vt's handler reads next. Should a vt release copy the
			// parameters instead, the panic guard in write still holds.
			bottom = h
			if len(params) > 1 {
				params[1] = ansi.Param(h)
			}
		}
		if top < bottom {
			v.margins[v.screenIndex()] = top > 1 || bottom < h
		}
		return false
	})
	return v
}

func (v *vtEmulator) screenIndex() int {
	if v.e.IsAltScreen() {
		return 1
	}
	return 0
}

func (v *vtEmulator) Write(p []byte) {
	rows := v.e.Height()
	start, end, ok := v.track.elideCut(p, rows)
	if !ok || !v.elide {
		v.write(p)
		return
	}
	v.write(p[:start])
	// The head may have set margins or switched screens: decide after it ran.
	if v.lrMargins || v.margins[v.screenIndex()] {
		v.write(p[start:])
		return
	}
	v.elided++
	v.write(bottomLeft(rows))
	v.write(p[end:])
}

func (v *vtEmulator) write(p []byte) {
	if len(p) == 0 {
		return
	}
	defer v.recoverPanic("write")
	// Write only fails once the emulator is closed, and we never close it: the reply
	// stream is ended through its pipe instead (see CloseReplies).
	_, _ = v.e.Write(p)
}

// recoverPanic keeps a vt bug triggered by a program's output from taking the whole
// process down: the rest of that chunk is lost and the screen may be off until the
// program redraws, which is logged.
func (v *vtEmulator) recoverPanic(op string) {
	r := recover()
	if r == nil {
		return
	}
	v.panics++
	if v.logf != nil {
		v.logf("term: vt emulator panicked in %s (output dropped): %v", op, r)
	}
	// The panic may have left the parser inside a sequence, where it would swallow
	// the next output; CAN returns it to ground, and is a no-op there.
	func() {
		defer func() { _ = recover() }()
		_, _ = v.e.Write([]byte{0x18})
	}()
	v.track = tracker{}
}

func (v *vtEmulator) Resize(cols, rows int) {
	defer v.recoverPanic("resize")
	v.margins = [2]bool{} // vt resets both screens' regions on resize
	v.e.Resize(cols, rows)
}

func (v *vtEmulator) AppCursor() bool { return v.appCursor }

func (v *vtEmulator) Replies() io.Reader { return v.e }

// CloseReplies closes the write end of vt's reply pipe rather than calling
// Emulator.Close: Close flips a field that Emulator.Read reads without a lock, which
// races with the drain goroutine.
func (v *vtEmulator) CloseReplies() {
	if c, ok := v.e.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
}

func (v *vtEmulator) Snapshot() snapshot {
	cols, rows := v.e.Width(), v.e.Height()
	lines := strings.Split(v.e.String(), "\n")
	// String yields one line per row; normalise anyway so the row count is exact.
	if len(lines) > rows {
		lines = lines[:rows]
	}
	for len(lines) < rows {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \r")
	}
	pos := v.e.CursorPosition()
	return snapshot{
		lines:     lines,
		cols:      cols,
		rows:      rows,
		cursor:    Cursor{Row: pos.Y, Col: pos.X, Hidden: v.e.CursorHidden()},
		altScreen: v.e.IsAltScreen(),
	}
}
