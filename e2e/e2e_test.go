// Package e2e drives the shoal executable as users meet it: testscript
// scripts in testdata/script run the real command tree under every
// multicall name (shoal, shoal-kernel, shoal-mcp, shoal-token), so argv[0]
// dispatch, exit codes and stdio are exercised end to end.
package e2e

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shoal-sh/shoal/commands"
)

func shoalMain() {
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

func TestMain(m *testing.M) {
	if os.Getenv(floorEnv) != "" {
		os.Exit(floorServer(os.Stdin, os.Stdout, os.Getenv(relayEnv)))
	}
	if path := os.Getenv(echoSocketEnv); path != "" {
		os.Exit(echoSocket(path))
	}
	if os.Getenv(echoEnv) != "" {
		os.Exit(echoLines(os.Stdin, os.Stdout))
	}
	testscript.Main(mainM{m}, map[string]func(){
		"shoal":        shoalMain,
		"shoal-kernel": shoalMain,
		"shoal-mcp":    shoalMain,
		"shoal-token":  shoalMain,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Each script gets its own runtime and state directories, so
			// sockets, journals and token stores never leak between them.
			env.Setenv("XDG_RUNTIME_DIR", env.WorkDir+"/run")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/state")
			env.Setenv("HOME", env.WorkDir+"/home")
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
	})
}
