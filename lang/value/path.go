package value

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
)

// StepKind says what a [PathStep] selects.
type StepKind uint8

// The step kinds of a value path.
const (
	StepField StepKind = iota // .name
	StepIndex                 // [n]
	StepSlice                 // [a..b], half-open, clamped
)

// PathStep is one step of a value path as the kernel's value.get takes it
// (AGENT-SURFACE.md §2.5.4): a field name, an index or a slice.
type PathStep struct {
	Kind  StepKind
	Name  string // StepField
	Index int64  // StepIndex
	// Lo and Hi bound a StepSlice; HasLo/HasHi are false for an open end
	// ([..3], [2..]).
	Lo, Hi       int64
	HasLo, HasHi bool
}

// String renders the step back in path syntax.
func (s PathStep) String() string {
	switch s.Kind {
	case StepIndex:
		return "[" + strconv.FormatInt(s.Index, 10) + "]"
	case StepSlice:
		var b strings.Builder
		b.WriteByte('[')
		if s.HasLo {
			b.WriteString(strconv.FormatInt(s.Lo, 10))
		}
		b.WriteString("..")
		if s.HasHi {
			b.WriteString(strconv.FormatInt(s.Hi, 10))
		}
		b.WriteByte(']')
		return b.String()
	}
	return "." + s.Name
}

// ParsePath parses a value path: a sequence of .name, name (the leading
// dot is optional), [n] and [a..b]. A name runs to the next '.' or '[';
// indexes are non-negative integers, never expressions. The empty path has
// no steps. Errors are arg_errors naming the offending position.
func ParsePath(s string) ([]PathStep, error) {
	var steps []PathStep
	i := 0
	bad := func(why string) ([]PathStep, error) {
		return nil, diag.New(diag.ArgError, "bad value path %s at byte %d: %s", strconv.Quote(s), i, why)
	}
	for i < len(s) {
		switch c := s[i]; {
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return bad("unclosed `[`")
			}
			step, ok := parseBracket(s[i+1 : i+end])
			if !ok {
				return bad("expected [n] or [a..b] with non-negative integers")
			}
			steps = append(steps, step)
			i += end + 1
		case c == '.' || i == 0:
			if c == '.' {
				i++
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i {
				return bad("empty field name")
			}
			steps = append(steps, PathStep{Kind: StepField, Name: s[i:j]})
			i = j
		default:
			return bad("expected `.` or `[`")
		}
	}
	return steps, nil
}

func parseBracket(in string) (PathStep, bool) {
	lo, hi, isRange := strings.Cut(in, "..")
	if !isRange {
		n, ok := parseIndex(in)
		return PathStep{Kind: StepIndex, Index: n}, ok
	}
	st := PathStep{Kind: StepSlice}
	if lo != "" {
		n, ok := parseIndex(lo)
		if !ok {
			return st, false
		}
		st.Lo, st.HasLo = n, true
	}
	if hi != "" {
		n, ok := parseIndex(hi)
		if !ok {
			return st, false
		}
		st.Hi, st.HasHi = n, true
	}
	return st, true
}

