// Package value defines Shoal's immutable runtime values and the operations
// on them that need no evaluator: canonical rendering, equality, ordering,
// arithmetic, JSON and the other text codecs, word coercion, and value paths
// (a.b[0]). It imports only lang/diag and the standard library.
//
// Layout: a file per kind (record.go, table.go, …) and a file per
// cross-kind operation (render.go, equal.go, compare.go, arith.go, json.go).
package value

import (
	"context"
	"regexp"
	"strconv"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
)

// Value is any Shoal value. Values are immutable once built: operations
// return new values and never modify their operands.
type Value interface {
	Kind() Kind
}

// Kind is a value's type; its String is the type_name used by type patterns
// and error messages.
type Kind uint8

// The kinds, in the order of LANGUAGE.md §5.1.
const (
	KNull Kind = iota
	KBool
	KInt
	KFloat
	KStr
	KPath
	KGlob
	KRegex
	KSize
	KDuration
	KDatetime
	KTime
	KBytes
	KList
	KRecord
	KTable
	KRange
	KStream
	KError
	KOutcome
	KTask
	KClosure
	KCommand
	KSecret
)

var kindNames = [...]string{"null", "bool", "int", "float", "str", "path", "glob", "regex", "size",
	"duration", "datetime", "time", "bytes", "list", "record", "table", "range", "stream", "error",
	"outcome", "task", "closure", "command", "secret"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	// An out-of-range kind is a bug elsewhere; naming it beats a panic
	// inside an error message.
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// KindByName maps a type_name back to its kind.
func KindByName(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}

// Scalars. They are plain Go types so that building them costs nothing.
type (
	Null     struct{}
	Bool     bool
	Int      int64
	Float    float64
	Str      string
	Size     uint64 // bytes
	Duration int64  // nanoseconds
)

func (Null) Kind() Kind     { return KNull }
func (Bool) Kind() Kind     { return KBool }
func (Int) Kind() Kind      { return KInt }
func (Float) Kind() Kind    { return KFloat }
func (Str) Kind() Kind      { return KStr }
func (Size) Kind() Kind     { return KSize }
func (Duration) Kind() Kind { return KDuration }

// Path is an OS path; P may hold non-UTF-8 bytes.
type Path struct{ P string }

func (Path) Kind() Kind { return KPath }

// Glob is a pattern bound to the cwd it was created in.
type Glob struct {
	Pattern string
	Cwd     string
	Hidden  bool
}

func (Glob) Kind() Kind { return KGlob }

// Regex is a compiled regular expression with its source text.
type Regex struct {
	Src string
	Re  *regexp.Regexp
}

func (Regex) Kind() Kind { return KRegex }

// Datetime is an instant with a time zone (T's Location).
type Datetime struct{ T time.Time }

func (Datetime) Kind() Kind { return KDatetime }

// Time is a time of day.
type Time struct{ H, M, S int }

func (Time) Kind() Kind { return KTime }

// Bytes is a byte string. When Ref is set ("val:blake3:<hex>") the bytes are
// stored in a content store and Load fetches them on demand.
type Bytes struct {
	Data []byte
	Ref  string
	Len  int64 // true length when lazily stored
	Load func(ctx context.Context) ([]byte, error)
}

func (*Bytes) Kind() Kind { return KBytes }

// List is a heterogeneous list.
type List struct{ Items []Value }

func (*List) Kind() Kind { return KList }

// Range is an int interval [Start, End) or [Start, End].
type Range struct {
	Start, End int64
	Inclusive  bool
}

func (Range) Kind() Kind { return KRange }

// ErrorVal is a caught error as a value.
type ErrorVal struct{ Err *diag.Error }

func (*ErrorVal) Kind() Kind { return KError }

// Secret is an opaque named secret; its content is never rendered or
// encoded.
type Secret struct {
	Name    string
	Content []byte
}

func (*Secret) Kind() Kind { return KSecret }

// Closure is a function value: a named fn or a lambda. Impl belongs to the
// evaluator; other packages call it through a Caller.
type Closure struct {
	Name   string   // "" for lambdas
	Params []string // parameter names, for rendering
	Rest   string   // rest parameter name, "" when none
	Impl   any
}

func (*Closure) Kind() Kind { return KClosure }

// Command is an alias: a stored command call (rendered command(<head>)).
type Command struct {
	Head string
	Impl any
}

func (*Command) Kind() Kind { return KCommand }

// Caller calls a callable value (closure, command) with positional
// arguments. The evaluator implements it; methods that take callbacks
// (map, where, sort_by, …) receive one.
type Caller interface {
	Call(ctx context.Context, fn Value, args ...Value) (Value, error)
}
