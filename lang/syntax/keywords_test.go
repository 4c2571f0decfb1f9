package syntax

import (
	"slices"
	"testing"
)

// Keywords agrees with isReserved: every reserved word, plus exactly the literal names.
func TestKeywordsMatchReserved(t *testing.T) {
	kw := Keywords()
	if !slices.IsSorted(kw) {
		t.Errorf("Keywords not sorted: %v", kw)
	}
	n := 0
	for _, w := range kw {
		switch w {
		case "true", "false", "null":
			if isReserved(w) {
				t.Errorf("%s is reserved", w)
			}
		default:
			n++
			if !isReserved(w) {
				t.Errorf("%s is not reserved", w)
			}
		}
	}
	if n != 19 {
		t.Errorf("%d reserved words in Keywords, isReserved has 19", n)
	}
	kw[0] = "x"
	if Keywords()[0] == "x" {
		t.Error("Keywords shares its slice")
	}
}
