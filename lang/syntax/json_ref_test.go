package syntax

// This file keeps the original reflection-walking MarshalProgram, copied
// verbatim (functions renamed ref*) before json.go was rewritten for speed.
// It is the oracle of TestMarshalMatchesReference and FuzzMarshalProgram:
// the fast encoder must produce byte-for-byte the same JSON. It carries
// its own copies of the naming helpers so later edits to json.go cannot
// silently change the oracle too.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/shoal-sh/shoal/lang/diag"
)

func refMarshalProgram(p *Program) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("marshal program: nil program")
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"Program","ast_version":`)
	b.WriteString(strconv.Itoa(ASTVersion))
	b.WriteString(`,"span":`)
	refWriteSpan(&b, p.S)
	b.WriteString(`,"src":`)
	refWriteJSONString(&b, p.Src)
	b.WriteString(`,"stmts":[`)
	for i, s := range p.Stmts {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := refMarshalValue(&b, reflect.ValueOf(s)); err != nil {
			return nil, err
		}
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

func refNodeTypeName(t reflect.Type) string {
	n := t.Name()
	if n != "ExprStmt" {
		n = strings.TrimSuffix(n, "Stmt")
	}
	return n
}

func refIsPos(t reflect.Type) bool { return t == reflect.TypeFor[Pos]() }

func refFieldKey(structType reflect.Type, field string) string {
	if field == "Type" {
		if structType == reflect.TypeFor[TypePat]() {
			return "type_name"
		}
		return "annotation"
	}
	return refSnake(field)
}

func refSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func refWriteSpan(b *bytes.Buffer, s diag.Span) {
	fmt.Fprintf(b, `{"start":%d,"end":%d}`, s.Start, s.End)
}

func refWriteJSONString(b *bytes.Buffer, s string) {
	data, _ := json.Marshal(s) // a string always marshals
	b.Write(data)
}

func refMarshalValue(b *bytes.Buffer, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return refMarshalValue(b, v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return refMarshalStruct(b, v.Elem(), true)
	case reflect.Struct:
		return refMarshalStruct(b, v, false)
	case reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := refMarshalValue(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.String:
		refWriteJSONString(b, v.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float64:
		f := v.Float()
		switch {
		case math.IsInf(f, 1):
			b.WriteString(`"inf"`)
		case math.IsInf(f, -1):
			b.WriteString(`"-inf"`)
		case math.IsNaN(f):
			b.WriteString(`"nan"`)
		default:
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	default:
		return fmt.Errorf("marshal program: unsupported %s", v.Type())
	}
	return nil
}

func refMarshalStruct(b *bytes.Buffer, v reflect.Value, node bool) error {
	t := v.Type()
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	if node {
		sep()
		b.WriteString(`"type":`)
		refWriteJSONString(b, refNodeTypeName(t))
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		sep()
		if refIsPos(f.Type) {
			b.WriteString(`"span":`)
			refWriteSpan(b, v.Field(i).Interface().(Pos).S)
			continue
		}
		refWriteJSONString(b, refFieldKey(t, f.Name))
		b.WriteByte(':')
		if err := refMarshalValue(b, v.Field(i)); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}
