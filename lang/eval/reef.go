package eval

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/zeebo/blake3"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// reefManifest is one scope with a non-empty [tools] table (§16).
type reefManifest struct {
	dir      string
	file     string
	kind     string // "reef", "mise", "tool-versions", "with"
	tools    map[string]string
	runners  map[string][]string // extension → tool and its leading args
	hermetic bool                // .reef.toml [options] hermetic: the view is the child's whole PATH
}

var manifestFiles = []struct{ name, kind string }{
	{".reef.toml", "reef"}, {"mise.toml", "mise"}, {".mise.toml", "mise"}, {".tool-versions", "tool-versions"},
}

// readManifest parses one manifest file; ok is false when it is missing,
// malformed or has no tools (such files are silently skipped).
func readManifest(dir, name, kind string) (reefManifest, bool) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return reefManifest{}, false
	}
	m := reefManifest{dir: dir, file: name, kind: kind, tools: map[string]string{}, runners: map[string][]string{}}
	if kind == "tool-versions" {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
				m.tools[f[0]] = f[1]
			}
		}
		return m, len(m.tools) > 0
	}
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return reefManifest{}, false
	}
	tools, _ := doc["tools"].(map[string]any)
	for k, v := range tools {
		switch c := v.(type) {
		case string:
			m.tools[k] = c
		case map[string]any:
			s, _ := c["version"].(string)
			m.tools[k] = s
		default:
			m.tools[k] = fmt.Sprint(c)
		}
	}
	if opts, ok := doc["options"].(map[string]any); ok && kind == "reef" {
		m.hermetic, _ = opts["hermetic"].(bool)
	}
	runners, _ := doc["runners"].(map[string]any)
	for ext, v := range runners {
		switch r := v.(type) {
		case string:
			m.runners[ext] = []string{r}
		case map[string]any:
			tool, _ := r["tool"].(string)
			argv := []string{tool}
			if args, ok := r["args"].([]any); ok {
				for _, a := range args {
					argv = append(argv, fmt.Sprint(a))
				}
			}
			m.runners[ext] = argv
		}
	}
	return m, len(m.tools) > 0
}

