package effects

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/leash"
)

// testBin is the fake session PATH: the programs that resolve.
func testBin(name string) (string, bool) {
	switch name {
	case "git", "python3", "sort", "node", "xdg-open", "vim":
		return "/usr/bin/" + name, true
	case "sh", "cat":
		return "/bin/" + name, true
	}
	return "", false
}

// hashOf is the fake BLAKE3 of a binary: any 64-hex digest will do.
func hashOf(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:])
}

func testEnv() *Env {
	return &Env{
		Cwd:  "/p",
		Home: "/h",
		LookPath: func(name string) (string, error) {
			if p, ok := testBin(name); ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
		HashFile: func(path string) (string, error) {
			if strings.HasPrefix(path, "/usr/bin/") || strings.HasPrefix(path, "/bin/") || path == "/p/build.sh" {
				return hashOf(path), nil
			}
			return "", errors.New("no such file")
		},
	}
}

func derive(t *testing.T, src string, env *Env) []leash.Effect {
	t.Helper()
	prog, err := syntax.Parse(src, nil)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Derive(prog, env)
}

func rd(ps ...string) leash.Effect  { return leash.Effect{Kind: leash.KindFsRead, Paths: ps} }
func wr(ps ...string) leash.Effect  { return leash.Effect{Kind: leash.KindFsWrite, Paths: ps} }
func del(ps ...string) leash.Effect { return leash.Effect{Kind: leash.KindFsDelete, Paths: ps} }
func delPermanent(ps ...string) leash.Effect {
	return leash.Effect{Kind: leash.KindFsDelete, Paths: ps, Permanent: true}
}
func envRead(ns ...string) leash.Effect  { return leash.Effect{Kind: leash.KindEnvRead, Names: ns} }
func envWrite(ns ...string) leash.Effect { return leash.Effect{Kind: leash.KindEnvWrite, Names: ns} }
func secretUse(ns ...string) leash.Effect {
	return leash.Effect{Kind: leash.KindSecretUse, Names: ns}
}
func connect(host string, port int) leash.Effect {
	return leash.Effect{Kind: leash.KindNetConnect, Host: host, Port: port}
}

// spawn is a proc_spawn of a program that resolves on the fake PATH.
func spawn(argv0 string) leash.Effect {
	p, ok := testBin(argv0)
	if !ok {
		return leash.Effect{Kind: leash.KindProcSpawn, Argv0: argv0}
	}
	return leash.Effect{Kind: leash.KindProcSpawn, Argv0: argv0, BinHash: hashOf(p)}
}

var (
	opaque       = leash.Effect{Kind: leash.KindOpaque}
	clock        = leash.Effect{Kind: leash.KindTime}
	sessionWrite = leash.Effect{Kind: leash.KindSessionWrite}
	journalRead  = leash.Effect{Kind: leash.KindJournalRead}
	unknownSpawn = leash.Effect{Kind: leash.KindProcSpawn}
)

type deriveCase struct {
	name string
	src  string
	want []leash.Effect
}

func runCases(t *testing.T, cases []deriveCase, env func() *Env) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := derive(t, tc.src, env())
			want := tc.want
			if want == nil {
				want = []leash.Effect{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Derive(%q) (-want +got):\n%s", tc.src, diff)
			}
		})
	}
}

