package eval

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/value"
)

// namespaceField reads ns.member as a field (§10).
func (t *thread) namespaceField(ns, member string) (value.Value, error) {
	switch ns {
	case "env":
		if v, ok := t.e.getenv(member); ok {
			return value.Str(v), nil
		}
		return nil, diag.New(diag.FieldMissing, "missing field `%s`", member).
			WithHint("env.NAME requires the variable to be set; use os.env().get(\"" + member + "\") for null when missing")
	case "config":
		if t.e.opts.Config != nil {
			if v, ok := t.e.opts.Config.Get(member); ok {
				return v, nil
			}
		}
		if member == "all" || member == "get" {
			return nil, diag.New(diag.FieldMissing, "config.%s is a function — call it", member)
		}
		return value.Null{}, nil
	case "os", "http", "secret":
		if nsHasMember(ns, member) {
			return nil, diag.New(diag.FieldMissing, "%s.%s is a function — call it", ns, member)
		}
		return nil, diag.New(diag.FieldMissing, "unknown member `%s.%s`", ns, member)
	}
	return lib.NamespaceField(ns, member)
}

func nsHasMember(ns, member string) bool {
	switch ns {
	case "os":
		switch member {
		case "platform", "arch", "pid", "hostname", "username", "cpus", "uptime", "env":
			return true
		}
	case "http":
		switch member {
		case "get", "delete", "post", "put":
			return true
		}
	case "secret":
		return member == "get"
	}
	return false
}

// namespaceCall calls ns.member(args…) (§10).
func (t *thread) namespaceCall(ns, member string, pos []value.Value, named []lib.Named) (value.Value, error) {
	switch ns {
	case "os":
		if !nsHasMember("os", member) {
			return nil, diag.New(diag.FieldMissing, "unknown function `os.%s`", member)
		}
		if len(pos) > 0 || len(named) > 0 {
			return nil, diag.New(diag.ArgError, "os.%s() takes no arguments", member)
		}
		return t.osCall(member)
	case "config":
		switch member {
		case "all":
			if t.e.opts.Config == nil {
				return value.NewRecord(nil, nil), nil
			}
			return t.e.opts.Config, nil
		case "get":
			if len(pos) != 1 {
				return nil, diag.New(diag.ArgError, "config.get() expects a key")
			}
			k, ok := pos[0].(value.Str)
			if !ok {
				return nil, diag.New(diag.TypeError, "config.get() expects a str key")
			}
			if t.e.opts.Config != nil {
				if v, ok := t.e.opts.Config.Get(string(k)); ok {
					return v, nil
				}
			}
			return value.Null{}, nil
		}
		return nil, diag.New(diag.FieldMissing, "unknown function `config.%s`", member)
	case "env":
		return t.methodValue(t.e.envRecord(), member, pos, named)
	case "secret":
		if member != "get" {
			return nil, diag.New(diag.FieldMissing, "unknown function `secret.%s`", member)
		}
		if len(pos) != 1 || len(named) > 0 {
			return nil, diag.New(diag.ArgError, "secret.get() expects a name")
		}
		name, ok := pos[0].(value.Str)
		if !ok {
			return nil, diag.New(diag.TypeError, "secret.get() expects a str name, found %s", value.TypeName(pos[0]))
		}
		if t.e.host.Secret == nil {
			return nil, diag.New(diag.NotFound, "unknown secret %s (no secret store)", string(name))
		}
		data, err := t.e.host.Secret(t.ctx, string(name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, diag.New(diag.NotFound, "unknown secret %s", string(name))
			}
			return nil, diag.New(diag.Permission, "secret store: %v", err)
		}
		if !utf8.Valid(data) {
			return nil, diag.New(diag.UTF8Error, "secret %s is not valid UTF-8", string(name))
		}
		return &value.Secret{Name: string(name), Content: data}, nil
	case "http":
		return t.httpCall(member, pos, named)
	}
	return lib.NamespaceCall(t.ctx, t, ns, member, pos, named)
}

