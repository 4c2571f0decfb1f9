package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
)

// Handler serves one request or notification. The returned result is encoded as JSON (a
// json.RawMessage is sent as is). A returned *[Error], possibly wrapped, chooses the wire
// error; any other error is sent as [CodeInternalError]. For notifications the result is
// discarded and an error is only logged.
type Handler interface {
	Handle(ctx context.Context, req *Request) (any, error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Router is a method table. Unknown methods are answered -32601 with data {method}. A Router is
// filled before serving and then only read, so it needs no lock.
type Router struct {
	routes   map[string]Handler
	fallback Handler
}

// NewRouter returns an empty method table.
func NewRouter() *Router { return &Router{routes: map[string]Handler{}} }

// Register adds a method. Registering a method twice is a programming error and panics, since
// two handlers for one name would silently shadow each other.
func (r *Router) Register(method string, h Handler) {
	if _, dup := r.routes[method]; dup {
		panic("jsonrpc: method registered twice: " + method)
	}
	r.routes[method] = h
}

// Fallback sets a handler for methods not in the table (for example a facade that forwards
// everything else); nil restores the -32601 answer.
func (r *Router) Fallback(h Handler) { r.fallback = h }

// Methods lists the registered method names, sorted.
func (r *Router) Methods() []string {
	names := make([]string, 0, len(r.routes))
	for m := range r.routes {
		names = append(names, m)
	}
	slices.Sort(names)
	return names
}

// Handle dispatches on req.Method.
func (r *Router) Handle(ctx context.Context, req *Request) (any, error) {
	if h, ok := r.routes[req.Method]; ok {
		return h.Handle(ctx, req)
	}
	if r.fallback != nil {
		return r.fallback.Handle(ctx, req)
	}
	return nil, MethodNotFound(req.Method)
}

// MethodNotFound is the -32601 error for method, with data {method}.
func MethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, "method not found", map[string]string{"method": method})
}

// Typed adapts a function taking decoded params. Absent or null params decode as the zero P;
// unknown fields are ignored (the protocol allows them); a decode failure is answered -32602
// "invalid params: …" before f runs.
func Typed[P, R any](f func(ctx context.Context, req *Request, params P) (R, error)) Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p P
		if err := DecodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return f(ctx, req, p)
	})
}

// DecodeParams decodes raw params into p, mapping failure to a -32602 *Error. Absent and null
// params leave p untouched.
func DecodeParams(raw json.RawMessage, p any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return Errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
