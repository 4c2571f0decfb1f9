package eval

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// expandGlob returns the sorted matches of g (LANGUAGE.md §14). Relative
// patterns resolve against the glob's creation cwd and yield relative
// paths; dotfiles match only when the pattern component starts with "."
// or the glob is hidden.
func (e *Evaluator) expandGlob(g value.Glob) ([]string, error) {
	pat := g.Pattern
	if pat == "" {
		return nil, nil
	}
	root, prefix := g.Cwd, ""
	if root == "" {
		root = e.Cwd()
	}
	if strings.HasPrefix(pat, "/") {
		root, prefix = "/", "/"
		pat = strings.TrimLeft(pat, "/")
	}
	comps := strings.Split(pat, "/")
	for _, c := range comps {
		if c != "**" && c != "" {
			if _, err := filepath.Match(c, ""); err != nil {
				return nil, diag.New(diag.ArgError, "invalid glob pattern %q", g.Pattern)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	globWalk(root, comps, prefix, g.Hidden, func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	})
	sort.Strings(out)
	return out, nil
}

func globWalk(dir string, comps []string, prefix string, hidden bool, emit func(string)) {
	for len(comps) > 0 && comps[0] == "" {
		comps = comps[1:]
	}
	if len(comps) == 0 {
		if prefix != "" {
			emit(strings.TrimSuffix(prefix, "/"))
		}
		return
	}
	c := comps[0]
	join := func(name string) string { return prefix + name }
	if c == "**" {
		globWalk(dir, comps[1:], prefix, hidden, emit)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, de := range ents {
			if !hidden && strings.HasPrefix(de.Name(), ".") {
				continue
			}
			// ** does not descend through symlinks (as bash's globstar),
			// so a link cycle cannot make the walk explode.
			if de.IsDir() {
				globWalk(filepath.Join(dir, de.Name()), comps, join(de.Name())+"/", hidden, emit)
			}
		}
		return
	}
	last := len(comps) == 1
	if !strings.ContainsAny(c, "*?[") {
		p := filepath.Join(dir, c)
		fi, err := os.Stat(p)
		if err != nil {
			if _, lerr := os.Lstat(p); lerr != nil || !last {
				return
			}
		} else if !last && !fi.IsDir() {
			return
		}
		if last {
			emit(join(c))
			return
		}
		globWalk(p, comps[1:], join(c)+"/", hidden, emit)
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	dotOK := hidden || strings.HasPrefix(c, ".")
	for _, de := range ents {
		name := de.Name()
		if !dotOK && strings.HasPrefix(name, ".") {
			continue
		}
		if ok, _ := filepath.Match(c, name); !ok {
			continue
		}
		if last {
			emit(join(name))
			continue
		}
		if isDirEntryDir(dir, de) {
			globWalk(filepath.Join(dir, name), comps[1:], join(name)+"/", hidden, emit)
		}
	}
}

func isDirEntryDir(dir string, de os.DirEntry) bool {
	if de.IsDir() {
		return true
	}
	if de.Type()&os.ModeSymlink != 0 {
		fi, err := os.Stat(filepath.Join(dir, de.Name()))
		return err == nil && fi.IsDir()
	}
	return false
}

// globList expands g into a list of paths.
func (e *Evaluator) globList(g value.Glob) (value.Value, error) {
	m, err := e.expandGlob(g)
	if err != nil {
		return nil, err
	}
	items := make([]value.Value, len(m))
	for i, p := range m {
		items[i] = value.Path{P: p}
	}
	return &value.List{Items: items}, nil
}
