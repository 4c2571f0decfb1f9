package eval

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zeebo/blake3"
)

// The Reef view (LANGUAGE.md §16): a spawn of a pinned tool gets, at the head of its PATH, a
// content-addressed directory of links to every tool the active scopes pin, so what the tool
// itself runs (npm running node, a script running python) is the pinned version too. With
// `[options] hermetic = true` in the nearest .reef.toml the view is the whole PATH.

// reefPath returns the PATH a child of a pinned spawn gets, given the PATH it would have had;
// "" means leave it alone (no pinned tools, or the view could not be built).
func (e *Evaluator) reefPath(base string) string {
	scopes := e.reefScopes()
	dir := reefView(scopes)
	if dir == "" {
		return ""
	}
	if reefHermetic(scopes) || base == "" {
		return dir
	}
	return dir + string(os.PathListSeparator) + base
}

// reefHermetic reports the nearest .reef.toml's [options] hermetic.
func reefHermetic(scopes []reefManifest) bool {
	for _, s := range scopes {
		if s.kind == "reef" {
			return s.hermetic
		}
	}
	return false
}

// reefView returns the view directory of the tools the scopes pin (each tool's nearest scope
// wins, as in resolution), creating it on first use; "" when nothing is pinned or it cannot be
// made. Its name is a hash of the links it holds, so a changed lock makes a new view and a
// view never changes once made.
func reefView(scopes []reefManifest) string {
	entries := readLock(lockPath(scopes))
	links := map[string]string{}
	for _, s := range scopes {
		for tool := range s.tools {
			if _, seen := links[tool]; seen {
				continue
			}
			if le, ok := entries[tool]; ok && le.Path != "" && filepath.IsAbs(le.Path) && !strings.ContainsRune(tool, '/') {
				links[tool] = le.Path
			}
		}
	}
	if len(links) == 0 {
		return ""
	}
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	h := blake3.New()
	for _, n := range names {
		h.Write([]byte(n + "\x00" + links[n] + "\x00" + entries[n].Blake3 + "\n"))
	}
	root := reefViewRoot()
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:24])
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return ""
	}
	// Build aside and rename into place, so a concurrent spawn never sees half a view.
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return ""
	}
	for _, n := range names {
		if err := os.Symlink(links[n], filepath.Join(tmp, n)); err != nil {
			os.RemoveAll(tmp)
			return ""
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return ""
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp) // another spawn made it first
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return ""
		}
	}
	return dir
}

// reefViewRoot is where views live: the user cache directory, else the temp directory.
func reefViewRoot() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "shoal", "reef-view")
	}
	return filepath.Join(os.TempDir(), "shoal-reef-view")
}
