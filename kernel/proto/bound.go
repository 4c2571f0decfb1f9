package proto

import (
	"strconv"
	"strings"
)

// BoundText applies the render bound of AGENT-SURFACE §2.9, shared by the
// kernel's renders and the MCP facade's tool and resource text: text over
// RenderCap bytes keeps whole leading lines within RenderCap−96 bytes (a
// hard cut on a rune boundary when the first line alone is too long) and
// ends with "…(<N> more lines, fetch via <uri>)"; an empty uri reads "ref".
func BoundText(s, uri string) string {
	if len(s) <= RenderCap {
		return s
	}
	limit := RenderCap - 96
	cut := strings.LastIndexByte(s[:limit+1], '\n')
	if cut <= 0 {
		cut = limit
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
	}
	rest := strings.TrimPrefix(s[cut:], "\n")
	more := strings.Count(rest, "\n") + 1
	if strings.HasSuffix(rest, "\n") {
		more--
	}
	if uri == "" {
		uri = "ref"
	}
	return s[:cut] + "\n…(" + strconv.Itoa(more) + " more lines, fetch via " + uri + ")"
}
