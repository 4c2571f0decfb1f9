package kernel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// handleSessionAttach attaches (or re-attaches) the connection (AGENT-SURFACE §2.5.1).
func (s *Server) handleSessionAttach(ctx context.Context, cs *connState, p proto.SessionAttachParams) (*proto.SessionAttachResult, error) {
	name := p.Session
	if name == "" {
		name = "default"
	}
	var id Identity
	switch {
	case p.Token != nil:
		if s.auth == nil {
			return nil, jsonrpc.Errorf(proto.CodeAuthFailed, "%s", errNoTokens.Error())
		}
		got, err := s.auth.Verify(*p.Token)
		if err != nil {
			return nil, jsonrpc.Errorf(proto.CodeAuthFailed, "%s", authError(err).Error())
		}
		id = got
		id.Local = false
	case s.opts.RequireToken:
		return nil, jsonrpc.Errorf(proto.CodeAuthFailed, "this kernel requires a bearer token")
	default:
		id = localIdentity(s.euid)
	}
	ss, err := s.session(sessKey{principal: id.Principal, name: name})
	if err != nil {
		return nil, err
	}
	tty := p.Client != nil && p.Client.TTY
	cs.mu.Lock()
	cs.att = &attachment{sess: ss, id: id, tty: tty, journal: s.policy.Allows(id, "journal_read"), readAll: s.policy.ReadAll(id), approves: s.approverOf(id)}
	cs.mu.Unlock()

	info := s.policy.Describe(id)
	cwd, env := ss.cwdEnv()
	caps := id.TokenCaps
	if caps == nil {
		caps = []string{}
	}
	return &proto.SessionAttachResult{
		Session:   name,
		Principal: id.Principal,
		Caps: proto.Caps{Enforced: info.Enforced, Tier: info.Tier, AvailableTier: info.Tier,
			PolicyPrincipal: info.PolicyPrincipal, Profile: id.Profile, TokenCaps: caps, Opaque: info.Opaque,
			Enforcement: proto.Enforcement{Filesystem: info.Filesystem, Network: info.Network, SpawnExec: info.SpawnExec},
			Sandbox:     info.Sandbox},
		Cwd:           wirePath(cwd),
		EnvHash:       envHash(env),
		ASTVersion:    proto.ASTVersion,
		CapsEnforced:  info.Enforced,
		ElideDefaults: proto.DefaultElide,
		Channels:      proto.StaticChannels(),
		Kernel:        proto.KernelInfo{Pid: os.Getpid(), Version: Version, StartedNs: s.started.UnixNano()},
	}, nil
}

func wirePath(p string) proto.WirePath {
	if utf8.ValidString(p) {
		return proto.WirePath{Display: p}
	}
	return proto.WirePath{Display: strings.ToValidUTF8(p, "\uFFFD"), Raw: base64.StdEncoding.EncodeToString([]byte(p))}
}

// handleSessionEnv lists the environment at the last statement boundary; the values only when
// the principal may read every variable.
func (s *Server) handleSessionEnv(ctx context.Context, cs *connState, a *attachment, _ proto.SessionEnvParams) (*proto.SessionEnvResult, error) {
	_, env := a.sess.cwdEnv()
	vals := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !utf8.ValidString(k) || !utf8.ValidString(v) {
			continue // the wire form is UTF-8 only
		}
		vals[k] = v
	}
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	res := &proto.SessionEnvResult{Names: names}
	if s.allowsEnvRead(a.id, names) {
		res.Granted, res.Env = true, vals
	}
	return res, nil
}

// handleSessionCwd reports the live cwd (as of the last statement boundary).
func (s *Server) handleSessionCwd(ctx context.Context, cs *connState, a *attachment, _ proto.SessionCwdParams) (*proto.SessionCwdResult, error) {
	cwd, _ := a.sess.cwdEnv()
	return &proto.SessionCwdResult{Cwd: wirePath(cwd)}, nil
}