func (t *thread) osCall(member string) (value.Value, error) {
	switch member {
	case "platform":
		p := runtime.GOOS
		if p == "darwin" {
			p = "macos"
		}
		return value.Str(p), nil
	case "arch":
		a := runtime.GOARCH
		switch a {
		case "amd64":
			a = "x86_64"
		case "arm64":
			a = "aarch64"
		}
		return value.Str(a), nil
	case "pid":
		return value.Int(os.Getpid()), nil
	case "hostname":
		h, err := os.Hostname()
		if err != nil {
			return nil, diag.New(diag.IOError, "hostname: %v", err)
		}
		return value.Str(h), nil
	case "username":
		if u, ok := t.e.getenv("USER"); ok && u != "" {
			return value.Str(u), nil
		}
		u, err := user.Current()
		if err != nil {
			return value.Str(strconv.Itoa(os.Getuid())), nil
		}
		return value.Str(u.Username), nil
	case "cpus":
		return value.Int(runtime.NumCPU()), nil
	case "uptime":
		data, err := os.ReadFile("/proc/uptime")
		if err != nil {
			return value.Null{}, nil
		}
		f, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
		if err != nil {
			return value.Null{}, nil
		}
		return value.Duration(int64(f * float64(time.Second))), nil
	case "env":
		return t.e.envRecord(), nil
	}
	return nil, diag.New(diag.FieldMissing, "unknown function `os.%s`", member)
}

const httpLimit = 64 << 20

func (t *thread) httpCall(member string, pos []value.Value, named []lib.Named) (value.Value, error) {
	method := strings.ToUpper(member)
	switch member {
	case "get", "delete", "post", "put":
	default:
		return nil, diag.New(diag.FieldMissing, "unknown function `http.%s`", member)
	}
	if len(pos) == 0 {
		return nil, diag.New(diag.ArgError, "http.%s() expects a url", member)
	}
	url, ok := pos[0].(value.Str)
	if !ok {
		return nil, diag.New(diag.TypeError, "http.%s() expects a str url", member)
	}
	var body io.Reader
	rest := pos[1:]
	if member == "post" || member == "put" {
		if len(rest) == 0 {
			return nil, diag.New(diag.ArgError, "http.%s() expects a body", member)
		}
		data, err := t.serialize(rest[0])
		if err != nil {
			return nil, err
		}
		body = strings.NewReader(string(data))
		rest = rest[1:]
	}
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, string(url), body)
	if err != nil {
		return nil, diag.New(diag.ArgError, "http.%s: %v", member, err)
	}
	var hdrs value.Value
	if len(rest) > 0 {
		hdrs = rest[0]
	}
	for _, a := range named {
		if a.Name == "headers" {
			hdrs = a.Value
		}
	}
	if r, ok := hdrs.(*value.Record); ok {
		for i, k := range r.Keys() {
			req.Header.Set(k, value.Display(r.Vals[i]))
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, diag.New(diag.NetError, "http.%s %s: %v", member, string(url), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, httpLimit))
	if err != nil {
		return nil, diag.New(diag.NetError, "http.%s %s: %v", member, string(url), err)
	}
	var hb value.RecordBuilder
	for k, v := range resp.Header {
		hb.Add(strings.ToLower(k), value.Str(strings.Join(v, ", ")))
	}
	var js value.Value = value.Null{}
	if v, err := value.FromJSON(data); err == nil {
		js = v
	}
	return value.NewRecord([]string{"status", "ok", "body", "json", "headers"}, []value.Value{
		value.Int(resp.StatusCode), value.Bool(resp.StatusCode >= 200 && resp.StatusCode < 300),
		value.Str(data), js, hb.Record()}), nil
}

// loadContent resolves a val:blake3:<hash> reference through the host's
// content store.
func (e *Evaluator) loadContent(t *thread, ref string) (value.Value, error) {
	hash := strings.TrimPrefix(ref, "val:blake3:")
	if e.host.Content == nil {
		return nil, diag.New(diag.NotFound, "cannot resolve %s: no journal/CAS in this session", ref)
	}
	data, err := e.host.Content(t.ctx, hash)
	if err != nil {
		return nil, diag.New(diag.NotFound, "cannot resolve %s from the journal/CAS: %v", ref, err)
	}
	return &value.Bytes{Data: data, Ref: ref, Len: int64(len(data))}, nil
}
