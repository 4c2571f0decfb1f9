package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// textCap is the most text one tool result or resource read carries
// (AGENT-SURFACE §2.9); the rest is fetched by reference.
const textCap = 65536

// boundText keeps whole leading lines within the cap and names where the
// rest can be fetched.
func boundText(s, uri string) string {
	if len(s) <= textCap {
		return s
	}
	budget := textCap - 96
	cut := strings.LastIndexByte(s[:budget], '\n')
	if cut <= 0 {
		cut = budget // the first line alone is too long: hard cut
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
	}
	remaining := s[cut:]
	if remaining[0] == '\n' {
		remaining = remaining[1:]
	}
	rest := strings.Count(remaining, "\n")
	if remaining != "" && !strings.HasSuffix(remaining, "\n") {
		rest++
	}
	where := uri
	if where == "" {
		where = "ref"
	}
	return s[:cut] + fmt.Sprintf("\n…(%d more lines, fetch via %s)", rest, where)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// prettyJSON indents raw JSON for tool text.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// refURI converts "kind:rest" to "shoal://kind/rest".
func refURI(ref string) string {
	kind, rest, ok := strings.Cut(ref, ":")
	if !ok || kind == "" || rest == "" {
		return ""
	}
	return "shoal://" + kind + "/" + rest
}

// uriRef converts "shoal://kind/rest" back to "kind:rest" for a link name.
func uriRef(uri string) string {
	rest, ok := strings.CutPrefix(uri, "shoal://")
	if !ok {
		return uri
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	kind, tail, ok := strings.Cut(rest, "/")
	if !ok {
		return rest
	}
	if strings.HasPrefix(tail, kind+":") {
		return tail
	}
	return kind + ":" + tail
}
