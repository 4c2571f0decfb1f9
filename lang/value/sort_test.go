package value

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shoal-sh/shoal/lang/diag"
)

func TestSortIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys []Value
		want []int
	}{
		{"empty", nil, []int{}},
		{"strings stable", []Value{Str("b"), Str("a"), Str("b"), Str("a")}, []int{1, 3, 0, 2}},
		{"ints", []Value{Int(3), Int(-1), Int(2)}, []int{1, 2, 0}},
		{"sizes", []Value{Size(5), Size(1)}, []int{1, 0}},
		{"mixed numbers", []Value{Int(3), Float(1.5), Int(2)}, []int{1, 2, 0}},
		{"durations", []Value{Duration(2), Duration(1), Duration(2)}, []int{1, 0, 2}},
		{"paths", []Value{Path{"b"}, Path{"a"}}, []int{1, 0}},
		{"bools", []Value{Bool(true), Bool(false)}, []int{1, 0}},
	}
	for _, tc := range tests {
		got, err := SortIndex(tc.keys)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	_, err := SortIndex([]Value{Int(1), Str("a"), Int(2)})
	if d := diag.As(err); d == nil || d.Code != diag.TypeError {
		t.Errorf("incomparable keys error = %v", err)
	}
}

// TestSortIndexStringsMatchesCompare checks the packed radix path against
// a plain stable sort on keys built to tie in their first bytes.
func TestSortIndexStringsMatchesCompare(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"", "a", "b", "\x00", "ab", "é"}
	keys := make([]Value, 5000)
	for i := range keys {
		s := "prefix-"
		for j := rng.IntN(14); j > 0; j-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		keys[i] = Str(s)
	}
	got, err := SortIndex(keys)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, len(keys))
	for i := range want {
		want[i] = i
	}
	slices.SortStableFunc(want, func(a, b int) int { return strings.Compare(string(keys[a].(Str)), string(keys[b].(Str))) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packed sort differs from stable sort (-want +got):\n%s", diff)
	}
}

func BenchmarkSortIndexStrings(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]Value, 500_000)
	for i := range keys {
		keys[i] = Str(fmt.Sprintf("file-%08d", rng.IntN(1e8)))
	}
	for b.Loop() {
		if _, err := SortIndex(keys); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMillionRows measures the value-level share of
// `.where(.size > 500kb).sort_by(.name)` on a million-row table.
func BenchmarkMillionRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	shape := NewShape([]string{"id", "name", "size"})
	rows := make([]*Record, 1_000_000)
	for i := range rows {
		rows[i] = &Record{Shape: shape, Vals: []Value{Int(i), Str(fmt.Sprintf("file-%08d", rng.IntN(1e8))), Size(rng.IntN(1e6))}}
	}
	limit := Value(Size(500_000))
	b.ResetTimer()
	for b.Loop() {
		var kept []*Record
		for _, r := range rows {
			v, _ := r.Get("size")
			if c, err := Compare(v, limit); err == nil && c > 0 {
				kept = append(kept, r)
			}
		}
		keys := make([]Value, len(kept))
		for i, r := range kept {
			keys[i], _ = r.Get("name")
		}
		if _, err := SortIndex(keys); err != nil {
			b.Fatal(err)
		}
	}
}
