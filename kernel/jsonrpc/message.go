package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
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

// decodeError is a frame that must be answered with an error. id is the request id to echo,
// nil meaning `null` (the id could not be trusted or was absent).
type decodeError struct {
	id      json.RawMessage
	err     *Error
	noReply bool // a broken response: answering it could start a reply loop between peers
}

// decode classifies one frame. It never panics on any input; the fuzz target checks that.
//
// line is the FrameReader's buffer, which the next read overwrites, so everything decode
// returns is copied out of it: the raw id and params (or result) share one allocation, each
// capped so that an append to one cannot run into the other.
func decode(line []byte) (message, *decodeError) {
	env, kind := scanEnvelope(line)
	switch kind {
	case scanInvalid:
		detail := "invalid JSON"
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			detail = err.Error()
		}
		return message{}, &decodeError{err: NewError(CodeParseError, "parse error", map[string]string{"detail": detail})}
	case scanNotObject:
		// Batches are not part of Shoal's protocol; an array is answered, not silently dropped.
		return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid request: frame is not a JSON object")}
	}
	if env.ID != nil && !validID(env.ID) {
		return message{}, &decodeError{err: Errorf(CodeInvalidRequest, "invalid request: id must be a string, number or null")}
	}
	if !validVersion(env.JSONRPC) {
		return message{}, &decodeError{id: clone(env.ID), err: Errorf(CodeInvalidRequest, "invalid JSON-RPC version")}
	}
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			return message{}, &decodeError{id: clone(env.ID), err: Errorf(CodeInvalidRequest, "invalid request: missing method")}
		}
		return decodeResponse(&env)
	}
	method, ok := decodeString(env.Method)
	if !ok {
		return message{}, &decodeError{id: clone(env.ID), err: Errorf(CodeInvalidRequest, "invalid request: method must be a string")}
	}
	id, params := clone2(env.ID, env.Params)
	return message{req: &Request{ID: id, Method: method, Params: params}}, nil
}

// validVersion reports whether the raw "jsonrpc" member (nil when absent) is the string "2.0".
// Anything but the plain spelling (escapes, say) is decoded by encoding/json to decide.
func validVersion(raw json.RawMessage) bool {
	if string(raw) == `"2.0"` {
		return true
	}
	var version string
	return raw != nil && json.Unmarshal(raw, &version) == nil && version == Version
}

// decodeString decodes a raw member as a Go string the way json.Unmarshal does (a null leaves
// it empty; invalid UTF-8 becomes U+FFFD), with a fast path for plain strings.
func decodeString(raw json.RawMessage) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		s := raw[1 : len(raw)-1]
		if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			return string(s), true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// clone copies a raw value out of the frame buffer; nil stays nil.
func clone(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return bytes.Clone(raw)
}

// clone2 copies two raw values out of the frame buffer into one allocation; nil stays nil.
func clone2(a, b json.RawMessage) (json.RawMessage, json.RawMessage) {
	buf := make([]byte, 0, len(a)+len(b))
	if a != nil {
		buf = append(buf, a...)
		a = buf[:len(a):len(a)]
	}
	if b != nil {
		buf = append(buf[len(buf):], b...)
		b = buf[:len(b):len(b)]
	}
	return a, b
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
	resp := &Response{}
	if env.Error != nil {
		var e Error
		if json.Unmarshal(env.Error, &e) != nil { // copies e.Data
			return bad("malformed error object")
		}
		resp.Error = &e
	}
	resp.ID, resp.Result = clone2(env.ID, env.Result)
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
	b = AppendString(b, method) // JSON quoting, not strconv's: Go escapes like \x00 are not JSON
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
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(nil), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
