package value

// Table is a list of records (LANGUAGE.md §5.1): semantically equal to the
// list of its rows. Rows usually share one Shape.
type Table struct{ Rows []*Record }

func (*Table) Kind() Kind { return KTable }

// Columns returns the column names: the keys of the first row, then any
// keys first seen in later rows.
func (t *Table) Columns() []string {
	if len(t.Rows) == 0 {
		return nil
	}
	first := t.Rows[0].Shape
	cols := append([]string(nil), first.Keys...)
	for _, r := range t.Rows[1:] {
		if r.Shape == first {
			continue
		}
		for _, k := range r.Shape.Keys {
			if first.Index(k) < 0 && !contains(cols, k) {
				cols = append(cols, k)
			}
		}
	}
	return cols
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
