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

// namedKey returns the bytes an xterm sends for a lower-cased key name (aliases
// included) in normal cursor-key mode.
func namedKey(name string) (string, bool) {
	switch name {
	case "enter", "return", "cr":
		return "\r", true
	case "newline", "lf":
		return "\n", true
	case "tab":
		return "\t", true
	case "backtab", "shift-tab":
		return "\x1b[Z", true
	case "escape", "esc":
		return "\x1b", true
	case "backspace", "bs":
		return "\x7f", true
	case "delete", "del":
		return "\x1b[3~", true
	case "insert", "ins":
		return "\x1b[2~", true
	case "space":
		return " ", true
	case "up":
		return "\x1b[A", true
	case "down":
		return "\x1b[B", true
	case "right":
		return "\x1b[C", true
	case "left":
		return "\x1b[D", true
	case "home":
		return "\x1b[H", true
	case "end":
		return "\x1b[F", true
	case "pageup", "pgup":
		return "\x1b[5~", true
	case "pagedown", "pgdn":
		return "\x1b[6~", true
	case "f1":
		return "\x1bOP", true
	case "f2":
		return "\x1bOQ", true
	case "f3":
		return "\x1bOR", true
	case "f4":
		return "\x1bOS", true
	case "f5":
		return "\x1b[15~", true
	case "f6":
		return "\x1b[17~", true
	case "f7":
		return "\x1b[18~", true
	case "f8":
		return "\x1b[19~", true
	case "f9":
		return "\x1b[20~", true
	case "f10":
		return "\x1b[21~", true
	case "f11":
		return "\x1b[23~", true
	case "f12":
		return "\x1b[24~", true
	}
	return "", false
}

// appCursorKey returns the encoding of the keys that change when the program has
// switched the terminal to application cursor-key mode (DECCKM, "CSI ? 1 h"). A real
// xterm sends SS3 forms then; programs such as vim and less enable the mode and expect
// them (they accept the CSI forms too, so following the mode is never worse).
func appCursorKey(name string) (string, bool) {
	switch name {
	case "up":
		return "\x1bOA", true
	case "down":
		return "\x1bOB", true
	case "right":
		return "\x1bOC", true
	case "left":
		return "\x1bOD", true
	case "home":
		return "\x1bOH", true
	case "end":
		return "\x1bOF", true
	}
	return "", false
}

// ctrlSymbol returns the byte of a Ctrl chord on a non-letter.
func ctrlSymbol(name string) (byte, bool) {
	switch name {
	case "space", "@":
		return 0x00, true
	case "[":
		return 0x1b, true
	case "\\":
		return 0x1c, true
	case "]":
		return 0x1d, true
	case "^":
		return 0x1e, true
	case "_":
		return 0x1f, true
	case "?":
		return 0x7f, true
	}
	return 0, false
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
		if s, ok := appCursorKey(lower); ok {
			return s, true
		}
	}
	if s, ok := namedKey(lower); ok {
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
			if b, ok := ctrlSymbol(rest); ok {
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
