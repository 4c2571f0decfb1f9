package lib

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/shoal-sh/shoal/lang/value"
)

// csv.parse and csv.stringify (§10): the first row is the header, every
// cell is a str, and rows must all have the header's width.

func csvParse(c *call) (value.Value, error) {
	s, err := textArg(c)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(s))
	// Ragged rows are reported by encoding/csv itself (ErrFieldCount).
	r.FieldsPerRecord = 0
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return &value.Table{}, nil
	}
	if err != nil {
		return nil, argErr("invalid CSV: %v", err)
	}
	keys := dedupeHeader(header)
	shape := value.NewShape(keys)
	rows := []*value.Record{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, argErr("invalid CSV: %v", err)
		}
		vals := make([]value.Value, len(rec))
		for i, cell := range rec {
			vals[i] = value.Str(cell)
		}
		rows = append(rows, &value.Record{Shape: shape, Vals: vals})
	}
	return &value.Table{Rows: rows}, nil
}

// dedupeHeader keeps record keys distinct: a repeated column name gets a
// numeric suffix (a, a_2) rather than silently losing a column.
func dedupeHeader(h []string) []string {
	out := make([]string, len(h))
	seen := map[string]bool{}
	for i, k := range h {
		name := k
		for n := 2; seen[name]; n++ {
			name = k + "_" + itoa(n)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

func itoa(n int) string { return value.RenderInline(value.Int(n)) }

// csvStringify writes a table, a list of records or one record. The
// header is the first record's keys; a later record missing a key gets an
// empty cell.
func csvStringify(c *call) (value.Value, error) {
	v, err := valueArg(c)
	if err != nil {
		return nil, err
	}
	var rows []*value.Record
	switch x := v.(type) {
	case *value.Table:
		rows = x.Rows
	case *value.Record:
		rows = []*value.Record{x}
	case *value.List:
		for _, it := range x.Items {
			r, ok := it.(*value.Record)
			if !ok {
				return nil, typeErr("csv.stringify expects records, found a list containing %s", value.TypeName(it))
			}
			rows = append(rows, r)
		}
	default:
		return nil, typeErr("csv.stringify expects a table, a list of records or a record, found %s", value.TypeName(v))
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if len(rows) > 0 {
		header := rows[0].Keys()
		if err := w.Write(header); err != nil {
			return nil, argErr("csv.stringify: %v", err)
		}
		line := make([]string, len(header))
		for _, r := range rows {
			for i, k := range header {
				cell, ok := r.Get(k)
				switch {
				case !ok:
					line[i] = ""
				default:
					line[i] = csvCell(cell)
				}
			}
			if err := w.Write(line); err != nil {
				return nil, argErr("csv.stringify: %v", err)
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, argErr("csv.stringify: %v", err)
	}
	return value.Str(buf.String()), nil
}

// csvCell is a cell's text: strings and paths raw, null empty, anything
// else its inline rendering.
func csvCell(v value.Value) string { return value.Display(v) }
