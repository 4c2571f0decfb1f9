package term

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScreenGolden pins how the emulator renders known output, so a vt upgrade that
// changes what agents see fails here first.
func TestScreenGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		out    string
		lines  []string // the first len(lines) rows; the rest must be empty
		cursor Cursor
		alt    bool
	}{
		{"lines", "hello\r\nworld", []string{"hello", "world"}, Cursor{Row: 1, Col: 5}, false},
		{"cursor address", "\x1b[2;3Hx", []string{"", "  x"}, Cursor{Row: 1, Col: 3}, false},
		{"carriage return overwrites", "hello\rJ", []string{"Jello"}, Cursor{Col: 1}, false},
		{"tab stops", "a\tb", []string{"a       b"}, Cursor{Col: 9}, false},
		{"wide characters", "日本語", []string{"日本語"}, Cursor{Col: 6}, false},
		{"erase to start of line", "abc\x1b[2D\x1b[1K", []string{"  c"}, Cursor{Col: 1}, false},
		{"erase display", "junk\x1b[2J\x1b[Hok", []string{"ok"}, Cursor{Col: 2}, false},
		{"autowrap", strings.Repeat("x", 85), []string{strings.Repeat("x", 80), "xxxxx"}, Cursor{Row: 1, Col: 5}, false},
		{"colours are not text", "\x1b[1;31mred\x1b[0m plain", []string{"red plain"}, Cursor{Col: 9}, false},
		{"hidden cursor", "\x1b[?25l", nil, Cursor{Hidden: true}, false},
		{"alternate screen", "main\x1b[?1049h\x1b[HALT", []string{"ALT"}, Cursor{Col: 3}, true},
		{"back from the alternate screen", "main\x1b[?1049hALT\x1b[?1049l", []string{"main"}, Cursor{Col: 4}, false},
		{"trailing blanks trimmed", "a   \x1b[41m   \x1b[0m", []string{"a"}, Cursor{Col: 7}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVTEmulator(80, 24, t.Logf)
			go drainAll(v)
			defer v.CloseReplies()
			v.Write([]byte(tc.out))
			s := v.Snapshot()
			want := make([]string, 24)
			copy(want, tc.lines)
			if diff := cmp.Diff(want, s.lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if s.cursor != tc.cursor || s.altScreen != tc.alt || s.cols != 80 || s.rows != 24 {
				t.Errorf("cursor %+v alt %v size %dx%d; want %+v alt %v 80x24", s.cursor, s.altScreen, s.cols, s.rows, tc.cursor, tc.alt)
			}
		})
	}
}

func TestScreenScrollsWithoutScrollback(t *testing.T) {
	t.Parallel()
	v := newVTEmulator(10, 3, t.Logf)
	go drainAll(v)
	defer v.CloseReplies()
	for _, l := range []string{"1", "2", "3", "4", "5"} {
		v.Write([]byte(l + "\r\n"))
	}
	if got := v.Snapshot().lines; !cmp.Equal(got, []string{"4", "5", ""}) {
		t.Errorf("lines = %q", got)
	}
	v.Resize(4, 2) // no reflow: shrinking cuts
	if s := v.Snapshot(); s.cols != 4 || s.rows != 2 || len(s.lines) != 2 {
		t.Errorf("after resize: %dx%d %q", s.cols, s.rows, s.lines)
	}
}