func TestBuiltins(t *testing.T) {
	t.Parallel()
	runCases(t, []deriveCase{
		{"ls defaults to cwd", "ls", []leash.Effect{rd("/p")}},
		{"ls paths", "ls -a src ~/d /abs ../up", []leash.Effect{rd("/abs", "/h/d", "/p/src", "/up")}},
		{"ls as a value", "ls.len()", []leash.Effect{rd("/p")}},
		{"stat", "stat a", []leash.Effect{rd("/p/a")}},
		{"cat", "cat a b", []leash.Effect{rd("/p/a", "/p/b")}},
		{"cat stdin redirect", "cat < f", []leash.Effect{rd("/p/f")}},
		{"head reads its first argument", "head f 5", []leash.Effect{rd("/p/f")}},
		{"mkdir", "mkdir -p a/b", []leash.Effect{wr("/p/a/b")}},
		{"touch", "touch x y", []leash.Effect{wr("/p/x", "/p/y")}},
		{"cp", "cp a b d", []leash.Effect{rd("/p/a", "/p/b"), wr("/p/d", "/p/d/**")}},
		{"cp -r", "cp -r a d", []leash.Effect{rd("/p/a", "/p/a/**"), wr("/p/d", "/p/d/**")}},
		{"cp needs two", "cp a", nil},
		{"mv", "mv a b", []leash.Effect{rd("/p/a", "/p/a/**"), wr("/p/b", "/p/b/**"), del("/p/a", "/p/a/**")}},
		{"rm to trash", "rm a b", []leash.Effect{del("/p/a", "/p/b")}},
		{"rm -r", "rm -r a", []leash.Effect{del("/p/a", "/p/a/**")}},
		{"rm -rf cluster", "rm -rf a", []leash.Effect{del("/p/a", "/p/a/**")}},
		{"rm --permanent", "rm --permanent a", []leash.Effect{delPermanent("/p/a")}},
		{"rm both kinds", "rm a; rm --permanent b", []leash.Effect{del("/p/a"), delPermanent("/p/b")}},
		{"rm after --", "rm -- -x", []leash.Effect{del("/p/-x")}},
		{"ln", "ln -s target link", []leash.Effect{rd("/p/target"), wr("/p/link")}},
		{"cd", "cd /tmp", []leash.Effect{sessionWrite}},
		{"pushd popd", "pushd /tmp; popd", []leash.Effect{sessionWrite}},
		{"j", "j proj", []leash.Effect{sessionWrite}},
		{"pwd dirs", "pwd; dirs", nil},
		{"env all", "env", []leash.Effect{envRead("*")}},
		{"env name", "env HOME", []leash.Effect{envRead("HOME")}},
		{"env as a value", "let e = env", []leash.Effect{envRead("*")}},
		{"sleep", "sleep 1", []leash.Effect{clock}},
		{"echo", "echo hi", nil},
		{"echo redirect", "echo hi > out.txt", []leash.Effect{wr("/p/out.txt")}},
		{"append redirect", "echo hi >> ~/log", []leash.Effect{wr("/h/log")}},
		{"save command", "save out.json 1", []leash.Effect{wr("/p/out.json")}},
		{"save call", `save("o.txt", 1)`, []leash.Effect{wr("/p/o.txt")}},
		{".save", `"hi".save("o.txt")`, []leash.Effect{wr("/p/o.txt")}},
		{".append path", `[1].append(path("/var/log/x"))`, []leash.Effect{wr("/var/log/x")}},
		{"source", "source lib.shl", []leash.Effect{rd("/p/lib.shl"), opaque}},
		{"use", "use ./lib/rel", []leash.Effect{rd("/p/lib/rel", "/p/lib/rel.shl"), opaque}},
		{"run script", "run x.shl a", []leash.Effect{rd("/p/x.shl"), opaque}},
		{"path script", "./x.shl a", []leash.Effect{rd("/p/x.shl"), opaque}},
		{"run python", `run("tools/x.py")`, []leash.Effect{rd("/p/tools/x.py"), spawn("python3"), opaque}},
		{"run unknown runner", "run x.tcl", []leash.Effect{rd("/p/x.tcl"), unknownSpawn, opaque}},
		{"run program", "run git status", []leash.Effect{spawn("git"), opaque}},
		{"run computed", `var t = "x"; run (t)`, []leash.Effect{rd("/**"), unknownSpawn, opaque}},
		{"journal", "journal", []leash.Effect{journalRead}},
		{"history", "history", []leash.Effect{journalRead}},
		{"undo", "undo", []leash.Effect{journalRead, opaque}},
		{"which", "which git", []leash.Effect{rd("/**"), envRead("PATH")}},
		{"reef doctor", "reef doctor", []leash.Effect{rd("/**"), envRead("PATH")}},
		{"reef add", "reef add node@22", []leash.Effect{rd("/**"), envRead("PATH"), opaque}},
		{"exit", "exit 0", nil},
		{"jobs plan explain", `jobs; plan "x"; explain "x"`, nil},
		{"apply", "apply p1", []leash.Effect{opaque}},
		{"open", `open("a.pdf")`, []leash.Effect{spawn("xdg-open"), opaque}},
		{"interact", "interact vim f", []leash.Effect{spawn("vim"), opaque}},
		{"call form of a builtin", `ls("src")`, []leash.Effect{rd("/p/src")}},
		{"named arg as flag", `rm("a", permanent: true)`, []leash.Effect{delPermanent("/p/a")}},
	}, testEnv)
}

