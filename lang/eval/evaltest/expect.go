package evaltest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Expectations is the committed list of corpus cases known to fail, with
// the hosts (eval, kernel) each fails on. It may only shrink: the harness
// fails when a listed case passes.
//
// File format: one case per line, "<case-name> <host>[,<host>]"; blank
// lines and lines starting with # are ignored.
type Expectations struct {
	fails map[string]map[string]bool // case → host → failing
}

// ExpectationsPath is the one expectations file.
func ExpectationsPath() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "testdata", "expected-failures.txt")
}

// LoadExpectations reads the file; a missing file means no known failures.
func LoadExpectations(path string) (*Expectations, error) {
	e := &Expectations{fails: map[string]map[string]bool{}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"<case> <host>[,<host>]\"", path, n)
		}
		hosts := map[string]bool{}
		for _, h := range strings.Split(fields[1], ",") {
			hosts[h] = true
		}
		e.fails[fields[0]] = hosts
	}
	return e, sc.Err()
}

// Fails reports whether the case is listed as failing on host.
func (e *Expectations) Fails(name, host string) bool { return e.fails[name][host] }

// SetHost replaces host's column with the given failing set.
func (e *Expectations) SetHost(host string, failing map[string]bool, all []string) {
	for _, name := range all {
		hs := e.fails[name]
		if failing[name] {
			if hs == nil {
				hs = map[string]bool{}
				e.fails[name] = hs
			}
			hs[host] = true
		} else if hs != nil {
			delete(hs, host)
			if len(hs) == 0 {
				delete(e.fails, name)
			}
		}
	}
}

// Save writes the file sorted by case name.
func (e *Expectations) Save(path string) error {
	names := make([]string, 0, len(e.fails))
	for n := range e.fails {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# Conformance cases known to fail, and on which host (eval = the evaluator,\n")
	b.WriteString("# kernel = through a kernel session). This list may only shrink: the corpus\n")
	b.WriteString("# harness fails when a listed case passes. Regenerate a column with\n")
	b.WriteString("# SHOAL_CORPUS_UPDATE=1 go test -run TestCorpus ./lang/eval (or ./kernel).\n")
	for _, n := range names {
		var hosts []string
		for h := range e.fails[n] {
			hosts = append(hosts, h)
		}
		sort.Strings(hosts)
		fmt.Fprintf(&b, "%s %s\n", n, strings.Join(hosts, ","))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