func parseIndex(s string) (int64, bool) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ApplyPath follows steps from v with the receiver table of
// AGENT-SURFACE.md §2.5.4. It only inspects: a failed outcome's fields
// are readable, nothing raises cmd_failed. Failures are field_missing,
// index_range or type_error diagnostics naming the step.
func ApplyPath(v Value, steps []PathStep) (Value, error) {
	for _, st := range steps {
		var err error
		switch st.Kind {
		case StepField:
			v, err = pathField(v, st.Name)
		case StepIndex:
			v, err = pathIndex(v, st.Index)
		case StepSlice:
			v, err = pathSlice(v, st)
		}
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

func pathField(v Value, name string) (Value, error) {
	switch x := v.(type) {
	case *Record:
		if f, ok := x.Get(name); ok {
			return f, nil
		}
		return nil, diag.New(diag.FieldMissing, "missing field `%s`", name)
	case *Table:
		if name == "rows" {
			return &List{Items: rowsAsItems(x.Rows)}, nil
		}
		col := make([]Value, len(x.Rows))
		for i, r := range x.Rows {
			if f, ok := r.Get(name); ok {
				col[i] = f
			} else {
				col[i] = Null{}
			}
		}
		return &List{Items: col}, nil
	case *Outcome:
		return outcomePathField(x, name)
	case *ErrorVal:
		return errorField(x, name)
	case Range:
		switch name {
		case "start":
			return Int(x.Start), nil
		case "end":
			return Int(x.End), nil
		case "inclusive":
			return Bool(x.Inclusive), nil
		}
	case *Task:
		switch name {
		case "id":
			return Int(x.ID), nil
		case "done":
			return Bool(x.Handle != nil && x.Handle.Done()), nil
		}
	}
	return nil, diag.New(diag.FieldMissing, "%s has no field `%s`", TypeName(v), name)
}

func outcomePathField(o *Outcome, name string) (Value, error) {
	switch name {
	case "status":
		if o.Status == nil {
			return Null{}, nil
		}
		return Int(*o.Status), nil
	case "ok":
		return Bool(o.OK), nil
	case "signal":
		if o.Signal == "" {
			return Null{}, nil
		}
		return Str(o.Signal), nil
	case "out":
		return OutcomeOut(o), nil
	case "stdout":
		return &Bytes{Data: o.Stdout}, nil
	case "stderr":
		return &Bytes{Data: o.Stderr}, nil
	case "dur_ns":
		return Int(o.Dur.Nanoseconds()), nil
	case "pid":
		return Int(o.Pid), nil
	case "cmd":
		return Str(o.Cmd), nil
	}
	// Like the language's forwarding, other names are read from .out.
	return pathField(OutcomeOut(o), name)
}

// errorField reads code, msg, hint, stderr and status; absent optional
// parts are null.
func errorField(e *ErrorVal, name string) (Value, error) {
	d := e.Err
	if d == nil {
		d = &diag.Error{}
	}
	switch name {
	case "code":
		return Str(d.Code), nil
	case "msg":
		return Str(d.Msg), nil
	case "hint":
		if d.Hint == "" {
			return Null{}, nil
		}
		return Str(d.Hint), nil
	case "stderr":
		if d.Stderr == nil {
			return Null{}, nil
		}
		return Str(*d.Stderr), nil
	case "status":
		if d.Status == nil {
			return Null{}, nil
		}
		return Int(*d.Status), nil
	}
	return nil, diag.New(diag.FieldMissing, "error has no field `%s`", name)
}

func pathIndex(v Value, i int64) (Value, error) {
	var n int
	switch x := v.(type) {
	case *List:
		if n = len(x.Items); i < int64(n) {
			return x.Items[i], nil
		}
	case *Table:
		if n = len(x.Rows); i < int64(n) {
			return x.Rows[i], nil
		}
	default:
		return nil, diag.New(diag.TypeError, "cannot index %s with [%d]", TypeName(v), i)
	}
	return nil, diag.New(diag.IndexRange, "index %d out of range for length %d", i, n)
}

func pathSlice(v Value, st PathStep) (Value, error) {
	switch v.(type) {
	case *List, *Table:
	default:
		return nil, diag.New(diag.TypeError, "cannot slice a %s", TypeName(v))
	}
	lo, hi := st.Lo, st.Hi
	if !st.HasLo {
		lo = 0
	}
	if !st.HasHi {
		hi = 1<<63 - 1
	}
	return Slice(v, lo, hi)
}

// Slice is the half-open slice [a, b) of a list (items), table (rows, as a
// table), str (Unicode scalars) or bytes (octets; lazily stored bytes are
// loaded, and a failed load keeps its io_error code). Bounds clamp to the
// value, and b < a is empty. Any other type is a type_error "cannot slice
// a <type>".
func Slice(v Value, a, b int64) (Value, error) {
	clamp := func(n int) (int, int) {
		lo, hi := max(a, 0), max(b, 0)
		lo, hi = min(lo, int64(n)), min(hi, int64(n))
		if hi < lo {
			hi = lo
		}
		return int(lo), int(hi)
	}
	switch x := v.(type) {
	case *List:
		lo, hi := clamp(len(x.Items))
		return &List{Items: x.Items[lo:hi:hi]}, nil
	case *Table:
		lo, hi := clamp(len(x.Rows))
		return &Table{Rows: x.Rows[lo:hi:hi]}, nil
	case Str:
		s := string(x)
		lo, hi := clamp(utf8.RuneCountInString(s))
		return Str(runeSlice(s, lo, hi)), nil
	case *Bytes:
		d, err := x.Content(context.Background())
		if err != nil {
			return nil, err
		}
		lo, hi := clamp(len(d))
		return &Bytes{Data: d[lo:hi:hi]}, nil
	}
	return nil, diag.New(diag.TypeError, "cannot slice a %s", TypeName(v))
}

// runeSlice returns the runes [lo, hi) of s without decoding it twice.
func runeSlice(s string, lo, hi int) string {
	start, end, n := len(s), len(s), 0
	for i := range s {
		if n == lo {
			start = i
		}
		if n == hi {
			end = i
			break
		}
		n++
	}
	if lo == hi {
		return ""
	}
	return s[start:end]
}
