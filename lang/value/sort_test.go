package value

import (
	"fmt"
	"math"
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

// stableRef is the reference order: a stable comparison sort by Compare.
func stableRef(t *testing.T, keys []Value) []int {
	t.Helper()
	want := make([]int, len(keys))
	for i := range want {
		want[i] = i
	}
	slices.SortStableFunc(want, func(a, b int) int {
		c, err := Compare(keys[a], keys[b])
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	return want
}

// TestSortIndexRadixMatchesCompare checks every encoded kind against a
// plain stable sort, on inputs large enough for the radix paths, with
// many ties, wide and narrow key ranges, and strings that share long
// prefixes or differ only in trailing NULs.
func TestSortIndexRadixMatchesCompare(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	gen := map[string]func(i int) Value{
		"int narrow":   func(int) Value { return Int(rng.IntN(50) - 25) },
		"int wide":     func(int) Value { return Int(rng.Int64() - rng.Int64()) },
		"int extremes": func(int) Value { return []Value{Int(math.MinInt64), Int(math.MaxInt64), Int(0), Int(-1)}[rng.IntN(4)] },
		"size":         func(int) Value { return Size(rng.Uint64() >> uint(rng.IntN(64))) },
		"duration":     func(int) Value { return Duration(rng.Int64N(1e12) - 5e11) },
		"float":        func(int) Value { return Float(rng.NormFloat64() * 1e3) },
		"float zeros inf": func(int) Value {
			return []Value{Float(0), Float(math.Copysign(0, -1)), Float(math.Inf(1)), Float(math.Inf(-1)), Float(-1.5)}[rng.IntN(5)]
		},
		"str digits": func(i int) Value { return Str(fmt.Sprintf("file-%07d", (i*7919)%100_000)) },
		"str dups":   func(int) Value { return Str([]string{"a", "b", "", "a\x00", "ab"}[rng.IntN(5)]) },
		"str long prefix": func(int) Value {
			s := strings.Repeat("/home/user/project/", 1+rng.IntN(2))
			for j := rng.IntN(20); j > 0; j-- {
				s += []string{"", "a", "\x00", "z", "\xff", "é"}[rng.IntN(6)]
			}
			return Str(s)
		},
		"str random": func(int) Value {
			b := make([]byte, rng.IntN(12))
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
			return Str(b)
		},
		"path": func(int) Value { return Path{P: fmt.Sprintf("/tmp/%d/x", rng.IntN(3000))} },
	}
	for name, g := range gen {
		// Keys are drawn here, not in the parallel subtests: rng is shared.
		var inputs [][]Value
		for _, n := range []int{1, 2, 31, 33, 255, 257, 5000, 70_000} {
			keys := make([]Value, n)
			for i := range keys {
				keys[i] = g(i)
			}
			inputs = append(inputs, keys)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, keys := range inputs {
				got, err := SortIndex(keys)
				if err != nil {
					t.Fatalf("%d keys: %v", len(keys), err)
				}
				if !slices.Equal(got, stableRef(t, keys)) {
					t.Errorf("%d keys: radix order differs from the stable sort", len(keys))
				}
			}
		})
	}
}

// TestSortIndexFallbacks keeps the general path's results and errors for
// keys the encoded paths refuse.
func TestSortIndexFallbacks(t *testing.T) {
	t.Parallel()
	big := make([]Value, 1000)
	for i := range big {
		big[i] = Float(float64(1000 - i))
	}
	big[500] = Int(3) // mixed int and float
	got, err := SortIndex(big)
	if err != nil {
		t.Fatal(err)
	}
	if want := stableRef(t, big); !slices.Equal(got, want) {
		t.Errorf("mixed int/float order differs")
	}
	big[700] = Float(math.NaN())
	_, err = SortIndex(big)
	if d := diag.As(err); d == nil || d.Code != diag.TypeError || !strings.Contains(d.Msg, "NaN has no order") {
		t.Errorf("NaN key error = %v", err)
	}
	strs := []Value{Str("b"), Str("a"), Path{P: "c"}}
	_, err = SortIndex(strs)
	if d := diag.As(err); d == nil || d.Msg != "cannot compare str with path" && d.Msg != "cannot compare path with str" {
		t.Errorf("str/path error = %v", err)
	}
}
