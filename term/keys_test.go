package term

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		appCursor bool
		want      string
	}{
		{"Enter", false, "\r"}, {"return", false, "\r"}, {"CR", false, "\r"},
		{"Newline", false, "\n"}, {"lf", false, "\n"},
		{"Tab", false, "\t"},
		{"Backtab", false, "\x1b[Z"}, {"Shift-Tab", false, "\x1b[Z"}, {"shift-tab", false, "\x1b[Z"},
		{"Escape", false, "\x1b"}, {"ESC", false, "\x1b"},
		{"Backspace", false, "\x7f"}, {"bs", false, "\x7f"},
		{"Delete", false, "\x1b[3~"}, {"Del", false, "\x1b[3~"},
		{"Insert", false, "\x1b[2~"}, {"ins", false, "\x1b[2~"},
		{"Space", false, " "},
		{"Up", false, "\x1b[A"}, {"Down", false, "\x1b[B"}, {"Right", false, "\x1b[C"}, {"Left", false, "\x1b[D"},
		{"Home", false, "\x1b[H"}, {"End", false, "\x1b[F"},
		{"up", true, "\x1bOA"}, {"DOWN", true, "\x1bOB"}, {"Right", true, "\x1bOC"}, {"Left", true, "\x1bOD"},
		{"Home", true, "\x1bOH"}, {"End", true, "\x1bOF"},
		{"PageUp", false, "\x1b[5~"}, {"PgUp", false, "\x1b[5~"},
		{"PageDown", false, "\x1b[6~"}, {"pgdn", false, "\x1b[6~"},
		{"PageUp", true, "\x1b[5~"}, {"Delete", true, "\x1b[3~"},
		{"F1", false, "\x1bOP"}, {"F2", false, "\x1bOQ"}, {"F3", false, "\x1bOR"}, {"f4", false, "\x1bOS"},
		{"F5", false, "\x1b[15~"}, {"F6", false, "\x1b[17~"}, {"F7", false, "\x1b[18~"}, {"F8", false, "\x1b[19~"},
		{"F9", false, "\x1b[20~"}, {"F10", false, "\x1b[21~"}, {"F11", false, "\x1b[23~"}, {"F12", false, "\x1b[24~"},
		{"Ctrl-a", false, "\x01"}, {"ctrl-C", false, "\x03"}, {"C-z", false, "\x1a"}, {"CTRL-Z", false, "\x1a"},
		{"Ctrl-Space", false, "\x00"}, {"C-@", false, "\x00"}, {"Ctrl-[", false, "\x1b"},
		{"Ctrl-\\", false, "\x1c"}, {"Ctrl-]", false, "\x1d"}, {"Ctrl-^", false, "\x1e"},
		{"Ctrl-_", false, "\x1f"}, {"Ctrl-?", false, "\x7f"},
		{"Alt-b", false, "\x1bb"}, {"M-f", false, "\x1bf"}, {"alt-Enter", false, "\x1b\r"},
		{"M-Up", true, "\x1b\x1bOA"}, {"Alt-Ctrl-x", false, "\x1b\x18"}, {"M-C-a", false, "\x1b\x01"},
		{"a", false, "a"}, {"C", false, "C"}, {"M", false, "M"}, {"é", false, "é"}, {"-", false, "-"},
	}
	for _, tc := range tests {
		got, err := EncodeKey(tc.name, tc.appCursor)
		if err != nil {
			t.Errorf("EncodeKey(%q, %v): %v", tc.name, tc.appCursor, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("EncodeKey(%q, %v) = %q, want %q", tc.name, tc.appCursor, got, tc.want)
		}
	}
}

func TestEncodeKeyUnknown(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "Nope", "Ctrl-", "Ctrl-1", "Ctrl-ab", "Alt-", "M-Nope", "F13", "F0",
		"Ctrl-Enter", "ab", "Alt-Alt-Alt-Alt-Alt-Alt-Alt-x", "\xff"} {
		_, err := EncodeKey(name, false)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Name != name {
			t.Errorf("EncodeKey(%q): err = %v, want *KeyError for it", name, err)
		}
		if !errors.Is(err, ErrInvalidInput) {
			t.Errorf("EncodeKey(%q): %v does not wrap ErrInvalidInput", name, err)
		}
	}
}

func TestParseInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want Input
	}{
		{`"hello"`, Input{{Bytes: []byte("hello")}}},
		{`"é\n"`, Input{{Bytes: []byte("é\n")}}},
		{`{"text":"ls"}`, Input{{Bytes: []byte("ls")}}},
		{`{"key":"Enter"}`, Input{{Key: "Enter"}}},
		{`{"bytes":"AAEC/w=="}`, Input{{Bytes: []byte{0, 1, 2, 0xff}}}},
		{` ["hello", {"key":"Enter"}, {"text":"x"}, {"bytes":"Aw=="}] `,
			Input{{Bytes: []byte("hello")}, {Key: "Enter"}, {Bytes: []byte("x")}, {Bytes: []byte{3}}}},
		{`[]`, nil},
	}
	for _, tc := range tests {
		got, err := ParseInput([]byte(tc.raw))
		if err != nil {
			t.Errorf("ParseInput(%s): %v", tc.raw, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseInput(%s) (-want +got):\n%s", tc.raw, diff)
		}
	}
	in, err := ParseInput([]byte(`["hello",{"key":"Enter"}]`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := in.Encode(false)
	if err != nil || string(b) != "hello\r" {
		t.Errorf("Encode = %q, %v; want \"hello\\r\"", b, err)
	}
}

func TestParseInputErrors(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		``, `null`, `42`, `true`, `{}`, `{"key":"Nope"}`, `{"bytes":"!!!"}`, `{"text":1}`,
		`{"text":"a","key":"Enter"}`, `{"other":"x"}`, `[["a"]]`, `[1]`, `["a", {"key":"Nope"}]`,
		`"unterminated`, `[`, `{"key":null}`,
	} {
		_, err := ParseInput([]byte(raw))
		if !errors.Is(err, ErrInvalidInput) {
			t.Errorf("ParseInput(%s) = %v, want an ErrInvalidInput error", raw, err)
		}
	}
	_, err := ParseInput([]byte(`{"key":"Nope"}`))
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Name != "Nope" {
		t.Errorf("unknown key: got %v, want *KeyError{Nope}", err)
	}
}

func FuzzParseInput(f *testing.F) {
	for _, s := range []string{`"x"`, `{"key":"C-a"}`, `[{"bytes":"AA=="},"y"]`, `{"key":"M-M-M-x"}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := ParseInput(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("ParseInput(%q): error %v does not wrap ErrInvalidInput", raw, err)
			}
			return
		}
		// Keys were validated by ParseInput, so encoding must succeed in both modes.
		for _, app := range []bool{false, true} {
			if _, err := in.Encode(app); err != nil {
				t.Fatalf("Encode after ParseInput(%q): %v", raw, err)
			}
		}
	})
}
