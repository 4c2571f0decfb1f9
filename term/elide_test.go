package term

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// segments are the building blocks of the differential test's streams: plain output
// in every shape the elision looks at, and the sequences that could break it.
var segments = []string{
	"hello world\r\n", "x\r\n", "\r\n", "a\tb\tc\r\n", "abc\bd\r\n", "bare lf\n", "no newline",
	strings.Repeat("long-", 40) + "\r\n",               // wraps at 80 columns
	"\x1b[31m", "\x1b[0m", "\x1b[44m", "\x1b[1;32;45m", // pen, including the background of scrolled-in rows
	"\x1b[5;10H", "\x1b[A", "\x1b[2J", "\x1b[K", "\x1b[H", "\x1b[24;1H",
	"\x1b[3;10r", "\x1b[r", "\x1b[1;24r", "\x1b[2;30r", "\x1b[20;5r", // margins, valid and not
	"\x1b[?1049h", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?1047l",
	"\x1b]0;title\x07", "\x1b]2;t\x1b\\", "\x1bP1$r\x1b\\", "\x1b_apc\x1b\\",
	"héllo ünïcode\r\n", "日本語テキスト\r\n", "emoji 👍🏽 ok\r\n", "e\u0301\r\n",
	"\x1b[?69h", "\x1b[5;20s", "\x1b[?69l", "\x1b[?6h", "\x1b[?6l", "\x1b[4h", "\x1b[4l", "\x1b[20h", "\x1b[20l",
	"\x1b7", "\x1b8", "\x1b[2L", "\x1b[3M", "\x1b[2S", "\x1b[1T", "\x1bD", "\x1bM", "\x1bE", "\x1bc",
	"\x1b(0lqk\x1b(B", "\x0e\x0f", "\x1b[5b", "\x1b[?25l", "\x1b[?25h", "\x1b[?7l", "\x1b[?7h",
	"\xc2\x9b", "\xff", "\x9b31m", "\x18", "\x1a", "\x1b[", "\x1b]", "\x1b", "\x07",
}

// block returns n short CRLF lines, the case the elision is for.
func block(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "%d %s\r\n", i, strings.Repeat("z", r.IntN(12)))
	}
	return sb.String()
}

// feedBoth writes the same chunks to an eliding and a plain emulator and fails at the
// first chunk after which their renderings differ.
func feedBoth(t *testing.T, cols, rows int, chunks [][]byte) (elided int) {
	t.Helper()
	fast, slow := newVTEmulator(cols, rows, t.Logf), newVTEmulator(cols, rows, t.Logf)
	slow.elide = false
	for _, e := range []*vtEmulator{fast, slow} {
		go drainAll(e)
		defer e.CloseReplies()
	}
	for i, c := range chunks {
		fast.Write(c)
		slow.Write(c)
		// Text and cursor after every chunk; styles too after the last one (a
		// styled rendering costs too much to take each time under -race).
		last := i == len(chunks)-1
		if a, b := render(fast, last), render(slow, last); a != b {
			t.Fatalf("after chunk %d (%q…):\nelided:\n%s\nplain:\n%s", i, head(c), a, b)
		}
	}
	// The margin guards should leave vt nothing to panic on in these streams.
	if fast.panics+slow.panics > 0 {
		t.Errorf("vt panicked %d times", fast.panics+slow.panics)
	}
	return fast.elided
}

func drainAll(e *vtEmulator) {
	buf := make([]byte, 256)
	for {
		if _, err := e.Replies().Read(buf); err != nil {
			return
		}
	}
}

func render(e *vtEmulator, styled bool) string {
	pos := e.e.CursorPosition()
	text := e.e.String()
	if styled {
		text = e.e.Render()
	}
	return fmt.Sprintf("%s\ncursor %d,%d hidden=%v alt=%v", text, pos.X, pos.Y, e.e.CursorHidden(), e.e.IsAltScreen())
}

func head(b []byte) []byte { return b[:min(len(b), 40)] }

func TestElisionMatchesPlainEmulator(t *testing.T) {
	t.Parallel()
	elided := 0
	for seed := range uint64(15) {
		r := rand.New(rand.NewPCG(seed, 7))
		var sb strings.Builder
		for range 80 {
			if r.IntN(4) == 0 {
				sb.WriteString(block(r, r.IntN(120)))
			} else {
				sb.WriteString(segments[r.IntN(len(segments))])
			}
		}
		stream := []byte(sb.String())
		var chunks [][]byte
		for len(stream) > 0 {
			n := min(len(stream), 1+r.IntN(3000))
			chunks = append(chunks, stream[:n])
			stream = stream[n:]
		}
		cols, rows := []int{80, 20, 7}[seed%3], []int{24, 5, 3}[seed%3]
		t.Run(fmt.Sprint(seed), func(t *testing.T) { elided += feedBoth(t, cols, rows, chunks) })
	}
	// The streams must exercise the elision, or the comparison proves nothing.
	if elided < 10 {
		t.Errorf("only %d chunks were elided", elided)
	}
}

func TestElisionCases(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name       string
		chunks     []string
		wantElided bool
	}{
		{"plain flood", []string{block(r, 200)}, true},
		{"flood after margins", []string{"\x1b[2;10r", block(r, 200)}, false},
		{"margins set in the same chunk", []string{"\x1b[2;10r" + block(r, 200)}, false}, // cut found, then declined
		{"margins reset", []string{"\x1b[2;10r", "\x1b[r", block(r, 200)}, true},
		{"flood on alt screen with margins on main", []string{"\x1b[2;10r\x1b[?1049h", block(r, 200)}, true},
		{"flood inside an OSC string", []string{"\x1b]0;", block(r, 200) + "\x07"}, false},
		{"split escape", []string{"abc\x1b[3", "1m" + block(r, 200)}, true},
		{"bare line feeds", []string{strings.Repeat("x\n", 200)}, false},
		{"invalid UTF-8 stops elision", []string{"\xff", block(r, 200)}, false},
		{"left/right margins", []string{"\x1b[?69h\x1b[?69l", block(r, 200)}, false},
		{"cursor mid-screen", []string{"\x1b[2J\x1b[3;5Hold text here\x1b[10;1H", block(r, 200)}, true},
		{"coloured background", []string{"\x1b[44m", block(r, 200), "\x1b[0m"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks := make([][]byte, len(tc.chunks))
			for i, c := range tc.chunks {
				chunks[i] = []byte(c)
			}
			got := feedBoth(t, 80, 24, chunks) > 0
			if got != tc.wantElided && tc.wantElided {
				t.Errorf("no cut found")
			} else if got != tc.wantElided {
				t.Errorf("cut found where none is allowed")
			}
		})
	}
}

func FuzzElision(f *testing.F) {
	f.Add([]byte(strings.Repeat("line\r\n", 60)), uint16(100))
	f.Add([]byte("\x1b[2;5r"+strings.Repeat("a\r\n", 30)), uint16(7))
	f.Add([]byte("\x1b]0;"+strings.Repeat("a\r\n", 30)+"\x07"+strings.Repeat("b\r\n", 30)), uint16(50))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		cut := int(split) % (len(data) + 1)
		feedBoth(t, 20, 5, [][]byte{data[:cut], data[cut:]})
	})
}
