package lib

import (
	"sort"
	"strings"

	"github.com/shoal-sh/shoal/lang/value"
)

// hintFor is the §11.3 teaching hint for an unknown method name on kind
// k, or "". The candidates come from the catalogue, so a hint never
// names a method the kind lacks.
func hintFor(k value.Kind, name string) string {
	has := func(m string) bool { _, ok := lookup(k, m); return ok }
	switch name {
	case "length", "size":
		if has("len") {
			return "did you mean .len()?"
		}
	case "push":
		if k == value.KList || k == value.KTable {
			return "shoal values are immutable — build a new list with `list + [item]`"
		}
	case "substring", "substr", "slice":
		if k == value.KStr {
			return "did you mean .take(n) / .skip(n)? e.g. s.skip(2).take(3) for the 3 characters after the first 2"
		}
	}
	if x, ok := strings.CutPrefix(name, "to_"); ok && x != "" && has(x) {
		return "did you mean ." + x + "()?"
	}
	cands := names(k)
	// Sorted, so ties between equally near names resolve the same way
	// every time.
	sort.Strings(cands)
	limit := 1
	if len(name) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, m := range cands {
		if d := editDistance(name, m); d <= limit && d < len(name) && d < bestD {
			best, bestD = m, d
		}
	}
	if best != "" {
		return "did you mean ." + best + "()?"
	}
	// `read_str` → `.read()`: the longest method that prefixes the name
	// up to an underscore.
	best = ""
	for _, m := range cands {
		if strings.HasPrefix(name, m+"_") && len(m) > len(best) {
			best = m
		}
	}
	if best != "" {
		return "did you mean ." + best + "()?"
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, by bytes
// (method names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
