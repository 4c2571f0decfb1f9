package eval_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/eval/evaltest"
)

// destructive matches sources that could touch files outside the case's
// directory once mutated; those are not evaluated.
var destructive = regexp.MustCompile(`\b(rm|mv|cp|ln|cd|pushd|popd|save|append|touch|mkdir|source|run|use|open|reef|with|j|jump|env)\b|\.\.|/`)

// TestMutatedCorpusNeverPanics evaluates byte-level mutations of every
// corpus program: whatever the input, the evaluator must answer with a
// value or a language error, never a panic or a hang. Spawning is refused
// through WrapCmd, so no real process runs.
func TestMutatedCorpusNeverPanics(t *testing.T) {
	dir := evaltest.CorpusDir(os.Getenv)
	if dir == "" {
		t.Skip("corpus not found")
	}
	files, err := evaltest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	host := &eval.Host{WrapCmd: func(ctx context.Context, cmd *exec.Cmd) error {
		return diag.New(diag.SpawnDenied, "no spawning in this test")
	}}
	evaluated := 0
	for _, f := range files {
		for _, c := range f.Cases {
			for range 3 {
				src := mutate(rng, c.Src)
				if destructive.MatchString(src) {
					continue
				}
				ev := eval.New(&eval.Options{Cwd: t.TempDir(), Host: host})
				prog, err := ev.Parse(src, false)
				if err != nil {
					continue
				}
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				_, err = ev.Run(ctx, prog, eval.Stmt)
				cancel()
				if d := diag.As(err); d != nil && len(d.Msg) > 14 && d.Msg[:14] == "internal error" {
					t.Errorf("%s: %q: %v", c.Name, src, err)
				}
				evaluated++
			}
		}
	}
	if evaluated < 500 {
		t.Fatalf("only %d mutated programs evaluated", evaluated)
	}
}

func mutate(rng *rand.Rand, s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	i := rng.IntN(len(b))
	switch rng.IntN(4) {
	case 0:
		return string(append(b[:i:i], b[i+1:]...))
	case 1:
		j := rng.IntN(len(b))
		b[i], b[j] = b[j], b[i]
		return string(b)
	case 2:
		chars := "()[]{}.,:;=+-*/<>!?&|\"'0123456789abc_ \n"
		b[i] = chars[rng.IntN(len(chars))]
		return string(b)
	}
	j := i + rng.IntN(len(b)-i)
	return string(b[:j]) + string(b[i:])
}
