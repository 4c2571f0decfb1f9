package kernel

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// DecodeWire turns a tagged wire value back into a language value. It is the inverse of the
// kernel's encoding for every kind that has data; kinds that only carry a repr (closure, cmd)
// or a label (stream, secret) come back as inert values that render the same but cannot be
// called or consumed. An elision summary ("$":"ref") is an error: fetch the value instead.
func DecodeWire(raw json.RawMessage) (value.Value, error) {
	var w wireObj
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("decode wire value: %w", err)
	}
	return w.value()
}

// wireObj holds every member a tagged value may have, raw.
type wireObj struct {
	Tag       string          `json:"$"`
	V         json.RawMessage `json:"v"`
	Raw       string          `json:"raw"`
	Order     []string        `json:"order"`
	Cols      orderedCols     `json:"cols"`
	N         int             `json:"n"`
	Status    *int            `json:"status"`
	OK        bool            `json:"ok"`
	Signal    *string         `json:"signal"`
	Out       json.RawMessage `json:"out"`
	Err       string          `json:"err"`
	DurNs     int64           `json:"dur_ns"`
	Pid       int             `json:"pid"`
	Cmd       string          `json:"cmd"`
	Code      string          `json:"code"`
	Msg       string          `json:"msg"`
	Span      *diag.Span      `json:"span"`
	Hint      string          `json:"hint"`
	Stderr    *string         `json:"stderr"`
	Start     int64           `json:"start"`
	End       int64           `json:"end"`
	Inclusive bool            `json:"inclusive"`
	ID        int64           `json:"id"`
	Done      bool            `json:"done"`
	Repr      string          `json:"repr"`
	Label     string          `json:"label"`
	Name      string          `json:"name"`
	Len       int64           `json:"len"`
	Ref       string          `json:"ref"`
}

// orderedCols keeps a table's column order, which a Go map would lose.
type orderedCols struct {
	names []string
	vals  [][]json.RawMessage
}

func (c *orderedCols) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var col []json.RawMessage
		if err := dec.Decode(&col); err != nil {
			return err
		}
		c.names = append(c.names, name)
		c.vals = append(c.vals, col)
	}
	return nil
}

