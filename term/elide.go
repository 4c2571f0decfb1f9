package term

import (
	"strconv"
)

// Scroll elision.
//
// vt scrolls by copying every cell of the screen (about 10 µs at 80x24), so a program
// that prints 100 000 short lines spends a second in the emulator although only the
// last screenful can ever be seen (term keeps no scrollback). Within one chunk of
// output, when the parser is in its ground state and a run of plain ASCII text (printable
// characters, TAB, CR, LF; no escapes) holds at least 2*rows line feeds, the part of
// the run before its last rows line feeds is replaced by a cursor move to the start of
// the bottom row:
//
//   - the skipped part ends with CR LF and holds at least rows line feeds, so it would
//     have left the cursor at column 0 of the bottom row, which the move reproduces;
//   - plain text changes no pen, mode, charset or tab stop, only cells and the cursor;
//   - the rows line feeds that follow each scroll the full-screen region (the cursor is
//     on its bottom row), pushing every row the skipped part could have touched off
//     the screen, so both ways end in the same screen.
//
// It applies only while the scroll region is the whole screen (no DECSTBM margins and
// never after left/right margins were enabled), and only when the parser's state is
// known: a small tracker follows escape sequences and strings and gives up for good on
// bytes it cannot place (raw C1 controls, invalid UTF-8). Differential tests check the
// emulator's rendering against an unelided one.

// parseState follows the VT parser's state (charmbracelet/x/ansi's transition table),
// enough to know where ground is. Where the table is intricate the tracker gives up
// (stUnknown) instead: it may miss a chance to elide, never claim ground wrongly.
type parseState uint8

const (
	stGround   parseState = iota
	stEscape              // after ESC
	stEscInter            // ESC followed by intermediates
	stCSI                 // inside a control sequence
	stOSC                 // OSC string: BEL, ST (ESC \ or 0x9C) end it
	stDCSEntry            // after ESC P
	stDCSParam            // DCS parameters
	stDCSInter            // DCS intermediates
	stDCS                 // DCS data: ESC starts the terminating ST
	stSPA                 // SOS, PM or APC string
	stUnknown             // lost track; sticky
)

type tracker struct {
	state    parseState
	utf8Left int  // continuation bytes still expected in ground
	utf8Lead byte // the lead byte, while its first continuation is pending
}

// step advances the tracker over one byte.
func (t *tracker) step(b byte) {
	if t.state == stUnknown {
		return
	}
	if b == 0x18 || b == 0x1a { // CAN and SUB abort any sequence
		t.state, t.utf8Left = stGround, 0
		return
	}
	if b >= 0x80 && t.state != stGround && t.state != stOSC && t.state != stDCS {
		// Outside ground and the two strings that take 8-bit data, high bytes are C1
		// controls or UTF-8 with state changes the tracker does not model.
		t.state = stUnknown
		return
	}
	switch t.state {
	case stGround:
		if t.utf8Left > 0 {
			if b < 0x80 || b > 0xbf || (t.utf8Lead == 0xc2 && b < 0xa0) {
				// Not a continuation, or a C1 control spelt in UTF-8: parsers differ.
				t.state = stUnknown
				return
			}
			t.utf8Lead = 0
			t.utf8Left--
			return
		}
		switch {
		case b == 0x1b:
			t.state = stEscape
		case b < 0x80:
		case b >= 0xc2 && b <= 0xdf:
			t.utf8Left, t.utf8Lead = 1, b
		case b >= 0xe0 && b <= 0xef:
			t.utf8Left = 2
		case b >= 0xf0 && b <= 0xf4:
			t.utf8Left = 3
		default:
			t.state = stUnknown
		}
	case stEscape:
		switch {
		case b == '[':
			t.state = stCSI
		case b == ']':
			t.state = stOSC
		case b == 'P':
			t.state = stDCSEntry
		case b == 'X' || b == '^' || b == '_':
			t.state = stSPA
		case b == 0x1b, b < 0x20:
		case b <= 0x2f:
			t.state = stEscInter
		case b <= 0x7e:
			t.state = stGround
		default:
			t.state = stUnknown
		}
	case stEscInter:
		switch {
		case b == 0x1b:
			t.state = stEscape
		case b <= 0x2f:
		case b <= 0x7e:
			t.state = stGround
		default:
			t.state = stUnknown
		}
	case stCSI:
		switch {
		case b == 0x1b:
			t.state = stEscape
		case b < 0x40: // parameters, intermediates, executed C0 controls
		case b <= 0x7e:
			t.state = stGround
		default:
			t.state = stUnknown
		}
	case stOSC:
		switch b {
		case 0x1b:
			t.state = stEscape
		case 0x07, 0x9c:
			t.state = stGround
		}
	case stDCSEntry:
		switch {
		case b == 0x1b, b >= 0x08 && b <= 0x0d, b >= 0x40 && b <= 0x7e:
			t.state = stDCS
		case b >= 0x20 && b <= 0x2f:
			t.state = stDCSInter
		case b >= 0x30 && b <= 0x3f:
			t.state = stDCSParam
		}
	case stDCSParam:
		switch {
		case b == 0x1b:
			t.state = stEscape
		case b >= 0x20 && b <= 0x2f:
			t.state = stDCSInter
		case b >= 0x40 && b <= 0x7e:
			t.state = stDCS
		}
	case stDCSInter:
		switch {
		case b == 0x1b:
			t.state = stEscape
		case b >= 0x30 && b <= 0x7e:
			t.state = stDCS
		}
	case stDCS:
		switch b {
		case 0x1b:
			t.state = stEscape
		case 0x9c:
			t.state = stGround
		}
	case stSPA:
		if b == 0x1b {
			t.state = stEscape
		}
	}
}

// isPlain reports bytes that move the cursor only within a row or down. BS is left
// out: with reverse wraparound (DEC mode 45) it can move the cursor up a row.
func isPlain(b byte) bool {
	return (b >= 0x20 && b < 0x7f) || b == '\r' || b == '\n' || b == '\t'
}

// elideCut finds a skippable span in p for a screen of the given rows, starting where
// the tracker stands. It returns [start, end) with end just past a line feed, or ok
// false. The tracker is advanced over all of p either way.
func (t *tracker) elideCut(p []byte, rows int) (start, end int, ok bool) {
	runStart := -1
	var lfs []int // line feeds of the current plain run
	best := func() {
		if runStart < 0 || len(lfs) < 2*rows {
			return
		}
		cut := lfs[len(lfs)-rows-1] // keep the run's last rows line feeds
		if cut > runStart && p[cut-1] == '\r' {
			start, end, ok = runStart, cut+1, true
		}
	}
	for i, b := range p {
		if t.state == stGround && t.utf8Left == 0 && isPlain(b) {
			if runStart < 0 {
				runStart, lfs = i, lfs[:0]
			}
			if b == '\n' {
				lfs = append(lfs, i)
			}
		} else if runStart >= 0 {
			best()
			runStart = -1
			if ok {
				// Advance the tracker over the rest and stop looking: one span per
				// chunk is enough, chunks are small.
				for _, b := range p[i:] {
					t.step(b)
				}
				return start, end, ok
			}
		}
		t.step(b)
	}
	best()
	return start, end, ok
}

// bottomLeft is the CUP sequence to column 1 of the last row.
func bottomLeft(rows int) []byte {
	return []byte("\x1b[" + strconv.Itoa(rows) + ";1H")
}