func TestExternals(t *testing.T) {
	t.Parallel()
	buildHash := hashOf("/p/build.sh")
	runCases(t, []deriveCase{
		// Scenario 10 of AGENT-SURFACE.md §9: a shell block is opaque.
		{"sh block", "sh { echo hi }", []leash.Effect{spawn("sh"), opaque}},
		{"python block", "python3 { print(1) }", []leash.Effect{spawn("python3"), opaque}},
		{"raw string block", "sh'echo hi'", []leash.Effect{spawn("sh"), opaque}},
		{"block in value position", "(sh { exit 3 }).status", []leash.Effect{spawn("sh"), opaque}},
		{"program", "git status", []leash.Effect{spawn("git"), opaque}},
		{"caret", "^git log", []leash.Effect{spawn("git"), opaque}},
		{"path args are not reads", "git add src/a.go", []leash.Effect{spawn("git"), opaque}},
		{"unresolvable still spawns", "zz --x", []leash.Effect{spawn("zz"), opaque}},
		{"path head", "./build.sh", []leash.Effect{{Kind: leash.KindProcSpawn, Argv0: "./build.sh", BinHash: buildHash}, opaque}},
		{"missing path head", "/opt/x/y", []leash.Effect{{Kind: leash.KindProcSpawn, Argv0: "/opt/x/y"}, opaque}},
		{"background", "git fetch &", []leash.Effect{spawn("git"), opaque}},
		{"redirect of a program", "git log > log.txt", []leash.Effect{wr("/p/log.txt"), spawn("git"), opaque}},
		{"program reads stdin file", "sort < in.txt", []leash.Effect{rd("/p/in.txt"), spawn("sort"), opaque}},
		{"feed to a command", `"b\na".feed(sort -r)`, []leash.Effect{spawn("sort"), opaque}},
		{"feed runs the system cat", `"x".feed(cat)`, []leash.Effect{spawn("cat"), opaque}},
		{"feed from the command side", `sort.feed("x")`, []leash.Effect{spawn("sort"), opaque}},
		{"feed to a block", `"x".feed(python3 { import sys })`, []leash.Effect{spawn("python3"), opaque}},
		{"feed data evaluates", `(ls).feed(sort)`, []leash.Effect{rd("/p"), spawn("sort"), opaque}},
		{"unbound name as a value", "let v = git", []leash.Effect{spawn("git"), opaque}},
		{"unbound name resolving nowhere", "let v = nosuch", nil},
		{"several spawns sorted", "sort; git; sh { x }", []leash.Effect{spawn("git"), spawn("sh"), spawn("sort"), opaque}},
		{"nested command", "echo (git rev-parse HEAD)", []leash.Effect{spawn("git"), opaque}},
		{"env prefix", "LD_PRELOAD=/x.so git status", []leash.Effect{spawn("git"), envWrite("LD_PRELOAD"), opaque}},
	}, testEnv)
}

