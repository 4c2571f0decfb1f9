package kernel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// parseRef reads "kind:N" (N ≥ 1).
func parseRef(ref, kind string) (int, bool) {
	rest, ok := strings.CutPrefix(ref, kind+":")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 1 && strconv.Itoa(n) == rest
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// resolveRef turns "out:N" or "it" into N and the stored value.
func (s *Server) resolveRef(cs *connState, a *attachment, ref string) (int, value.Value, error) {
	n, ok := parseRef(ref, "out")
	if ref == "it" {
		n, ok = cs.lastIt(a.sess), true
	}
	if ok {
		if v, found := a.sess.out(n); found {
			return n, v, nil
		}
	}
	return 0, nil, jsonrpc.NewError(proto.CodeUnknownRef, proto.MsgUnknownRef, map[string]string{"ref": ref})
}

// handleValueGet reads a transcript value: lookup, path, slice, format (AGENT-SURFACE §2.5.4).
func (s *Server) handleValueGet(ctx context.Context, cs *connState, a *attachment, p proto.ValueGetParams) (*proto.ValueGetResult, error) {
	n, v, err := s.resolveRef(cs, a, p.Ref)
	if err != nil {
		return nil, err
	}
	ref := "out:" + strconv.Itoa(n)
	uri := "shoal://out/" + strconv.Itoa(n)
	if p.Path != "" {
		steps, err := value.ParsePath(p.Path)
		if err == nil {
			v, err = value.ApplyPath(v, steps)
		}
		if err != nil {
			return nil, jsonrpc.NewError(proto.CodeBadPathOrSlice, diagMsg(err), map[string]string{"ref": ref, "path": p.Path})
		}
		uri += "?path=" + p.Path
	}
	if p.Slice != nil {
		if len(p.Slice) != 2 {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: slice needs exactly two bounds")
		}
		sliced, err := value.Slice(v, int64(p.Slice[0]), int64(p.Slice[1]))
		if err != nil {
			if code := diag.CodeOf(err); code == diag.IOError || code == diag.NotFound {
				return nil, jsonrpc.NewError(proto.CodeUnknownRef, diagMsg(err), map[string]string{"ref": ref, "code": code})
			}
			return nil, jsonrpc.NewError(proto.CodeBadPathOrSlice, "cannot slice a "+value.TypeName(v), map[string]string{"ref": ref, "path": p.Path})
		}
		v = sliced
	}
	res := &proto.ValueGetResult{Ref: ref}
	switch p.Format {
	case "", "json":
		res.Value = elide(v, uri, budgetFor(p.Elide))
	case "render":
		r := boundRender(renderBlock(v), a.tty, uri)
		res.Render = &r
	case "raw":
		return s.raw(ctx, res, v)
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: format must be json, render or raw", map[string]string{"format": p.Format})
	}
	return res, nil
}

// raw returns str or bytes verbatim, refusing more than 64 KiB (page with slice).
func (s *Server) raw(ctx context.Context, res *proto.ValueGetResult, v value.Value) (*proto.ValueGetResult, error) {
	tooLong := func(n int64) error {
		return jsonrpc.NewError(proto.CodeBadPathOrSlice, fmt.Sprintf("raw payload of %d bytes exceeds %d; page with slice", n, proto.MaxRaw),
			map[string]int64{"len": n, "max": proto.MaxRaw})
	}
	switch x := v.(type) {
	case value.Str:
		if len(x) > proto.MaxRaw {
			return nil, tooLong(int64(len(x)))
		}
		str := string(x)
		res.Raw = &str
		return res, nil
	case *value.Bytes:
		if x.Length() > proto.MaxRaw {
			return nil, tooLong(x.Length())
		}
		data := x.Data
		if data == nil && x.Load != nil {
			var err error
			if data, err = x.Load(ctx); err != nil {
				return nil, jsonrpc.NewError(proto.CodeUnknownRef, err.Error(), map[string]string{"ref": res.Ref, "code": diag.CodeOf(err)})
			}
		}
		enc := base64.StdEncoding.EncodeToString(data)
		res.RawBase64 = &enc
		return res, nil
	}
	return nil, jsonrpc.NewError(proto.CodeBadPathOrSlice, "format raw needs a str or bytes, not "+value.TypeName(v), map[string]string{"ref": res.Ref})
}

func diagMsg(err error) string {
	if d := diag.As(err); d != nil {
		return d.Msg
	}
	return err.Error()
}

// handleBlobGet serves a CAS blob the caller may read (AGENT-SURFACE §2.5.5).
func (s *Server) handleBlobGet(ctx context.Context, cs *connState, a *attachment, p proto.BlobGetParams) (*proto.BlobGetResult, error) {
	unknown := jsonrpc.NewError(proto.CodeUnknownRef, proto.MsgUnknownHash, map[string]string{"hash": p.Hash})
	h := strings.TrimPrefix(p.Hash, "blake3:")
	if !validHash(h) {
		return nil, unknown
	}
	ok, err := s.journal.BlobVisible(ctx, h, a.id.Principal, s.policy.ReadAll(a.id))
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "journal: %v", err)
	}
	if !ok {
		return nil, unknown
	}
	data, err := s.journal.Blob(ctx, h)
	if err != nil {
		return nil, unknown
	}
	if p.Offset == nil && p.Length == nil && len(data) <= proto.BlobChunk && json.Valid(data) {
		return &proto.BlobGetResult{Hash: h, Value: data}, nil
	}
	off := int64(0)
	if p.Offset != nil {
		off = min(max(*p.Offset, 0), int64(len(data)))
	}
	n := int64(proto.BlobChunk)
	if p.Length != nil {
		n = min(max(*p.Length, 0), n)
	}
	end := min(off+n, int64(len(data)))
	chunk := struct {
		Tag    string `json:"$"`
		Len    int    `json:"len"`
		Offset int64  `json:"offset"`
		V      string `json:"v"`
	}{"bytes", len(data), off, base64.StdEncoding.EncodeToString(data[off:end])}
	raw, _ := json.Marshal(chunk)
	return &proto.BlobGetResult{Hash: h, Value: raw}, nil
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// handleStreamPull pulls items from a stored stream value.
func (s *Server) handleStreamPull(ctx context.Context, cs *connState, a *attachment, p proto.StreamPullParams) (*proto.StreamPullResult, error) {
	n, v, err := s.resolveRef(cs, a, p.Ref)
	if err != nil {
		return nil, err
	}
	st, ok := v.(*value.Stream)
	if !ok || st.Src == nil {
		return nil, jsonrpc.NewError(proto.CodeBadPathOrSlice, "not a stream: "+value.TypeName(v), map[string]string{"ref": p.Ref})
	}
	maxItems := 100
	if p.MaxItems != nil {
		maxItems = min(max(*p.MaxItems, 1), 10000)
	}
	wait := time.Second
	if p.TimeoutMs != nil {
		wait = time.Duration(max(*p.TimeoutMs, 0)) * time.Millisecond
	}
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res := &proto.StreamPullResult{Ref: "out:" + strconv.Itoa(n), Items: []json.RawMessage{}}
	for len(res.Items) < maxItems {
		item, more, err := st.Src.Next(pctx)
		if err != nil {
			if pctx.Err() != nil && ctx.Err() == nil {
				break // time is up: return what we have
			}
			return nil, jsonrpc.NewError(proto.CodeRaised, diagMsg(err), map[string]string{"code": diag.CodeOf(err)})
		}
		if !more {
			res.Done = true
			break
		}
		res.Items = append(res.Items, EncodeWire(item))
	}
	return res, nil
}
