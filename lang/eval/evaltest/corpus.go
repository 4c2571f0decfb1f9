// Package evaltest runs the conformance corpus (spec/cases/*.toml, format
// in spec/CASES.md) against a language host. The same runner serves the
// evaluator (TestCorpus in lang/eval) and the kernel (through kerneltest),
// and both read one expectations file of known failures that may only
// shrink. It imports only the language packages and go-toml.
package evaltest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Case is one corpus case.
type Case struct {
	File               string   `toml:"-"`
	Name               string   `toml:"name"`
	Src                string   `toml:"src"`
	Value              *string  `toml:"value"`
	Error              string   `toml:"error"`
	ErrorContains      string   `toml:"error_contains"`
	ParseError         bool     `toml:"parse_error"`
	ParseErrorContains string   `toml:"parse_error_contains"`
	Fixture            []string `toml:"fixture"`
	Skip               string   `toml:"skip"`
}

// File is one corpus file with its cases in file order.
type File struct {
	Name  string
	Tier  int
	Cases []*Case
}

// tier2 and tier3 name the files of CASES.md §6 outside tier 1.
var tier2 = set("bytes-value", "coercion-cells-3", "coercion", "datetime-fields", "datetime-methods",
	"datetime-more", "datetime-relative", "dir-stack", "fs-builtins-more", "fs-builtins", "glob-more",
	"list-path-glob-binding", "namespace-roundtrips-2", "namespaces-more", "namespaces", "os-namespace",
	"path-field-accessors", "path-fs-methods", "size-duration-more", "size-duration-render-more")

var tier3 = set("adapters-pack", "box-era-diagnostics", "reef-provider-errors", "reef", "stream-sinks-more",
	"streams-3", "streams-backpressure", "streams-more", "streams", "teaching-diagnostics-2",
	"teaching-diagnostics")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// TierOf returns the tier (1–3) of a corpus file name such as "core.toml".
func TierOf(file string) int {
	base := strings.TrimSuffix(file, ".toml")
	switch {
	case tier3[base]:
		return 3
	case tier2[base]:
		return 2
	}
	return 1
}

// CorpusDir finds the corpus: $SHOAL_SPEC_CASES, else ../shared/spec/cases
// beside the repository. It returns "" when neither exists.
func CorpusDir(getenv func(string) string) string {
	if d := getenv("SHOAL_SPEC_CASES"); d != "" {
		return d
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..", "..")
	d := filepath.Join(root, "..", "shared", "spec", "cases")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// Load reads every *.toml file in dir, sorted by name.
func Load(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	seen := map[string]string{}
	var files []*File
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Case []*Case `toml:"case"`
		}
		dec := toml.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("corpus %s: %w", filepath.Base(p), err)
		}
		f := &File{Name: filepath.Base(p), Tier: TierOf(filepath.Base(p)), Cases: doc.Case}
		for _, c := range doc.Case {
			c.File = f.Name
			if prev, dup := seen[c.Name]; dup {
				return nil, fmt.Errorf("corpus: case %q in %s duplicates one in %s", c.Name, f.Name, prev)
			}
			seen[c.Name] = f.Name
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus: no *.toml files in %s", dir)
	}
	return files, nil
}

// MakeFixtures creates the case's fixture entries in dir: a trailing "/"
// makes a directory, anything else an empty file (parents included).
func MakeFixtures(dir string, fixtures []string) error {
	for _, f := range fixtures {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}