func TestNetworkEnvSecretsTime(t *testing.T) {
	t.Parallel()
	runCases(t, []deriveCase{
		{"https", `http.get("https://api.github.com/repos")`, []leash.Effect{connect("api.github.com", 443)}},
		{"http", `http.delete("http://Example.COM/x")`, []leash.Effect{connect("example.com", 80)}},
		{"explicit port", `http.post("http://localhost:8080/api", '{}')`, []leash.Effect{connect("localhost", 8080)}},
		{"interpolated path", `http.put("https://h.io/items/{id}", "x")`, []leash.Effect{connect("h.io", 443)}},
		{"interpolated host", `http.get("https://{host}/x")`, []leash.Effect{connect("*", 0)}},
		{"computed url", `http.get(url)`, []leash.Effect{connect("*", 0)}},
		{"two endpoints", `http.get("https://b.io"); http.get("https://a.io")`, []leash.Effect{connect("a.io", 443), connect("b.io", 443)}},
		{"shadowed http", `let http = {get: (u) => 1}; http.get("https://a.io")`, nil},
		{"env read", "env.HOME", []leash.Effect{envRead("HOME")}},
		{"env reads merged", "env.PATH; env.HOME", []leash.Effect{envRead("HOME", "PATH")}},
		{"env wildcard absorbs", "env.PATH; os.env()", []leash.Effect{envRead("*")}},
		{"env write", "env.X = 1", []leash.Effect{envWrite("X")}},
		{"with env", "with env: {A: 1, B: 2} { echo hi }", []leash.Effect{envWrite("A", "B")}},
		{"with computed env", "let r = {}; with env: r { echo hi }", []leash.Effect{envWrite("*")}},
		{"secret", `secret.get("github-token")`, []leash.Effect{secretUse("github-token")}},
		{"computed secret", `secret.get(n)`, []leash.Effect{secretUse("*")}},
		{"secret handed to a child", `TOKEN=(secret.get("t")) git push`, []leash.Effect{spawn("git"), envWrite("TOKEN"), secretUse("t"), opaque}},
		{"now ident", "let t = now", []leash.Effect{clock}},
		{"now call", "now()", []leash.Effect{clock}},
		{"today", "let d = today()", []leash.Effect{clock}},
		{"ago", "let t = 1h.ago", []leash.Effect{clock}},
		{"every", "let s = every(1s)", []leash.Effect{clock}},
		{"bound now", "let now = 1; let t = now", nil},
		{"ip literal host", `http.get("https://[::1]:8443/x")`, []leash.Effect{connect("::1", 8443)}},
		{"other scheme", `http.get("ftp://files.io/x")`, []leash.Effect{connect("files.io", 0)}},
		{"no scheme", `http.get("files.io/x")`, []leash.Effect{connect("*", 0)}},
		{"secret in with env", `with env: {T: secret.get("t")} { git push }`, []leash.Effect{spawn("git"), envWrite("T"), secretUse("t"), opaque}},
	}, testEnv)
}

