package kernel

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoal-sh/shoal/kernel/proto"
	"github.com/shoal-sh/shoal/lang/value"
)

// An exec reply writes exactly the bytes encoding/json wrote for it, for every optional
// member present or absent and for values and renders that need escaping.
func TestExecJSONMatches(t *testing.T) {
	t.Parallel()
	values := []value.Value{
		value.Int(3), value.Str("<a & b>\n\"q\"\u2028\x01é"), value.Null{},
		&value.List{Items: []value.Value{value.Int(1), value.Str("two")}},
		value.NewRecord([]string{"k", "n"}, []value.Value{value.Str("v\tw"), value.Bool(true)}),
	}
	ms := int64(12)
	for _, v := range values {
		render := renderBlock(v)
		for _, r := range []*proto.ExecResult{
			{Ref: "out:1", URI: "shoal://out/1", Value: elide(v, "shoal://out/1", budgetFor(nil)), Render: &render, ElapsedMs: &ms},
			{Ref: "out:2", Value: EncodeWire(v)},
			{Task: "task:3", Events: "task.3", TimedOut: true},
			{},
		} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(buf.String(), "\n")
			if got := string(execJSON{r}.AppendJSON(nil)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		}
	}
}
