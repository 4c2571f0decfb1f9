package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
)

// The JSON of a tools/call on its way in and out, written by hand: every agent call crosses
// this code twice, and encoding/json's reflection was a good part of the facade's own time.
// The output is byte for byte what encoding/json wrote (see TestWireMatchesEncodingJSON).

// callParams is a tools/call request's params.
type callParams struct {
	name          string
	arguments     json.RawMessage
	progressToken json.RawMessage
}

// decodeCallParams reads tools/call params. Like a struct decode it ignores unknown members
// and takes the last of repeated ones; unlike one it matches member names exactly, as MCP
// spells them.
func decodeCallParams(raw json.RawMessage) (callParams, error) {
	var p callParams
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	err := jsonrpc.Members(raw, func(k string, v json.RawMessage) error {
		switch k {
		case "name":
			s, ok := jsonrpc.String(v)
			if !ok {
				return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: name must be a string")
			}
			p.name = s
		case "arguments":
			p.arguments = v
		case "_meta":
			if string(v) == "null" {
				return nil
			}
			return jsonrpc.Members(v, func(k string, v json.RawMessage) error {
				if k == "progressToken" {
					p.progressToken = v
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		if _, ok := err.(*jsonrpc.Error); ok {
			return p, err
		}
		return p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	return p, nil
}

// AppendJSON writes the result as encoding/json would: content, structuredContent, isError.
func (r *callResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		switch c := c.(type) {
		case textContent:
			b = append(b, `{"type":`...)
			b = jsonrpc.AppendString(b, c.Type)
			b = append(b, `,"text":`...)
			b = jsonrpc.AppendString(b, c.Text)
			b = append(b, '}')
		case linkContent:
			b = append(b, `{"type":`...)
			b = jsonrpc.AppendString(b, c.Type)
			b = append(b, `,"uri":`...)
			b = jsonrpc.AppendString(b, c.URI)
			b = append(b, `,"name":`...)
			b = jsonrpc.AppendString(b, c.Name)
			b = append(b, `,"mimeType":`...)
			b = jsonrpc.AppendString(b, c.MimeType)
			b = append(b, '}')
		default:
			b = appendAny(b, c)
		}
	}
	b = append(b, `],"structuredContent":`...)
	b = appendRaw(b, r.StructuredContent)
	b = append(b, `,"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	return append(b, '}')
}

// AppendJSON writes the kernel exec request as encoding/json would (omitempty members left
// out when nil).
func (p *execCall) AppendJSON(b []byte) []byte {
	b = append(b, `{"src":`...)
	b = appendAny(b, p.Src)
	b = append(b, `,"mode":`...)
	b = appendAny(b, p.Mode)
	b = append(b, `,"position":`...)
	b = appendAny(b, p.Position)
	if p.Background != nil {
		b = append(b, `,"background":`...)
		b = appendAny(b, p.Background)
	}
	if p.TimeoutMs != nil {
		b = append(b, `,"timeout_ms":`...)
		b = appendAny(b, p.TimeoutMs)
	}
	if p.Elide != nil {
		b = append(b, `,"elide":`...)
		b = appendAny(b, p.Elide)
	}
	return append(b, '}')
}

// appendAny writes the scalars tool arguments decode to by hand and anything else (objects,
// arrays) through encoding/json, which sorts map keys.
func appendAny(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return jsonrpc.AppendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		if v != "" {
			return append(b, v...)
		}
	case int64:
		return strconv.AppendInt(b, v, 10)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendRaw writes a raw value as encoding/json does: null when absent, else compacted.
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if raw == nil {
		return append(b, "null"...)
	}
	n := len(b)
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return append(b[:n], "null"...)
	}
	return buf.Bytes()
}
