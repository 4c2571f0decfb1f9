package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
)

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