func TestPaths(t *testing.T) {
	t.Parallel()
	runCases(t, []deriveCase{
		{"string literal", `rm "a b"`, []leash.Effect{del("/p/a b")}},
		{"variable", `var x = "a"; rm (x)`, []leash.Effect{del("/**")}},
		{"let string is constant", `let x = "a"; rm (x); cd (x); rm y`, []leash.Effect{del("/p/a", "/p/a/y"), sessionWrite}},
		{"parameter", `fn f(x) { rm (x) }; f("a")`, []leash.Effect{del("/**")}},
		{"interpolation", `rm "{x}.log"`, []leash.Effect{del("/**")}},
		{"path call", `rm (path("a"))`, []leash.Effect{del("/p/a")}},
		{"dotdot escapes", "rm ../../etc/x", []leash.Effect{del("/etc/x")}},
		{"home", "rm ~", []leash.Effect{del("/h")}},
		{"glob word", "rm *.log", []leash.Effect{rd("/p/**"), del("/p/**")}},
		{"glob word for a program", "git add src/*.go", []leash.Effect{rd("/p/src/**"), spawn("git"), opaque}},
		{"glob expand counted once", `glob("a/*").expand(); let g = glob("b/*"); g.expand()`, []leash.Effect{rd("/p/a/**", "/p/b/**")}},
		{"unknown expand", `g.expand()`, []leash.Effect{rd("/**")}},
		{"glob loop variable", `for p in glob("src/*.go") { p.lines() }`, []leash.Effect{rd("/p/src/**")}},
		{"glob binding loop", `let g = glob("/etc/*.conf"); for f in g { f.size }`, []leash.Effect{rd("/etc/**")}},
		{"glob match parent is unknown", `for p in glob("*.go") { p.parent.read() }`, []leash.Effect{rd("/**")}},
		{"glob under dir", "rm src/*.o", []leash.Effect{rd("/p/src/**"), del("/p/src/**")}},
		{"absolute glob", "cat /etc/*.conf", []leash.Effect{rd("/etc/**")}},
		{"glob call", `let g = glob("src/**/*.go")`, []leash.Effect{rd("/p/src/**")}},
		{"glob call plain", `let g = glob("a.txt")`, []leash.Effect{rd("/p/a.txt")}},
		{"path methods", `path("a").read(); path("/b").exists; path("c").lines()`, []leash.Effect{rd("/b", "/p/a", "/p/c")}},
		{"path method via binding", `let p = path("~/x"); p.size()`, []leash.Effect{rd("/h/x")}},
		{"parent and join", `let p = path("/a/b"); p.parent.join("c").read()`, []leash.Effect{rd("/a/c")}},
		{"computed path", `path(x).read()`, []leash.Effect{rd("/**")}},
		{"path-only method on unknown", `xs.map(.exists)`, []leash.Effect{rd("/**")}},
		{"lines on a string is not a read", `"a\nb".lines()`, nil},
		{"reassigned path", `var p = path("a"); p = path("b"); p.read()`, []leash.Effect{rd("/**")}},
		{"cd moves the cwd", "cd /tmp; rm x", []leash.Effect{del("/tmp/x"), sessionWrite}},
		{"cd home", "cd; rm x", []leash.Effect{del("/h/x"), sessionWrite}},
		{"cd back", "cd /a; cd /b; cd -; rm x", []leash.Effect{del("/a/x"), sessionWrite}},
		{"cd computed", `var d = "a"; cd (d); rm x`, []leash.Effect{del("/**"), sessionWrite}},
		{"cd on one branch", "if c { cd /a }; rm x", []leash.Effect{del("/**"), sessionWrite}},
		{"cd in a loop", "for d in ds { rm x; cd sub }", []leash.Effect{del("/**"), sessionWrite}},
		{"popd forgets", "popd; rm x", []leash.Effect{del("/**"), sessionWrite}},
		{"absolute survives unknown cwd", `var d = "a"; cd (d); rm /tmp/x`, []leash.Effect{del("/tmp/x"), sessionWrite}},
		{"with cwd", `with cwd: "/w" { rm x }; rm y`, []leash.Effect{del("/p/y", "/w/x")}},
		{"relative with cwd", `with cwd: "sub" { rm x }`, []leash.Effect{del("/p/sub/x")}},
		{"lambda after cd", "let f = () => { rm x }; cd /tmp; f()", []leash.Effect{del("/**"), sessionWrite}},
		{"spawn sees its own cwd copy", "spawn { cd /a }; rm x", []leash.Effect{del("/p/x"), sessionWrite}},
		{"computed with cwd", "var d = \"a\"; with cwd: d { rm x }; rm y", []leash.Effect{del("/**")}},
		{"wildcard absorbs literal paths", "var x = \"a\"; rm a; rm (x)", []leash.Effect{del("/**")}},
		{"cd inside && stays known", "cd /a && rm x", []leash.Effect{del("/a/x"), sessionWrite}},
		{"cd on the right of && is conditional", "touch t && cd /a; rm x", []leash.Effect{wr("/p/t"), del("/**"), sessionWrite}},
		{"try body that moves the cwd", "try { cd /a; rm x } catch { rm y }", []leash.Effect{del("/**"), sessionWrite}},
	}, testEnv)
}

func TestUnknownContext(t *testing.T) {
	t.Parallel()
	runCases(t, []deriveCase{
		{"relative without cwd", "rm x; ls", []leash.Effect{rd("/**"), del("/**")}},
		{"home without home", "rm ~/x; cd; rm y", []leash.Effect{del("/**"), sessionWrite}},
		{"absolute without cwd", "cat /etc/hosts", []leash.Effect{rd("/etc/hosts")}},
		{"no LookPath: any free name may spawn", "let v = x + 1", []leash.Effect{{Kind: leash.KindProcSpawn, Argv0: "x"}, opaque}},
	}, func() *Env { return &Env{} })
}

