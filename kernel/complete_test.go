package kernel_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/syntax"
)

// complete offers builtin heads, namespace roots and keywords from the language's own tables.
func TestCompleteBuiltinsAndNamespaces(t *testing.T) {
	t.Parallel()
	k := newKernel(t, nil)
	ctx := ctxT(t)
	for frag, want := range map[string][]string{
		"hi": {"history"},
		"ma": {"match", "math"},
		"js": {"json"},
		"ex": {"exit", "explain", "export"},
		"pl": {"plan"},
		"co": {"config", "continue"},
	} {
		c, err := k.Client.Complete(ctx, proto.CompleteParams{Src: "echo 1\n" + frag})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Candidates, want) {
			t.Errorf("complete %q = %v, want %v", frag, c.Candidates, want)
		}
	}
	// Every exported word is offered for the empty fragment.
	c, err := k.Client.Complete(ctx, proto.CompleteParams{Src: ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range [][]string{syntax.Keywords(), eval.BuiltinHeads(), eval.Namespaces()} {
		for _, w := range list {
			if !slices.Contains(c.Candidates, w) {
				t.Errorf("%q missing from %s", w, strings.Join(c.Candidates, " "))
			}
		}
	}
}
