package main_test

import (
	"os/exec"
	"strings"
	"testing"
)

// forbidden lists import edges that must not exist (STYLE.md §2): the
// language knows nothing of the hosts around it, the MCP facade talks to
// the kernel only over the wire, and the leaves stay leaves.
var forbidden = []struct {
	pkgs string   // go list pattern
	deny []string // import path prefixes (module-relative ones start with ./; a trailing ! means that package alone)
}{
	{"./lang/...", []string{"./kernel", "./mcp", "./journal", "./term", "./leash", "./tokens", "./commands",
		"github.com/spf13/cobra", "github.com/mattn/go-sqlite3", "github.com/modelcontextprotocol/go-sdk",
		"github.com/charmbracelet/x/vt", "github.com/creack/pty"}},
	{"./lang/diag", []string{"./lang/syntax", "./lang/value", "./lang/eval", "./lang/lib"}},
	{"./lang/syntax", []string{"./lang/value", "./lang/eval", "./lang/lib"}},
	{"./lang/format", []string{"./lang/value", "./lang/eval", "./lang/lib"}},
	{"./lang/value", []string{"./lang/syntax", "./lang/eval", "./lang/lib"}},
	{"./lang/lib", []string{"./lang/syntax", "./lang/eval"}},
	{"./mcp/...", []string{"./lang/eval", "./journal", "./term", "./leash", "./tokens", "./commands"}},
	{"./kernel/jsonrpc", []string{"./kernel/proto", "./lang", "./journal"}},
	{"./kernel/proto", []string{"./kernel/jsonrpc", "./journal", "./term", "./leash", "./tokens"}},
	{"./journal/cas", []string{"./journal!", "./kernel", "./lang"}},
	{"./term", []string{"./kernel", "./lang", "./journal", "./leash", "./tokens"}},
	{"./leash", []string{"./kernel", "./lang", "./journal", "./term", "./tokens", "./leash/sandbox"}},
	{"./tokens", []string{"./kernel", "./lang", "./journal", "./term", "./leash"}},
}

const module = "github.com/shoal-sh/shoal"

func TestDependencyDirection(t *testing.T) {
	for _, f := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", f.pkgs).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "matched no packages") {
				continue // package not written yet
			}
			t.Fatalf("go list -deps %s: %v\n%s", f.pkgs, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, d := range f.deny {
				exact := strings.HasSuffix(d, "!")
				prefix := strings.TrimSuffix(d, "!")
				if rest, ok := strings.CutPrefix(prefix, "./"); ok {
					prefix = module + "/" + rest
				}
				if dep == prefix || !exact && strings.HasPrefix(dep, prefix+"/") {
					t.Errorf("%s must not depend on %s (found %s)", f.pkgs, d, dep)
				}
			}
		}
	}
}
