package kernel

import (
	"regexp"
	"strings"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
)

// renderBlock is the human rendering of a value in a reply: the REPL's block form at 80
// columns (null renders as nothing).
func renderBlock(v value.Value) string {
	if v == nil {
		return ""
	}
	return value.RenderBlock(v, proto.RenderWidth)
}

// ansiRE matches CSI and OSC escape sequences and lone ESC-prefixed two-byte sequences.
var ansiRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// stripANSI removes terminal escapes for clients without a tty.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRE.ReplaceAllString(s, "")
}

// boundRender applies AGENT-SURFACE §2.9: ANSI stripped unless tty, and a render over 64 KiB
// keeps whole leading lines within 65536−96 bytes (a hard cut when the first line alone is too
// long) followed by "…(<N> more lines, fetch via <uri>)".
func boundRender(s string, tty bool, uri string) string {
	if !tty {
		s = stripANSI(s)
	}
	return proto.BoundText(s, uri)
}
