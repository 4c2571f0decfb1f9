package lib

import (
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// isStreamOwn reports whether a stream answers name without collecting.
func isStreamOwn(name string) bool {
	if _, ok := streamMethods[name]; ok {
		return true
	}
	_, ok := everyValue[name]
	return ok
}

// receiverFits guards the catalogue's type assertions: each kind's
// methods assume the Go type lang/value defines for it.
func receiverFits(v value.Value) bool {
	switch v.Kind() {
	case value.KStr:
		_, ok := v.(value.Str)
		return ok
	case value.KRecord:
		_, ok := v.(*value.Record)
		return ok
	case value.KBytes:
		_, ok := v.(*value.Bytes)
		return ok
	case value.KStream:
		_, ok := v.(*value.Stream)
		return ok
	case value.KList, value.KTable, value.KRange:
		_, ok := asColl(v)
		return ok
	}
	return true
}

// rejectMethod is the type_error for a method that exists, but not on
// recv's kind, with a hint at the conversion that makes it available.
func rejectMethod(recv value.Value, name string) error {
	t := value.TypeName(recv)
	e := diag.New(diag.TypeError, "cannot call `.%s()` on %s", name, t)
	switch recv.Kind() {
	case value.KRecord:
		e.Msg += ": a record is not a collection"
		e.Hint = "use .values() or .items() to get a list"
	case value.KBytes:
		e.Msg += ": bytes are not a sequence"
		e.Hint = "decode them first with .str() or .display()"
	case value.KList, value.KTable, value.KRange, value.KStr:
		if _, ok := streamMethods[name]; ok {
			e.Hint = "`." + name + "` is a stream method; call .stream() first"
		}
	}
	return e
}
