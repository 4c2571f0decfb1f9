package term

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrInvalidInput is wrapped by every error caused by bad caller input: an unknown key
// name, a malformed pty.send input, bad base64, an empty command. The kernel maps it to
// INVALID_PARAMS (-32602).
var ErrInvalidInput = errors.New("invalid input")

// KeyError reports a key name that [EncodeKey] does not know.
type KeyError struct {
	Name string
}

func (e *KeyError) Error() string { return fmt.Sprintf("unknown key %q", e.Name) }

// Unwrap lets callers test for [ErrInvalidInput].
func (e *KeyError) Unwrap() error { return ErrInvalidInput }

// namedKeys maps lower-cased key names (aliases included) to the bytes an xterm sends in
// normal cursor-key mode.
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "cr": "\r",
	"newline": "\n", "lf": "\n",
	"tab":     "\t",
	"backtab": "\x1b[Z", "shift-tab": "\x1b[Z",
	"escape": "\x1b", "esc": "\x1b",
	"backspace": "\x7f", "bs": "\x7f",
	"delete": "\x1b[3~", "del": "\x1b[3~",
	"insert": "\x1b[2~", "ins": "\x1b[2~",
	"space": " ",
	"up":    "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F",
	"pageup": "\x1b[5~", "pgup": "\x1b[5~",
	"pagedown": "\x1b[6~", "pgdn": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// appCursorKeys are the keys whose encoding changes when the program has switched the
// terminal to application cursor-key mode (DECCKM, "CSI ? 1 h"). A real xterm sends
// SS3 forms then; programs such as vim and less enable the mode and expect them, and
// they still accept the CSI forms, so following the mode is never worse.
var appCursorKeys = map[string]string{
	"up": "\x1bOA", "down": "\x1bOB", "right": "\x1bOC", "left": "\x1bOD",
	"home": "\x1bOH", "end": "\x1bOF",
}

// ctrlSymbols are the non-letter characters a Ctrl chord accepts.
var ctrlSymbols = map[string]byte{
	"space": 0x00, "@": 0x00, "[": 0x1b, "\\": 0x1c, "]": 0x1d, "^": 0x1e, "_": 0x1f, "?": 0x7f,
}

// EncodeKey returns the bytes for a named key (case-insensitive), as listed in
// docs/pty.md: named keys and their aliases, "Ctrl-"/"C-" chords, "Alt-"/"M-" chords
// (ESC followed by the key's bytes) and single characters (sent as themselves).
// appCursor selects the application cursor-key encoding of arrows, Home and End.
// An unknown name returns a [*KeyError].
func EncodeKey(name string, appCursor bool) ([]byte, error) {
	s, ok := encodeKey(name, appCursor, 0)
	if !ok {
		return nil, &KeyError{Name: name}
	}
	return []byte(s), nil
}

func encodeKey(name string, appCursor bool, depth int) (string, bool) {
	lower := strings.ToLower(name)
	if appCursor {
		if s, ok := appCursorKeys[lower]; ok {
			return s, true
		}
	}
	if s, ok := namedKeys[lower]; ok {
		return s, true
	}
	// A lone character is its own key; this is what makes "Alt-b" and "Ctrl-Alt-x"
	// compose. Checked before prefixes so "C" and "M" stay plain letters.
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError {
		return name, true
	}
	// Bound the recursion so "Alt-Alt-Alt-…" input of any length stays cheap.
	if depth > 4 {
		return "", false
	}
	for _, p := range []string{"alt-", "m-"} {
		if rest, ok := strings.CutPrefix(lower, p); ok && rest != "" {
			s, ok := encodeKey(name[len(p):], appCursor, depth+1)
			if !ok {
				return "", false
			}
			return "\x1b" + s, true
		}
	}
	for _, p := range []string{"ctrl-", "c-"} {
		if rest, ok := strings.CutPrefix(lower, p); ok && rest != "" {
			if b, ok := ctrlSymbols[rest]; ok {
				return string([]byte{b}), true
			}
			if len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
				return string([]byte{rest[0] - 'a' + 1}), true
			}
			return "", false
		}
	}
	return "", false
}
