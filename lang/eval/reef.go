package eval

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// reefScope is one manifest with a non-empty [tools] table.
type reefScope struct {
	dir   string
	file  string
	tools map[string]string // tool → constraint
}

// reefScopes finds the manifests from the session cwd up to / (§16).
func (e *Evaluator) reefScopes() []reefScope {
	var out []reefScope
	dir := e.Cwd()
	for {
		for _, name := range []string{".reef.toml", "mise.toml", ".mise.toml"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			var m struct {
				Tools map[string]any `toml:"tools"`
			}
			if toml.Unmarshal(data, &m) != nil || len(m.Tools) == 0 {
				continue // malformed or tool-less manifests do not count
			}
			rs := reefScope{dir: dir, file: name, tools: map[string]string{}}
			for k, v := range m.Tools {
				switch c := v.(type) {
				case string:
					rs.tools[k] = c
				case map[string]any:
					s, _ := c["version"].(string)
					rs.tools[k] = s
				default:
					rs.tools[k] = ""
				}
			}
			out = append(out, rs)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// reefState decides how a bare head resolves under Reef: "" when no
// manifest mentions it, else the error code that stops it.
func (e *Evaluator) reefState(tool string) (scope string, constraint string, code string) {
	scopes := e.reefScopes()
	var cons []string
	for _, s := range scopes {
		if c, ok := s.tools[tool]; ok {
			if scope == "" {
				scope = s.dir
			}
			cons = append(cons, c)
		}
	}
	if len(cons) == 0 {
		return "", "", ""
	}
	constraint = cons[0]
	for _, c := range cons[1:] {
		a, b := normConstraint(c), normConstraint(constraint)
		if a != "" && b != "" && !strings.HasPrefix(a, b) && !strings.HasPrefix(b, a) {
			return scope, constraint, diag.ReefConflict
		}
		if len(a) > len(b) {
			constraint = c
		}
	}
	lock := lockEntry(scopes, tool)
	if lock == nil {
		return scope, constraint, diag.ReefUnlocked
	}
	if p, _ := lock["path"].(string); p != "" {
		if _, err := os.Stat(p); err != nil {
			return scope, constraint, diag.ReefNotFound
		}
	}
	// Verifying the pinned hash needs BLAKE3 of the binary; an entry that
	// cannot be verified is treated as drifted.
	return scope, constraint, diag.ReefDrift
}

func normConstraint(c string) string {
	c = strings.TrimPrefix(strings.TrimSpace(c), "v")
	if c == "*" || c == "latest" {
		return ""
	}
	return c
}

func lockEntry(scopes []reefScope, tool string) map[string]any {
	for _, s := range scopes {
		if s.file != ".reef.toml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.dir, "reef.lock"))
		if err != nil {
			return nil
		}
		var m struct {
			Tool map[string]map[string]any `toml:"tool"`
		}
		if toml.Unmarshal(data, &m) != nil {
			return nil
		}
		return m.Tool[tool]
	}
	return nil
}

// reefGate stops a spawn the non-interactive way when a manifest
// constrains the tool and no usable lock entry exists.
func (e *Evaluator) reefGate(tool string, opts *cmdOpts) error {
	if strings.Contains(tool, "/") {
		return nil
	}
	_, _, code := e.reefState(tool)
	switch code {
	case "":
		return nil
	case diag.ReefUnlocked:
		if e.opts.Interactive {
			return nil
		}
		return diag.New(diag.ReefUnlocked, "%s is constrained by a Reef manifest but has no lock entry", tool).
			WithHint("run `reef lock` to pin it")
	case diag.ReefConflict:
		return diag.New(diag.ReefConflict, "Reef scopes disagree about %s", tool)
	case diag.ReefNotFound:
		return diag.New(diag.ReefNotFound, "the pinned %s is missing", tool).WithHint("reef lock --refresh")
	}
	return diag.New(diag.ReefDrift, "the pinned %s changed since it was locked", tool).WithHint("reef lock --refresh")
}

var whichKeys = []string{"name", "scope", "constraint", "version", "path", "hash8", "provider", "chain"}

func (t *thread) which(b *bargs) (value.Value, error) {
	if len(b.pos) != 1 {
		return nil, diag.New(diag.ArgError, "which: expected exactly one name")
	}
	name := value.Display(b.pos[0])
	scope, constraint, code := t.e.reefState(name)
	rec := func(scopeText string, path value.Value) value.Value {
		var cv value.Value = value.Null{}
		if constraint != "" {
			cv = value.Str(constraint)
		}
		return value.NewRecord(whichKeys, []value.Value{value.Str(name), value.Str(scopeText), cv,
			value.Null{}, path, value.Null{}, value.Str("system"), &value.List{Items: []value.Value{}}})
	}
	if code != "" {
		return okOutcome("which", rec("unresolved: "+code, value.Null{})), nil
	}
	_ = scope
	if isBuiltinHead(name) {
		return okOutcome("which", rec("builtin", value.Null{})), nil
	}
	p, ok := t.e.lookPath(name)
	if !ok {
		return okOutcome("which", value.Null{}), nil
	}
	return okOutcome("which", rec("ambient", value.Path{P: p})), nil
}

func (t *thread) reef(b *bargs) (value.Value, error) {
	if len(b.pos) == 0 {
		rows := []*value.Record{}
		shape := value.NewShape([]string{"name", "constraint", "version", "hash8", "provider", "scope"})
		for _, s := range t.e.reefScopes() {
			for tool, c := range s.tools {
				rows = append(rows, &value.Record{Shape: shape, Vals: []value.Value{
					value.Str(tool), value.Str(c), value.Null{}, value.Null{}, value.Null{}, value.Str(s.dir)}})
			}
		}
		return okOutcome("reef", &value.Table{Rows: rows}), nil
	}
	sub := value.Display(b.pos[0])
	switch sub {
	case "lock":
		if len(t.e.reefScopes()) == 0 {
			return nil, diag.New(diag.ReefNotFound, "reef lock: no Reef manifest in scope")
		}
	case "doctor":
		return okOutcome("reef", &value.Table{Rows: []*value.Record{}}), nil
	}
	return nil, diag.New(diag.ReefProvider, "reef %s: not supported by this build", sub)
}