func TestFunctionsAndBranches(t *testing.T) {
	t.Parallel()
	runCases(t, []deriveCase{
		{"fn declared only", "fn clean() { rm -r build }", nil},
		{"fn called", "fn clean() { rm build }; clean()", []leash.Effect{del("/p/build")}},
		{"fn as command", "fn clean(d) { rm (d) }; clean out", []leash.Effect{del("/**")}},
		{"fn as a value", "fn f(x) { rm x.txt }; [1].map(f)", []leash.Effect{del("/p/x.txt")}},
		{"fn param default", `fn f(t = now()) { t }; f()`, []leash.Effect{clock}},
		{"recursion", "fn r(n) { if n > 0 { rm a; r(n - 1) } }; r(3)", []leash.Effect{del("/p/a")}},
		{"mutual recursion", "fn a() { b() }; fn b() { a(); touch t }; a()", []leash.Effect{wr("/p/t")}},
		{"called through another fn", "fn outer() { inner() }; fn inner() { touch i }; outer()", []leash.Effect{wr("/p/i")}},
		{"fn shadows a builtin", "fn ls() { touch x }; ls", []leash.Effect{wr("/p/x")}},
		{"param shadows a builtin", "fn f(ls) { ls.len() }; f(1)", nil},
		{"let shadows a builtin", "let ls = [1]; ls.len()", nil},
		{"lambda", "let f = (x) => { rm a }", []leash.Effect{del("/p/a")}},
		{"trailing block", "xs.each { touch t }", []leash.Effect{wr("/p/t")}},
		{"dot lambda", "xs.map(.read())", []leash.Effect{rd("/**")}},
		{"if both branches", "if c { touch a } else { rm b }", []leash.Effect{wr("/p/a"), del("/p/b")}},
		{"match arms", "match x { 1 => { touch a }, _ => { rm b } }", []leash.Effect{wr("/p/a"), del("/p/b")}},
		{"match binder shadows", "match x { ls => ls.len() }", nil},
		{"try catch", "try { touch a } catch e { rm b }", []leash.Effect{wr("/p/a"), del("/p/b")}},
		{"postfix catch", "(cat a) catch { touch b }", []leash.Effect{rd("/p/a"), wr("/p/b")}},
		{"while", "while c { sleep 1 }", []leash.Effect{clock}},
		{"for", "for f in fs { rm (f) }", []leash.Effect{del("/**")}},
		{"and or operands", "touch a && rm b || git status", []leash.Effect{wr("/p/a"), del("/p/b"), spawn("git"), opaque}},
		{"spawn block", "let t = spawn { touch t }", []leash.Effect{wr("/p/t")}},
		{"interpolated command", `let s = "{(git describe)}"`, []leash.Effect{spawn("git"), opaque}},
		{"alias", "alias rmp = rm --permanent; rmp a", []leash.Effect{delPermanent("/p/a")}},
		{"alias of a program", "alias gs = git status; gs --short", []leash.Effect{spawn("git"), opaque}},
		{"alias called", `alias tp = touch; tp("a")`, []leash.Effect{wr("/p/a")}},
		{"alias redirect at the call site", "alias l = ls; l > out", []leash.Effect{rd("/p"), wr("/p/out")}},
		{"fn used before its declaration", "fn main() { helper() }; fn helper() { touch h }; main()", []leash.Effect{wr("/p/h")}},
		{"call before the declaration may be either", "git; fn git() { touch g }", []leash.Effect{wr("/p/g"), spawn("git"), opaque}},
		{"iife", "((a) => { touch a })(1)", []leash.Effect{wr("/p/a")}},
		{"computed callee", "let fs = [() => 1]; fs[0]()", []leash.Effect{opaque}},
	}, testEnv)
}

