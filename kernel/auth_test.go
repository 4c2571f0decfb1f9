package kernel_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/kernel"
	"github.com/shoal-sh/shoal/kernel/client"
	"github.com/shoal-sh/shoal/kernel/kerneltest"
	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/tokens"
)

// Scenario 3: bad tokens fail, a token created after start works, a revoked one fails.
func TestTokenAttach(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	store, err := tokens.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, &kerneltest.Options{NoAttach: true, Kernel: &kernel.Options{TokenStore: path}})
	ctx := ctxT(t)
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{Token: ptr("nope")})
	wantCode(t, err, proto.CodeAuthFailed)
	secret, tok, err := store.Create("agent:reviewer", "reviewer", []string{"fs.read"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := k.Client.Attach(ctx, proto.SessionAttachParams{Session: "work", Token: &secret})
	if err != nil {
		t.Fatal(err)
	}
	if a.Principal != "agent:reviewer" || a.Caps.Profile != "reviewer" || len(a.Caps.TokenCaps) != 1 || a.Session != "work" {
		t.Fatalf("token attach = %+v", a)
	}
	// An agent sees only its own journal rows; the permissive policy gives agents no
	// journal_read at all.
	_, err = k.Client.JournalQuery(ctx, proto.JournalQueryParams{})
	wantCode(t, err, proto.CodeLeashDenied)
	if err := store.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err = k.Client.Attach(ctx, proto.SessionAttachParams{Token: &secret})
	wantCode(t, err, proto.CodeAuthFailed)

	// The same session name under two principals is two sessions.
	local := k.Dial()
	k.AttachClient(local, "work")
	mustExecOn(t, local, "let mine = 1")
	agent := k.Dial()
	secret2, _, _ := store.Create("agent:other", "", nil, nil)
	if _, err := agent.Attach(ctx, proto.SessionAttachParams{Session: "work", Token: &secret2}); err != nil {
		t.Fatal(err)
	}
	_, err = agent.ValueGet(ctx, proto.ValueGetParams{Ref: "out:1"})
	wantCode(t, err, proto.CodeUnknownRef)
}

func mustExecOn(t *testing.T, c *client.Client, src string) proto.ExecResult {
	t.Helper()
	res, err := c.Exec(ctxT(t), proto.ExecParams{Src: &src})
	if err != nil {
		t.Fatalf("exec %q: %v", src, err)
	}
	return res
}

func TestRequireTokenAndEphemeral(t *testing.T) {
	t.Parallel()
	k := newKernel(t, &kerneltest.Options{NoAttach: true, Kernel: &kernel.Options{RequireToken: true}})
	ctx := ctxT(t)
	_, err := k.Client.Attach(ctx, proto.SessionAttachParams{})
	wantCode(t, err, proto.CodeAuthFailed)
	e := wantCode(t, func() error { _, err := k.Client.Attach(ctx, proto.SessionAttachParams{Token: ptr("x")}); return err }(), proto.CodeAuthFailed)
	if !strings.Contains(e.Message, "bearer tokens unavailable in ephemeral kernel") {
		t.Errorf("message = %q", e.Message)
	}
}

// session.cwd and session.env follow the evaluator.
func TestSessionCwdEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	k := newKernel(t, &kerneltest.Options{Cwd: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "ZED=1"}})
	ctx := ctxT(t)
	if k.Attach.Cwd.Display != dir {
		t.Errorf("attach cwd = %+v, want %s", k.Attach.Cwd, dir)
	}
	mustExec(t, k, "cd sub")
	c, err := k.Client.SessionCwd(ctx)
	if err != nil || c.Cwd.Display != sub {
		t.Fatalf("session.cwd = %+v, %v", c, err)
	}
	env, err := k.Client.SessionEnv(ctx)
	if err != nil || !env.Granted || env.Env["ZED"] != "1" || env.Names[len(env.Names)-1] != "ZED" {
		t.Fatalf("session.env = %+v, %v", env, err)
	}
}

// helperActivated is the spawned kernel of TestActivateSpawns: Activate re-execs the test
// binary with "-- kernel --socket PATH".
func TestHelperActivated(t *testing.T) {
	i := len(os.Args) - 2
	if i < 0 || os.Args[i] != "--socket" || os.Getenv("SHOAL_KERNELTEST_ACTIVATE") == "" {
		t.Skip("helper process only")
	}
	sock := os.Args[i+1]
	kernel.Run(context.Background(), &kernel.Options{Socket: sock, Cwd: filepath.Dir(sock)})
}

func TestActivateSpawns(t *testing.T) {
	t.Setenv("SHOAL_KERNELTEST_ACTIVATE", "1") // inherited by the spawned kernel
	sock := filepath.Join(t.TempDir(), "run", "shoal", "default.sock")
	start := time.Now()
	c, err := client.Activate(context.Background(), sock, &client.ActivateOptions{
		Executable: os.Args[0], Args: []string{"-test.run=^TestHelperActivated$", "--", "kernel"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := c.Attach(context.Background(), proto.SessionAttachParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("activated in %v", time.Since(start))
	if a.Kernel.Pid == os.Getpid() || a.Kernel.Pid == 0 {
		t.Fatalf("kernel pid = %d", a.Kernel.Pid)
	}
	syscall.Kill(a.Kernel.Pid, syscall.SIGKILL)
}