func (w *wireObj) value() (value.Value, error) {
	switch w.Tag {
	case "null":
		return value.Null{}, nil
	case "bool":
		var b bool
		err := json.Unmarshal(w.V, &b)
		return value.Bool(b), err
	case "int":
		var n int64
		err := json.Unmarshal(w.V, &n)
		return value.Int(n), err
	case "float":
		var s string
		if json.Unmarshal(w.V, &s) == nil {
			switch s {
			case "nan":
				return value.Float(math.NaN()), nil
			case "inf":
				return value.Float(math.Inf(1)), nil
			case "-inf":
				return value.Float(math.Inf(-1)), nil
			}
			return nil, fmt.Errorf("decode wire float: %q", s)
		}
		var f float64
		err := json.Unmarshal(w.V, &f)
		return value.Float(f), err
	case "str":
		var s string
		err := json.Unmarshal(w.V, &s)
		return value.Str(s), err
	case "size":
		var n uint64
		err := json.Unmarshal(w.V, &n)
		return value.Size(n), err
	case "duration":
		var n int64
		err := json.Unmarshal(w.V, &n)
		return value.Duration(n), err
	case "bytes":
		if w.V == nil {
			return &value.Bytes{Ref: w.Ref, Len: w.Len}, nil
		}
		var s string
		if err := json.Unmarshal(w.V, &s); err != nil {
			return nil, err
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("decode wire bytes: %w", err)
		}
		return &value.Bytes{Data: data}, nil
	case "path":
		if w.Raw != "" {
			p, err := base64.StdEncoding.DecodeString(w.Raw)
			if err != nil {
				return nil, fmt.Errorf("decode wire path: %w", err)
			}
			return value.Path{P: string(p)}, nil
		}
		var s string
		err := json.Unmarshal(w.V, &s)
		return value.Path{P: s}, err
	case "list":
		var items []json.RawMessage
		if err := json.Unmarshal(w.V, &items); err != nil {
			return nil, err
		}
		out := make([]value.Value, len(items))
		for i, it := range items {
			v, err := DecodeWire(it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return &value.List{Items: out}, nil
	case "record":
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(w.V, &fields); err != nil {
			return nil, err
		}
		keys := w.Order
		if len(keys) != len(fields) {
			keys = sortedKeys(fields)
		}
		vals := make([]value.Value, len(keys))
		for i, k := range keys {
			raw, ok := fields[k]
			if !ok {
				return nil, fmt.Errorf("decode wire record: order names missing key %q", k)
			}
			v, err := DecodeWire(raw)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return value.NewRecord(keys, vals), nil
	case "table":
		return w.table()
	case "outcome":
		o := &value.Outcome{Status: w.Status, OK: w.OK, Dur: time.Duration(w.DurNs), Pid: w.Pid, Cmd: w.Cmd, Stderr: []byte(w.Err)}
		if w.Signal != nil {
			o.Signal = *w.Signal
		}
		if w.Out != nil {
			out, err := DecodeWire(w.Out)
			if err != nil {
				return nil, err
			}
			o.Out = out
		}
		return o, nil
	case "error":
		e := &diag.Error{Code: w.Code, Msg: w.Msg, Hint: w.Hint, Stderr: w.Stderr, Status: w.Status}
		if w.Span != nil {
			e.Span = *w.Span
		}
		return &value.ErrorVal{Err: e}, nil
	case "datetime":
		var s string
		if err := json.Unmarshal(w.V, &s); err != nil {
			return nil, err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("decode wire datetime: %w", err)
		}
		return value.Datetime{T: t}, nil
	case "time":
		var s string
		if err := json.Unmarshal(w.V, &s); err != nil {
			return nil, err
		}
		var t value.Time
		if _, err := fmt.Sscanf(s, "%d:%d:%d", &t.H, &t.M, &t.S); err != nil {
			return nil, fmt.Errorf("decode wire time %q: %w", s, err)
		}
		return t, nil
	case "glob":
		var s string
		err := json.Unmarshal(w.V, &s)
		return value.Glob{Pattern: s}, err
	case "regex":
		var s string
		err := json.Unmarshal(w.V, &s)
		return value.Regex{Src: s}, err
	case "range":
		return value.Range{Start: w.Start, End: w.End, Inclusive: w.Inclusive}, nil
	case "task":
		return &value.Task{ID: w.ID, Handle: doneHandle(w.Done)}, nil
	case "closure":
		return decodeClosure(w.Repr), nil
	case "cmd":
		head := strings.TrimSuffix(strings.TrimPrefix(w.Repr, "command("), ")")
		return &value.Command{Head: head}, nil
	case "stream":
		// No source: the decoded stream renders like the original but yields nothing.
		return value.NewStream(w.Label, emptySource{}), nil
	case "secret":
		return &value.Secret{Name: w.Name}, nil
	case "ref":
		return nil, fmt.Errorf("decode wire value: an elided ref cannot be decoded; fetch it with value.get")
	}
	return nil, fmt.Errorf("decode wire value: unknown tag %q", w.Tag)
}

func (w *wireObj) table() (value.Value, error) {
	shape := value.NewShape(w.Cols.names)
	rows := make([]*value.Record, w.N)
	for r := range rows {
		vals := make([]value.Value, len(w.Cols.names))
		for c := range w.Cols.names {
			if r >= len(w.Cols.vals[c]) {
				return nil, fmt.Errorf("decode wire table: column %q has fewer than %d cells", w.Cols.names[c], w.N)
			}
			v, err := DecodeWire(w.Cols.vals[c][r])
			if err != nil {
				return nil, err
			}
			vals[c] = v
		}
		rows[r] = &value.Record{Shape: shape, Vals: vals}
	}
	return &value.Table{Rows: rows}, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// decodeClosure rebuilds the rendering fields of "fn name(a, ...rest)" or "closure(a)".
func decodeClosure(repr string) *value.Closure {
	c := &value.Closure{}
	rest := repr
	if name, ok := strings.CutPrefix(repr, "fn "); ok {
		n, tail, _ := strings.Cut(name, "(")
		c.Name, rest = n, "("+tail
	} else {
		rest = strings.TrimPrefix(repr, "closure")
	}
	rest = strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")")
	if rest != "" {
		for _, p := range strings.Split(rest, ", ") {
			if r, ok := strings.CutPrefix(p, "..."); ok {
				c.Rest = r
				continue
			}
			c.Params = append(c.Params, p)
		}
	}
	return c
}

// doneHandle is the inert task handle of a decoded task value.
type doneHandle bool

func (d doneHandle) Await(context.Context) (value.Value, error) { return value.Null{}, nil }
func (d doneHandle) Cancel()                                    {}
func (d doneHandle) Done() bool                                 { return bool(d) }
func (d doneHandle) Suspend() error                             { return fmt.Errorf("decoded task cannot be suspended") }
func (d doneHandle) Resume() error                              { return fmt.Errorf("decoded task cannot be resumed") }
func (d doneHandle) Suspended() bool                            { return false }

// emptySource is the source of a decoded stream: bounded and already at its end.
type emptySource struct{}

func (emptySource) Next(context.Context) (value.Value, bool, error) { return nil, false, nil }
func (emptySource) Bounded() bool                                   { return true }
