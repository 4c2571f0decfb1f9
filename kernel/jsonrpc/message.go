package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes. Shoal's application codes (-32000 to -32099) are defined
// in kernel/proto, never here.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Version is the only accepted value of the "jsonrpc" member.
const Version = "2.0"

// Request is an incoming or outgoing call. A nil ID makes it a notification, which is never
// answered. ID and Params are kept as raw JSON so ids such as 1.5 or 12345678901234567890 are
// echoed byte for byte; an explicit `"id":null` is a request whose ID is the four bytes null.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// IsNotification reports whether r carries no id and so must not be answered.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response answers a request. Exactly one of Result and Error is meaningful: a non-nil Error
// wins, and a nil Result with a nil Error is sent as `"result":null`.
type Response struct {
	ID     json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// Error is a JSON-RPC error object. Handlers return it (directly or wrapped) to choose the code,
// message and data of the reply; any other error becomes [CodeInternalError].
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error formats the code and message; data is left out because it may be large.
func (e *Error) Error() string {
	if e == nil {
		return "jsonrpc error <nil>"
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError builds an Error whose data is the JSON encoding of data; a nil data is omitted. If
// data cannot be encoded the error still carries code and message and the data says why, since
// losing the whole error would be worse.
func NewError(code int, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data == nil {
		return e
	}
	if raw, ok := data.(json.RawMessage); ok {
		e.Data = raw
		return e
	}
	b, err := marshal(data)
	if err != nil {
		b, _ = marshal(map[string]string{"marshal_error": err.Error()})
	}
	e.Data = b
	return e
}

// Errorf builds an Error without data.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// message is one decoded frame: a request, a notification or a response.
type message struct {
	req  *Request  // set for requests and notifications
	resp *Response // set for responses
}

// envelope holds the members a frame may carry, all raw so that absent (nil) and null
// ("null") stay distinguishable and nothing is reinterpreted.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// parseEnvelope picks the members by exact name. encoding/json's struct decoding matches
// keys case-insensitively, which would accept "ID" or "Method"; JSON-RPC member names are
// case-sensitive, so unknown spellings are ignored like any other unknown member.
func parseEnvelope(line []byte) (envelope, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return envelope{}, err
	}
	return envelope{
		JSONRPC: m["jsonrpc"], ID: m["id"], Method: m["method"],
		Params: m["params"], Result: m["result"], Error: m["error"],
	}, nil
}

// decodeError is a frame that must be answered with an error. id is the request id to echo,
// nil meaning `null` (the id could not be trusted or was absent).
type decodeError struct {
	id      json.RawMessage
	err     *Error
	noReply bool // a broken response: answering it could start a reply loop between peers
}

// decode classifies one frame. It never panics on any input; the fuzz target checks that.
func decode(line []byte) (message, *decodeError) {
	if !json.Valid(line) {
		detail := "invalid JSON"
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			detail = err.Error()
		}
		return message{}, &decodeError{err: NewError(CodeParseError, "parse error", map[string]string{"detail": detail})}
	}
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		// Batches are not part of Shoal's protocol; an array is answered, not silently dropped.
		return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid request: frame is not a JSON object")}
	}
	env, err := parseEnvelope(line)
	if err != nil {
		return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid request: %v", err)}
	}
	var id json.RawMessage
	if env.ID != nil {
		if !validID(env.ID) {
			return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid request: id must be a string, number or null")}
		}
		id = env.ID
	}
	var version string
	if env.JSONRPC == nil || json.Unmarshal(env.JSONRPC, &version) != nil || version != Version {
		return message{}, &decodeError{id: id, err: Errorf(CodeInvalidRequest, "invalid JSON-RPC version")}
	}
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			return message{}, &decodeError{id: id, err: Errorf(CodeInvalidRequest, "invalid request: missing method")}
		}
		return decodeResponse(&env)
	}
	var method string
	if json.Unmarshal(env.Method, &method) != nil {
		return message{}, &decodeError{id: id, err: Errorf(CodeInvalidRequest, "invalid request: method must be a string")}
	}
	return message{req: &Request{ID: id, Method: method, Params: env.Params}}, nil
}

// decodeResponse validates a response frame. A broken response is only logged, never answered.
func decodeResponse(env *envelope) (message, *decodeError) {
	bad := func(msg string) (message, *decodeError) {
		return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid response: %s", msg), noReply: true}
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

// validID accepts the id kinds JSON-RPC allows: string, number or null.
func validID(raw json.RawMessage) bool {
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

// idKey turns an id into a map key. Ids are compared as written, so the client side only
// matches responses whose id is byte-identical to what it sent (it always sends integers).
func idKey(id json.RawMessage) string { return string(id) }

// appendResponse encodes a response frame (without the newline). The id is copied verbatim;
// the caller guarantees result is valid JSON.
func appendResponse(b []byte, id json.RawMessage, result json.RawMessage, e *Error) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	if e != nil {
		eb, err := marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode error object: %w", err)
		}
		b = append(b, `,"error":`...)
		b = append(b, eb...)
	} else {
		b = append(b, `,"result":`...)
		if result == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, result...)
		}
	}
	return append(b, '}'), nil
}

// appendRequest encodes a request or notification frame (nil id). Params are omitted when nil.
func appendRequest(b []byte, id json.RawMessage, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	// encoding/json quoting, not strconv's: Go escapes like \x00 are not JSON.
	mb, _ := json.Marshal(method) // a string always encodes
	b = append(b, mb...)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// marshal encodes v without HTML escaping (renders contain < and & and must stay readable) and
// without the trailing newline json.Encoder adds. A json.RawMessage passes through unchanged
// apart from validation and compaction.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
