package syntax

import (
	"reflect"
	"slices"
	"testing"
)

// reflectNodes lists every node reachable from v by reflection, the
// reference Walk is checked against.
func reflectNodes(v reflect.Value, out *[]Node) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			reflectNodes(v.Elem(), out)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(Node); ok {
			*out = append(*out, n)
		}
		reflectNodes(v.Elem(), out)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !isPos(v.Type().Field(i).Type) {
				reflectNodes(v.Field(i), out)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			reflectNodes(v.Index(i), out)
		}
	}
}

// TestWalkVisitsEveryNode compares Walk with a reflective traversal on the
// parse table and the whole corpus.
func TestWalkVisitsEveryNode(t *testing.T) {
	t.Parallel()
	var srcs []string
	for _, tc := range parseCases {
		srcs = append(srcs, tc.src)
	}
	for _, f := range loadCorpus(t) {
		for _, c := range f.Cases {
			srcs = append(srcs, c.Src)
		}
	}
	for _, src := range srcs {
		prog, err := Parse(src, nil)
		if err != nil {
			continue
		}
		var want []Node
		reflectNodes(reflect.ValueOf(prog), &want)
		var got []Node
		Walk(prog, func(n Node) bool { got = append(got, n); return true })
		if len(got) != len(want) {
			t.Fatalf("%q: Walk visited %d nodes, reflection finds %d", src, len(got), len(want))
		}
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Fatalf("%q: Walk missed %s", src, dump(n))
			}
		}
	}
}

func TestWalkPrunes(t *testing.T) {
	t.Parallel()
	prog, err := Parse(`let f = x => "{(rm -rf (pwd))}"`+"\nfn g() { ls }", nil)
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	Walk(prog, func(n Node) bool {
		if c, ok := n.(*Command); ok {
			heads = append(heads, c.HeadName())
		}
		return true
	})
	if want := []string{"rm", "pwd", "ls"}; !slices.Equal(heads, want) {
		t.Errorf("commands found = %v, want %v", heads, want)
	}
	heads = nil
	Walk(prog, func(n Node) bool {
		if c, ok := n.(*Command); ok {
			heads = append(heads, c.HeadName())
		}
		_, isFn := n.(*FnDecl)
		return !isFn
	})
	if want := []string{"rm", "pwd"}; !slices.Equal(heads, want) {
		t.Errorf("pruned walk found %v, want %v", heads, want)
	}
	Walk(nil, func(Node) bool { t.Fatal("visited nil"); return true })
}

func TestDeclaredNames(t *testing.T) {
	t.Parallel()
	prog, err := Parse("let a = 1\nvar b = 2\nfn f(p) { let inner = p }\nalias g = git status\nlet a = 3\nlet _ = 4\nexport let e = 5", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := DeclaredNames(prog)
	if want := []string{"a", "b", "f", "inner", "g", "e"}; !slices.Equal(got, want) {
		t.Errorf("DeclaredNames = %v, want %v", got, want)
	}
}