func TestSessionBindings(t *testing.T) {
	t.Parallel()
	bound := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, m := range names {
				if n == m {
					return true
				}
			}
			return false
		}
	}
	withBound := func(callable func(string) bool) func() *Env {
		return func() *Env {
			e := testEnv()
			e.Bound = bound("deploy", "items", "p")
			e.Callable = callable
			return e
		}
	}
	unknownCallable := []deriveCase{
		{"bound head is a call", "deploy prod", []leash.Effect{spawn("deploy"), opaque}},
		{"bound callee", "deploy()", []leash.Effect{opaque}},
		{"bound value read", "let n = items.len()", nil},
		{"bound name handed to a call", "[1].map(deploy)", []leash.Effect{opaque}},
		{"bound receiver of a path method", "p.read()", []leash.Effect{rd("/**")}},
	}
	runCases(t, unknownCallable, withBound(nil))
	known := []deriveCase{
		{"callable head", "deploy prod", []leash.Effect{opaque}},
		{"callable referenced", "let g = deploy", []leash.Effect{opaque}},
		{"value not callable", "let n = items.len(); [1].map(items)", nil},
		{"value head with args runs the builtin", "^items src", []leash.Effect{spawn("items"), opaque}},
		{"shadowed session name", "let deploy = 1; let g = deploy", nil},
	}
	runCases(t, known, withBound(bound("deploy")))
}

func TestReversibility(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  string
		want string
	}{
		{"rm a", leash.Reversible},
		{"rm --permanent a", leash.Irreversible},
		{"rm -r --permanent a", leash.Irreversible},
		{"cp a b; mkdir c", leash.Reversible},
		{"sh { echo hi }", leash.Irreversible},
		{"git status", leash.Irreversible},
		{`http.get("https://a.io")`, leash.Irreversible},
		{"env.X = 1; cd /tmp", leash.Reversible},
	}
	for _, tc := range cases {
		if got := leash.Reversibility(derive(t, tc.src, testEnv())); got != tc.want {
			t.Errorf("Reversibility(%q) = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestScenario10Verdict: under opaque = "ask" a shell block needs an
// approval, and a principal that pins other programs cannot run it.
func TestScenario10Verdict(t *testing.T) {
	t.Parallel()
	pol, err := leash.Parse([]byte(`
[principal."agent:a"]
opaque = "ask"
auto_apply = "in-grant"

[principal."agent:pinned"]
opaque = "ask"
proc_spawn = ["git"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	effs := derive(t, "sh { echo hi }", testEnv())
	if got := pol.PlanVerdict("agent:a", effs); got != leash.ApprovalRequired {
		t.Errorf("agent:a verdict = %s, want %s", got, leash.ApprovalRequired)
	}
	if got := pol.PlanVerdict("agent:pinned", effs); got != leash.Deny {
		t.Errorf("agent:pinned verdict = %s, want %s", got, leash.Deny)
	}
	unknown := derive(t, `var x = "a"; rm (x)`, testEnv())
	narrow, err := leash.Parse([]byte(`
[principal."agent:n"]
auto_apply = "in-grant"
fs.delete = ["/p/**"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := narrow.PlanVerdict("agent:n", unknown); got != leash.Deny {
		t.Errorf("unknown path under a narrow grant: %s, want deny", got)
	}
	if got := narrow.PlanVerdict("agent:n", derive(t, "rm x", testEnv())); got != leash.Allow {
		t.Errorf("literal path under its grant: %s, want allow", got)
	}
}

func TestDeriveNil(t *testing.T) {
	t.Parallel()
	if got := Derive(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("Derive(nil, nil) = %#v, want an empty non-nil list", got)
	}
	prog, err := syntax.Parse("ls", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]leash.Effect{rd("/**")}, Derive(prog, nil)); diff != "" {
		t.Errorf("nil env (-want +got):\n%s", diff)
	}
}

func TestHashMemoized(t *testing.T) {
	t.Parallel()
	env := testEnv()
	calls := 0
	hash := env.HashFile
	env.HashFile = func(p string) (string, error) {
		calls++
		return hash(p)
	}
	derive(t, "git a; git b; ^git c; sh { git d }", env)
	if calls != 2 {
		t.Errorf("HashFile called %d times, want 2 (git, sh)", calls)
	}
}