// reefScopes lists the active scopes: `with reef:` overrides first, then
// manifests from the session cwd up to /.
func (e *Evaluator) reefScopes() []reefManifest {
	var out []reefManifest
	e.mu.Lock()
	if len(e.reefOverride) > 0 {
		out = append(out, reefManifest{kind: "with", tools: e.reefOverride})
	}
	dir := e.cwd
	e.mu.Unlock()
	for {
		for _, mf := range manifestFiles {
			if m, ok := readManifest(dir, mf.name, mf.kind); ok {
				out = append(out, m)
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// lockPath is reef.lock next to the nearest .reef.toml, else the first
// file scope.
func lockPath(scopes []reefManifest) string {
	first := ""
	for _, s := range scopes {
		if s.dir == "" {
			continue
		}
		if s.kind == "reef" {
			return filepath.Join(s.dir, "reef.lock")
		}
		if first == "" {
			first = filepath.Join(s.dir, "reef.lock")
		}
	}
	return first
}

type lockEntry struct {
	Name       string `toml:"name"`
	Version    string `toml:"version"`
	Provider   string `toml:"provider"`
	Path       string `toml:"path"`
	Blake3     string `toml:"blake3"`
	ResolvedAt string `toml:"resolved_at"`
}

func readLock(path string) map[string]lockEntry {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc struct {
		Tool map[string]lockEntry `toml:"tool"`
	}
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	return doc.Tool
}

func fileHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// reefResolution is how Reef sees one tool.
type reefResolution struct {
	engaged    bool
	kind       string // scope kind of the nearest scope naming the tool
	constraint string
	code       string // "" when usable, else the diag code that stops it
	lock       *lockEntry
}

func (e *Evaluator) reefResolve(tool string) reefResolution {
	scopes := e.reefScopes()
	var r reefResolution
	for _, s := range scopes {
		c, ok := s.tools[tool]
		if !ok {
			continue
		}
		if !r.engaged {
			r.engaged, r.kind, r.constraint = true, s.kind, c
			continue
		}
		a, b := normConstraint(c), normConstraint(r.constraint)
		if a != "" && b != "" && !strings.HasPrefix(a, b) && !strings.HasPrefix(b, a) {
			r.code = diag.ReefConflict
			return r
		}
		if len(a) > len(b) {
			r.constraint = c
		}
	}
	if !r.engaged {
		return r
	}
	entries := readLock(lockPath(scopes))
	le, ok := entries[tool]
	if !ok {
		r.code = diag.ReefUnlocked
		return r
	}
	r.lock = &le
	h, err := fileHash(le.Path)
	switch {
	case err != nil:
		r.code = diag.ReefNotFound
	case !strings.EqualFold(h, le.Blake3):
		r.code = diag.ReefDrift
	}
	return r
}

func normConstraint(c string) string {
	c = strings.TrimPrefix(strings.TrimSpace(c), "v")
	if c == "*" || c == "latest" {
		return ""
	}
	return c
}

// reefGate checks a bare head against Reef before spawning and returns
// the pinned executable when one applies ("" means ambient lookup).
func (e *Evaluator) reefGate(tool string, opts *cmdOpts) (string, error) {
	if strings.Contains(tool, "/") {
		return "", nil
	}
	r := e.reefResolve(tool)
	if !r.engaged {
		return "", nil
	}
	switch r.code {
	case "":
		return r.lock.Path, nil
	case diag.ReefUnlocked:
		if e.opts.Interactive {
			return "", nil
		}
		return "", diag.New(diag.ReefUnlocked, "%s is constrained by Reef (%s) but not locked", tool, r.constraint).
			WithHint("run `reef lock` to pin it")
	case diag.ReefConflict:
		return "", diag.New(diag.ReefConflict, "Reef scopes disagree about the version of %s", tool)
	case diag.ReefNotFound:
		return "", diag.New(diag.ReefNotFound, "the pinned %s (%s) cannot be read", tool, r.lock.Path).WithHint("reef lock --refresh")
	}
	return "", diag.New(diag.ReefDrift, "the pinned %s changed since it was locked", tool).WithHint("reef lock --refresh")
}

var whichKeys = []string{"name", "scope", "constraint", "version", "path", "hash8", "provider", "chain"}

func strOrNull(s string) value.Value {
	if s == "" {
		return value.Null{}
	}
	return value.Str(s)
}

func (t *thread) which(b *bargs) (value.Value, error) {
	if len(b.pos) != 1 {
		return nil, diag.New(diag.ArgError, "which: expected exactly one name")
	}
	name := value.Display(b.pos[0])
	if b.has("all", "a") {
		return okOutcome("which", t.e.whichAll(name)), nil
	}
	r := t.e.reefResolve(name)
	rec := func(scope string, path, version, hash, provider string) value.Value {
		chain := []value.Value{}
		if scope != "" && !strings.HasPrefix(scope, "unresolved") {
			chain = append(chain, value.Str(scope))
		}
		var pv value.Value = value.Null{}
		if path != "" {
			pv = value.Path{P: path}
		}
		if len(hash) > 8 {
			hash = hash[:8]
		}
		return value.NewRecord(whichKeys, []value.Value{value.Str(name), value.Str(scope), strOrNull(r.constraint),
			strOrNull(version), pv, strOrNull(hash), strOrNull(provider), &value.List{Items: chain}})
	}
	if r.engaged && r.code != "" && r.code != diag.ReefUnlocked {
		return okOutcome("which", rec("unresolved: "+r.code, "", "", "", "")), nil
	}
	if r.engaged && r.code == "" {
		return okOutcome("which", rec(r.kind, r.lock.Path, r.lock.Version, r.lock.Blake3, r.lock.Provider)), nil
	}
	if isBuiltinHead(name) {
		return okOutcome("which", rec("builtin", "", "", "", "builtin")), nil
	}
	p, ok := t.e.lookPath(name)
	if !ok {
		return okOutcome("which", value.Null{}), nil
	}
	h, _ := fileHash(p)
	scope := "ambient"
	if r.engaged {
		scope = r.kind
	}
	return okOutcome("which", rec(scope, p, "", h, "system")), nil
}

func (t *thread) reef(b *bargs) (value.Value, error) {
	scopes := t.e.reefScopes()
	if len(b.pos) == 0 {
		shape := value.NewShape([]string{"name", "constraint", "version", "hash8", "provider", "scope"})
		rows := []*value.Record{}
		seen := map[string]bool{}
		for _, s := range scopes {
			for _, tool := range sortedKeys(s.tools) {
				if seen[tool] {
					continue
				}
				seen[tool] = true
				r := t.e.reefResolve(tool)
				var version, hash, provider string
				if r.lock != nil {
					version, hash, provider = r.lock.Version, r.lock.Blake3, r.lock.Provider
					if len(hash) > 8 {
						hash = hash[:8]
					}
				}
				rows = append(rows, &value.Record{Shape: shape, Vals: []value.Value{value.Str(tool),
					value.Str(s.tools[tool]), strOrNull(version), strOrNull(hash), strOrNull(provider), value.Str(s.kind)}})
			}
		}
		return okOutcome("reef", &value.Table{Rows: rows}), nil
	}
	sub := value.Display(b.pos[0])
	switch sub {
	case "add":
		return t.reefAdd(b.pos[1:])
	case "lock":
		return t.reefLock(scopes)
	case "doctor":
		return okOutcome("reef", t.reefDoctor(scopes)), nil
	case "fetch":
		return nil, diag.New(diag.ReefProvider, "reef fetch: only the mise provider can fetch, and mise is not configured")
	}
	return nil, diag.New(diag.ArgError, "reef: unknown subcommand %q", sub)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// reefAdd records tool@version in the cwd's .reef.toml.
func (t *thread) reefAdd(args []value.Value) (value.Value, error) {
	if len(args) != 1 {
		return nil, diag.New(diag.ArgError, "reef add: expected one tool@version spec")
	}
	spec := value.Display(args[0])
	tool, ver, ok := strings.Cut(spec, "@")
	if !ok || tool == "" || ver == "" {
		return nil, diag.New(diag.ArgError, "reef add: expected tool@version, got %q", spec)
	}
	path := filepath.Join(t.e.Cwd(), ".reef.toml")
	doc := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := toml.Unmarshal(data, &doc); err != nil {
			return nil, diag.New(diag.ReefProvider, "reef add: parsing manifest %s: %v", path, err)
		}
	}
	tools, present := doc["tools"]
	if !present {
		tools = map[string]any{}
	}
	tm, isTable := tools.(map[string]any)
	if !isTable {
		return nil, diag.New(diag.ReefProvider, "reef add: `tools` in %s is not a table", path)
	}
	tm[tool] = ver
	doc["tools"] = tm
	data, err := toml.Marshal(doc)
	if err != nil {
		return nil, diag.New(diag.ReefProvider, "reef add: writing manifest: %v", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, diag.New(diag.Custom, "reef add: %v", err)
	}
	return okOutcome("reef", value.NewRecord([]string{"name", "constraint"}, []value.Value{value.Str(tool), value.Str(ver)})), nil
}

// reefLock pins every constrained tool found on the ambient PATH.
func (t *thread) reefLock(scopes []reefManifest) (value.Value, error) {
	lp := lockPath(scopes)
	if lp == "" {
		return nil, diag.New(diag.ReefNotFound, "reef lock: no Reef manifest in scope")
	}
	entries := map[string]lockEntry{}
	for _, s := range scopes {
		for tool := range s.tools {
			if _, done := entries[tool]; done {
				continue
			}
			p, ok := t.e.lookPath(tool)
			if !ok {
				continue
			}
			h, err := fileHash(p)
			if err != nil {
				continue
			}
			entries[tool] = lockEntry{Name: tool, Provider: "system", Path: p, Blake3: h,
				ResolvedAt: value.FormatDatetime(t.e.now())}
		}
	}
	data, err := toml.Marshal(map[string]any{"tool": entries})
	if err != nil {
		return nil, diag.New(diag.ReefProvider, "reef lock: %v", err)
	}
	if err := os.WriteFile(lp, data, 0o644); err != nil {
		return nil, diag.New(diag.Custom, "reef lock: %v", err)
	}
	return okOutcome("reef", value.Path{P: lp}), nil
}

// reefDoctor reports drift, orphaned lock entries and pins that shadow a
// different ambient executable.
func (t *thread) reefDoctor(scopes []reefManifest) value.Value {
	shape := value.NewShape([]string{"check", "name", "status"})
	rows := []*value.Record{}
	add := func(check, name, status string) {
		rows = append(rows, &value.Record{Shape: shape, Vals: []value.Value{value.Str(check), value.Str(name), value.Str(status)}})
	}
	constrained := map[string]bool{}
	for _, s := range scopes {
		for tool := range s.tools {
			constrained[tool] = true
		}
	}
	entries := readLock(lockPath(scopes))
	for _, tool := range sortedKeys(constrained) {
		le, ok := entries[tool]
		if !ok {
			add("drift", tool, "unlocked")
			continue
		}
		h, err := fileHash(le.Path)
		if err != nil || !strings.EqualFold(h, le.Blake3) {
			add("drift", tool, "drift")
		} else {
			add("drift", tool, "ok")
		}
		if amb, found := t.e.lookPath(tool); found && amb != le.Path {
			add("shadowed_ambient", tool, amb)
		}
	}
	for _, tool := range sortedKeys(entries) {
		if !constrained[tool] {
			add("orphan", tool, "orphan")
		}
	}
	return &value.Table{Rows: rows}
}

// reefRunner returns the runner argv for a script extension from a
// tools-bearing manifest.
func (e *Evaluator) reefRunner(ext string) []string {
	for _, s := range e.reefScopes() {
		if r, ok := s.runners[ext]; ok && len(r) > 0 && r[0] != "" {
			return r
		}
	}
	return nil
}

// whichAll lists every candidate for name: the Reef pin, then each match
// on the session PATH in order.
func (e *Evaluator) whichAll(name string) value.Value {
	shape := value.NewShape([]string{"path", "provider", "hash8"})
	items := []value.Value{}
	add := func(p, provider string) {
		h, _ := fileHash(p)
		if len(h) > 8 {
			h = h[:8]
		}
		items = append(items, &value.Record{Shape: shape, Vals: []value.Value{value.Path{P: p}, value.Str(provider), strOrNull(h)}})
	}
	if r := e.reefResolve(name); r.lock != nil {
		add(r.lock.Path, r.lock.Provider)
	}
	pathEnv, ok := e.getenv("PATH")
	if !ok {
		pathEnv = "/usr/local/bin:/usr/bin:/bin"
	}
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(pathEnv) {
		p := filepath.Join(e.abs(dir), name)
		if !seen[p] && isExecutable(p) {
			seen[p] = true
			add(p, "system")
		}
	}
	return &value.List{Items: items}
}

// ReefBinding is one tool named by the session's active Reef scopes.
type ReefBinding struct {
	Tool        string
	Constraint  string // as written in the nearest scope naming the tool
	Version     string // from reef.lock; "" when unlocked
	Provider    string // likewise
	Scope       string // the manifest file naming it, or "with" for a `with reef:` override
	Constrained bool   // the constraint pins a version (not *, latest or empty)
}

// ReefState reports the session's Reef scope as the evaluator sees it now: the nearest
// manifest file ("" when none) and each tool it and the enclosing scopes name, nearest scope
// first, with the lock entry's version and provider. It reads the manifests and reef.lock
// only: no subprocess, no hashing of binaries. Safe from other goroutines.
func (e *Evaluator) ReefState() (active string, bindings []ReefBinding) {
	scopes := e.reefScopes()
	entries := readLock(lockPath(scopes))
	seen := map[string]bool{}
	for _, s := range scopes {
		where := "with"
		if s.dir != "" {
			where = filepath.Join(s.dir, s.file)
			if active == "" {
				active = where
			}
		}
		for _, tool := range sortedKeys(s.tools) {
			if seen[tool] {
				continue
			}
			seen[tool] = true
			b := ReefBinding{Tool: tool, Constraint: s.tools[tool], Scope: where, Constrained: normConstraint(s.tools[tool]) != ""}
			if le, ok := entries[tool]; ok {
				b.Version, b.Provider = le.Version, le.Provider
			}
			bindings = append(bindings, b)
		}
	}
	return active, bindings
}
