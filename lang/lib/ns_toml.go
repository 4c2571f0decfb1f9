package lib

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/shoal-sh/shoal/lang/value"
)

// toml.parse and toml.stringify (§10), on go-toml/v2. go-toml decodes
// into Go maps, which lose the document's key order, so parse decodes
// values with toml.Unmarshal (all TOML validation and typing) and reads
// the key order from the unstable AST parser; stringify hands go-toml
// structs built at run time, whose field order is the record's key order.

func tomlParse(c *call) (value.Value, error) {
	s, err := textArg(c)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte(s), &doc); err != nil {
		return nil, argErr("invalid TOML: %v", err)
	}
	order, err := tomlKeyOrder([]byte(s))
	if err != nil {
		return nil, argErr("invalid TOML: %v", err)
	}
	return value.FromOrdered(orderTOML(doc, "", order))
}

// tomlPath joins table path components; "[]" stands for "any element of
// an array", so all [[x]] tables share one key order.
func tomlPath(parent, key string) string { return parent + "\x00" + key }

// tomlKeyOrder records, per table path, the keys in first-seen order.
func tomlKeyOrder(doc []byte) (map[string][]string, error) {
	order := map[string][]string{}
	seen := map[string]bool{}
	note := func(path, key string) string {
		p := tomlPath(path, key)
		if !seen[p] {
			seen[p] = true
			order[path] = append(order[path], key)
		}
		return p
	}
	var keyValue func(n *unstable.Node, path string)
	var value func(n *unstable.Node, path string)
	keyValue = func(n *unstable.Node, path string) {
		it := n.Key()
		for it.Next() {
			path = note(path, string(it.Node().Data))
		}
		value(n.Value(), path)
	}
	value = func(n *unstable.Node, path string) {
		switch n.Kind {
		case unstable.InlineTable:
			it := n.Children()
			for it.Next() {
				keyValue(it.Node(), path)
			}
		case unstable.Array:
			it := n.Children()
			for it.Next() {
				value(it.Node(), tomlPath(path, "[]"))
			}
		}
	}
	var p unstable.Parser
	p.Reset(doc)
	current := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			keyValue(e, current)
		case unstable.Table, unstable.ArrayTable:
			current = ""
			it := e.Key()
			for it.Next() {
				current = note(current, string(it.Node().Data))
			}
			if e.Kind == unstable.ArrayTable {
				current = tomlPath(current, "[]")
			}
		}
	}
	return order, p.Error()
}

// orderTOML converts decoded TOML to the ordered form of lang/value.
func orderTOML(x any, path string, order map[string][]string) any {
	switch t := x.(type) {
	case map[string]any:
		keys := order[path]
		out := make(value.Ordered, 0, len(t))
		done := map[string]bool{}
		for _, k := range keys {
			if v, ok := t[k]; ok && !done[k] {
				done[k] = true
				out = append(out, value.Pair{Key: k, Val: orderTOML(v, tomlPath(path, k), order)})
			}
		}
		// Keys the AST walk did not see (none expected) keep a stable order.
		var rest []string
		for k := range t {
			if !done[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range rest {
			out = append(out, value.Pair{Key: k, Val: orderTOML(t[k], tomlPath(path, k), order)})
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = orderTOML(v, tomlPath(path, "[]"), order)
		}
		return out
	case []map[string]any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = orderTOML(v, tomlPath(path, "[]"), order)
		}
		return out
	case toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		// Local dates and times have no instant; they stay text.
		return fmt.Sprint(t)
	}
	return x
}

// tomlStringify writes a record (or a table/list is refused: TOML's top
// level is a table).
func tomlStringify(c *call) (value.Value, error) {
	v, err := valueArg(c)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(*value.Record); !ok {
		return nil, argErr("toml.stringify needs a record at the top level, found %s", value.TypeName(v))
	}
	o, err := value.ToOrdered(v)
	if err != nil {
		return nil, err
	}
	g, err := tomlGo(o)
	if err != nil {
		return nil, err
	}
	out, err := toml.Marshal(g)
	if err != nil {
		return nil, argErr("toml.stringify: %v", err)
	}
	return value.Str(out), nil
}

// tomlGo converts ordered data to values go-toml marshals in order: an
// Ordered becomes a struct built with reflect.StructOf whose fields carry
// the keys as toml tags. TOML has no null, so null fields are left out
// and null array elements are an error.
func tomlGo(x any) (any, error) {
	switch t := x.(type) {
	case value.Ordered:
		fields := make([]reflect.StructField, 0, len(t))
		vals := make([]reflect.Value, 0, len(t))
		for _, p := range t {
			if p.Val == nil {
				continue
			}
			g, err := tomlGo(p.Val)
			if err != nil {
				return nil, err
			}
			key, err := tomlTagKey(p.Key)
			if err != nil {
				return nil, err
			}
			fields = append(fields, reflect.StructField{
				Name: fmt.Sprintf("F%d", len(fields)),
				Type: reflect.TypeOf(g),
				Tag:  reflect.StructTag(`toml:"` + key + `"`),
			})
			vals = append(vals, reflect.ValueOf(g))
		}
		sv := reflect.New(reflect.StructOf(fields)).Elem()
		for i, v := range vals {
			sv.Field(i).Set(v)
		}
		return sv.Interface(), nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			if e == nil {
				return nil, argErr("toml.stringify: TOML has no null (in a list)")
			}
			g, err := tomlGo(e)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	}
	return x, nil
}

// tomlTagKey checks that k can travel in a struct tag: go-toml reads
// the name up to the first comma, and the tag syntax cannot hold a quote
// or a backslash, so such keys (and the empty key, which would fall back
// to the Go field name) are refused rather than renamed.
func tomlTagKey(k string) (string, error) {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune("\",\\`", r) }) {
		return "", argErr("toml.stringify cannot write the key %q", k)
	}
	return k, nil
}