// handleSessionReef reports the session's Reef scope from the evaluator's manifests and lock
// (eval.Evaluator.ReefState: no subprocess); an evaluator without it reports no scope.
func (s *Server) handleSessionReef(ctx context.Context, cs *connState, a *attachment, _ proto.SessionReefParams) (*proto.SessionReefResult, error) {
	res := &proto.SessionReefResult{Bindings: []proto.ReefBinding{}}
	rs, ok := a.sess.ev.(interface {
		ReefState() (string, []eval.ReefBinding)
	})
	if !ok {
		return res, nil
	}
	active, bindings := rs.ReefState()
	if active != "" {
		res.ActiveScope = &active
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	for _, b := range bindings {
		res.Bindings = append(res.Bindings, proto.ReefBinding{Tool: b.Tool, Version: opt(b.Version), Provider: opt(b.Provider),
			Scope: b.Scope, Constrained: b.Constrained})
	}
	return res, nil
}

// handleParse parses without a session: a fresh evaluator knows no bindings.
func (s *Server) handleParse(ctx context.Context, cs *connState, p proto.ParseParams) (*proto.ParseResult, error) {
	if p.Src == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing src")
	}
	prog, err := s.parser().Parse(*p.Src, false)
	if err != nil {
		return nil, parseError(err)
	}
	return &proto.ParseResult{ASTVersion: proto.ASTVersion, AST: s.marshalAST(prog)}, nil
}

// parser returns a context-free evaluator for parse and complete.
func (s *Server) parser() Evaluator {
	return s.opts.newEvaluatorFor(s.opts.Cwd)
}

// handleExplain derives a program's effects on the session evaluator without running or
// storing anything. src wins over ast.
func (s *Server) handleExplain(ctx context.Context, cs *connState, a *attachment, p proto.ExplainParams) (*proto.ExplainResult, error) {
	var prog *syntax.Program
	switch {
	case p.Src != nil:
		var err error
		if prog, err = a.sess.ev.Parse(*p.Src, false); err != nil {
			return nil, parseError(err)
		}
	case p.AST != nil:
		var err error
		if prog, err = syntax.UnmarshalProgram(p.AST); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ast: %v", err)
		}
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: explain needs src or ast")
	}
	cwd, env := a.sess.cwdEnv()
	d := a.sess.derive(prog, cwd, env)
	ast := s.marshalAST(prog)
	return &proto.ExplainResult{ASTVersion: proto.ASTVersion, AST: ast, Effects: d.wire(),
		Reversibility: leash.Reversibility(d.effects), Fingerprint: fingerprint(ast, d.effectsJSON),
		Sandbox: s.sandboxStatus(a.id.Principal)}, nil
}

// marshalAST encodes a program for the wire and the journal.
func (s *Server) marshalAST(prog *syntax.Program) json.RawMessage {
	f := s.opts.MarshalAST
	if f == nil {
		f = syntax.MarshalProgram
	}
	b, err := f(prog)
	if err != nil {
		s.log.Warn("kernel: encode ast", "error", err)
		return json.RawMessage("null")
	}
	return b
}

// handleComplete offers words that start with the identifier fragment left of the cursor:
// keywords and literal names (syntax.Keywords), builtin command heads (eval.BuiltinHeads),
// namespace roots (eval.Namespaces) plus names declared earlier by let/var/fn/alias. The cursor is a byte offset,
// clamped and snapped back to a rune boundary.
func (s *Server) handleComplete(ctx context.Context, cs *connState, p proto.CompleteParams) (*proto.CompleteResult, error) {
	cur := len(p.Src)
	if p.Cursor != nil {
		cur = min(max(*p.Cursor, 0), len(p.Src))
	}
	for cur > 0 && cur < len(p.Src) && !utf8.RuneStart(p.Src[cur]) {
		cur--
	}
	left := p.Src[:cur]
	start := len(left)
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(left[:start])
		if !isIdentRune(r) {
			break
		}
		start -= size
	}
	frag := left[start:]
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if strings.HasPrefix(w, frag) && w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, list := range [][]string{syntax.Keywords(), eval.BuiltinHeads(), eval.Namespaces()} {
		for _, w := range list {
			add(w)
		}
	}
	for _, n := range declared(left[:start]) {
		add(n)
	}
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return &proto.CompleteResult{Candidates: out}, nil
}

func isIdentRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 && r != utf8.RuneError
}

// declared scans text for names introduced by let, var, fn and alias. A lexical scan is
// enough here and works on incomplete input, which the parser would reject.
func declared(text string) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool { return !isIdentRune(r) })
	var names []string
	for i := 0; i+1 < len(fields); i++ {
		switch fields[i] {
		case "let", "var", "fn", "alias":
			names = append(names, fields[i+1])
		}
	}
	return names
}
