package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoal-sh/shoal/lang/diag"
)

func TestModulesAndScripts(t *testing.T) {
	t.Parallel()
	write := func(dir, name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		files map[string]string
		src   string
		want  string
		code  string
	}{
		{name: "use binds exports", files: map[string]string{"lib/release.shl": "export fn tag(v) { \"v{v}\" }\nlet hidden = 1\nexport let n = 2"},
			src: "use ./lib/release\n[release.tag(\"1\"), release.n, release.keys()]", want: `["v1", 2, ["tag", "n"]]`},
		{name: "module runs in its own dir", files: map[string]string{"m/here.shl": "export let where = pwd.name()"},
			src: "use ./m/here\nhere.where", want: `"m"`},
		{name: "circular use", files: map[string]string{"a.shl": "use ./b", "b.shl": "use ./a"},
			src: "use ./a", code: diag.Custom},
		{name: "missing module", src: "use ./nope", code: diag.NotFound},
		{name: "script args", files: map[string]string{"s.shl": "args.len() * 10 + args[0].len()"},
			src: "./s.shl abc d", want: "23"},
		{name: "run script isolates bindings", files: map[string]string{"s.shl": "let leaked = 1\nscript.name()"},
			src: "let r = run(\"s.shl\")\n[r, try { leaked } catch { \"none\" }]", want: `["s.shl", "none"]`},
		{name: "source binds in scope", files: map[string]string{"defs.shl": "let shared = 41"},
			src: "source defs.shl\nlet r = shared + 1\nr", want: "42"},
		{name: "source parse error", files: map[string]string{"bad.shl": "let = ="},
			src: "source bad.shl", code: diag.ParseError},
		{name: "run shell script by extension", files: map[string]string{"x.sh": "echo from-sh"},
			src: "run(\"x.sh\").out", want: `"from-sh"`},
		{name: "runner not found", files: map[string]string{"x.zzz": "data"},
			src: "run(\"./x.zzz\")", code: diag.RunnerNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, dir := newTestEval(t)
			for n, src := range tc.files {
				write(dir, n, src)
			}
			got, err := evalString(t, ev, tc.src)
			if tc.code != "" {
				if diag.CodeOf(err) != tc.code {
					t.Fatalf("want %s, got %v (%s)", tc.code, err, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}
