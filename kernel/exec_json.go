package kernel

import (
	"strconv"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// execJSON is an exec reply that writes its own JSON (see [jsonrpc.Appender]): every exec is
// answered with one, and encoding/json's reflection plus its second pass over the value were
// a good part of a quick exec's reply. The bytes are encoding/json's (TestExecJSONMatches).
type execJSON struct{ *proto.ExecResult }

func (r execJSON) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	str := func(key, v string) {
		if v != "" {
			sep()
			b = append(b, key...)
			b = jsonrpc.AppendString(b, v)
		}
	}
	str(`"ref":`, r.Ref)
	str(`"uri":`, r.URI)
	if len(r.Value) > 0 {
		sep()
		// The value is the kernel's own compact wire JSON (EncodeWire and elide).
		b = append(append(b, `"value":`...), r.Value...)
	}
	if r.Render != nil {
		sep()
		b = jsonrpc.AppendString(append(b, `"render":`...), *r.Render)
	}
	if r.ElapsedMs != nil {
		sep()
		b = strconv.AppendInt(append(b, `"elapsed_ms":`...), *r.ElapsedMs, 10)
	}
	str(`"task":`, r.Task)
	str(`"events":`, r.Events)
	if r.TimedOut {
		sep()
		b = append(b, `"timed_out":true`...)
	}
	return append(b, '}')
}
