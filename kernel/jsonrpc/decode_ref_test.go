package jsonrpc

// The decoder as it was before the hand-written envelope scanner: json.Valid, then a
// map[string]json.RawMessage decode, then small json.Unmarshal calls. It is kept verbatim
// (renamed, with its own marshal so later changes there cannot leak in) as the oracle the
// differential fuzz target FuzzDecodeMatchesReference compares decode against.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

type refEnvelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

func refParseEnvelope(line []byte) (refEnvelope, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return refEnvelope{}, err
	}
	return refEnvelope{
		JSONRPC: m["jsonrpc"], ID: m["id"], Method: m["method"],
		Params: m["params"], Result: m["result"], Error: m["error"],
	}, nil
}

func refDecode(line []byte) (message, *decodeError) {
	if !json.Valid(line) {
		detail := "invalid JSON"
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			detail = err.Error()
		}
		return message{}, &decodeError{err: refNewError(CodeParseError, "parse error", map[string]string{"detail": detail})}
	}
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return message{}, &decodeError{err: refErrorf(CodeInvalidRequest, "invalid request: frame is not a JSON object")}
	}
	env, err := refParseEnvelope(line)
	if err != nil {
		return message{}, &decodeError{err: refErrorf(CodeInvalidRequest, "invalid request: %v", err)}
	}
	var id json.RawMessage
	if env.ID != nil {
		if !refValidID(env.ID) {
			return message{}, &decodeError{err: refErrorf(CodeInvalidRequest, "invalid request: id must be a string, number or null")}
		}
		id = env.ID
	}
	var version string
	if env.JSONRPC == nil || json.Unmarshal(env.JSONRPC, &version) != nil || version != Version {
		return message{}, &decodeError{id: id, err: refErrorf(CodeInvalidRequest, "invalid JSON-RPC version")}
	}
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			return message{}, &decodeError{id: id, err: refErrorf(CodeInvalidRequest, "invalid request: missing method")}
		}
		return refDecodeResponse(&env)
	}
	var method string
	if json.Unmarshal(env.Method, &method) != nil {
		return message{}, &decodeError{id: id, err: refErrorf(CodeInvalidRequest, "invalid request: method must be a string")}
	}
	return message{req: &Request{ID: id, Method: method, Params: env.Params}}, nil
}

func refDecodeResponse(env *refEnvelope) (message, *decodeError) {
	bad := func(msg string) (message, *decodeError) {
		return message{}, &decodeError{err: refErrorf(CodeInvalidRequest, "invalid response: %s", msg), noReply: true}
	}
	if env.ID == nil {
		return bad("missing id")
	}
	if env.Result != nil && env.Error != nil {
		return bad("both result and error")
	}
	resp := &Response{ID: env.ID, Result: env.Result}
	if env.Error != nil {
		var e Error
		if json.Unmarshal(env.Error, &e) != nil {
			return bad("malformed error object")
		}
		resp.Error = &e
	}
	return message{resp: resp}, nil
}

func refValidID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	default:
		return string(raw) == "null"
	}
}

func refNewError(code int, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data == nil {
		return e
	}
	if raw, ok := data.(json.RawMessage); ok {
		e.Data = raw
		return e
	}
	b, err := refMarshal(data)
	if err != nil {
		b, _ = refMarshal(map[string]string{"marshal_error": err.Error()})
	}
	e.Data = b
	return e
}

func refErrorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func refMarshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
