package syntax

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The AST encoder runs on every exec, so it does the reflective work once
// per Go type: a typePlan says how to write any value of that type (field
// keys pre-quoted, the span field marked, children's plans linked), and
// encoding is then indexed field access and appends into one buffer. New
// node types need no registration: their plan is derived on first use.

// MarshalProgram encodes p as the documented AST JSON: every node is an
// object with a "type" discriminator, its fields in snake_case and a
// "span" {"start","end"}; the program adds "ast_version" and "src".
func MarshalProgram(p *Program) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("marshal program: nil program")
	}
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	// The JSON runs 15–30× the source (the corpus median is ~22×): sizing
	// for that up front spares big programs repeated regrowth.
	if want := 32*len(p.Src) + 512; cap(b) < want {
		b = make([]byte, 0, want)
	}
	b = append(b, `{"type":"Program","ast_version":`...)
	b = strconv.AppendInt(b, ASTVersion, 10)
	b = append(b, `,"span":`...)
	b = appendSpan(b, int64(p.S.Start), int64(p.S.End))
	b = append(b, `,"src":`...)
	b = appendJSONString(b, p.Src)
	b = append(b, `,"stmts":[`...)
	var err error
	for i, s := range p.Stmts {
		if i > 0 {
			b = append(b, ',')
		}
		if s == nil {
			b = append(b, "null"...)
			continue
		}
		if b, err = appendValue(b, reflect.ValueOf(s), planFor(reflect.TypeOf(s))); err != nil {
			break
		}
	}
	if err != nil {
		bufPool.Put(bp)
		return nil, err
	}
	b = append(b, "]}"...)
	if cap(b) > maxPooledBuf {
		// Too big to pool, so the caller may have it; it cannot share an
		// array with *bp (pooled buffers are smaller), which goes back.
		bufPool.Put(bp)
		return b, nil
	}
	// The pooled buffer is reused by the next call, so the caller gets a copy.
	out := append(make([]byte, 0, len(b)), b...)
	*bp = b[:0]
	bufPool.Put(bp)
	return out, nil
}

// maxPooledBuf bounds the buffers kept in bufPool (a ~8 KB program).
const maxPooledBuf = 256 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// encKind is how a value of a planned type is written.
type encKind uint8

const (
	encUnsupported encKind = iota // an error when a value is reached
	encInterface                  // null, or the dynamic value's plan
	encNode                       // pointer to a node struct: null or {"type":…,fields}
	encStruct                     // struct by value (StrPart): {fields}, no "type"
	encSlice                      // [elems]; a nil slice is []
	encString
	encBool
	encInt
	encUint
	encFloat
)

// typePlan is the cached encoding of one Go type. Plans are immutable once
// published in plans.
type typePlan struct {
	kind encKind
	elem *typePlan // encSlice: the element's plan; encNode: the struct's plan (nil if not a struct)
	// head opens a node object: {"type":"Name" (encStruct plans only).
	head   []byte
	fields []fieldPlan // encStruct plans only
}

// fieldPlan is one struct field in declaration order.
type fieldPlan struct {
	index int
	key   []byte // `,"key":` — the comma is dropped for a leading field
	span  bool   // a Pos: written as {"start","end"}
	plan  *typePlan
}

var (
	plans  sync.Map   // reflect.Type → *typePlan, complete plans only
	planMu sync.Mutex // serialises building so partial plans stay private
)

// planFor returns the plan of t, building it (and any types it reaches
// through pointers and slices) on first use.
func planFor(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	// Plans refer to each other (TypeExpr.Args is []*TypeExpr), so a plan
	// is registered in building before its children are planned and only
	// published once the whole group is complete.
	building := map[reflect.Type]*typePlan{}
	p := buildPlan(t, building)
	for bt, bp := range building {
		plans.Store(bt, bp)
	}
	return p
}

func buildPlan(t reflect.Type, building map[reflect.Type]*typePlan) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &typePlan{}
	building[t] = p
	switch t.Kind() {
	case reflect.Interface:
		p.kind = encInterface // the dynamic type is planned when met
	case reflect.Pointer:
		p.kind = encNode
		if t.Elem().Kind() == reflect.Struct {
			p.elem = buildPlan(t.Elem(), building)
		}
	case reflect.Struct:
		p.kind = encStruct
		p.head = appendJSONString([]byte(`{"type":`), nodeTypeName(t))
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fp := fieldPlan{index: i, span: isPos(f.Type)}
			if fp.span {
				fp.key = []byte(`,"span":`)
			} else {
				fp.key = append(appendJSONString([]byte{','}, fieldKey(t, f.Name)), ':')
				fp.plan = buildPlan(f.Type, building)
			}
			p.fields = append(p.fields, fp)
		}
	case reflect.Slice:
		p.kind = encSlice
		p.elem = buildPlan(t.Elem(), building)
	case reflect.String:
		p.kind = encString
	case reflect.Bool:
		p.kind = encBool
	case reflect.Int, reflect.Int64:
		p.kind = encInt
	case reflect.Uint64:
		p.kind = encUint
	case reflect.Float64:
		p.kind = encFloat
	default:
		p.kind = encUnsupported
	}
	return p
}

// appendValue writes v, whose type's plan is p.
func appendValue(b []byte, v reflect.Value, p *typePlan) ([]byte, error) {
	switch p.kind {
	case encInterface:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		e := v.Elem()
		return appendValue(b, e, planFor(e.Type()))
	case encNode:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		if p.elem == nil {
			return b, fmt.Errorf("marshal program: unsupported %s", v.Type())
		}
		return appendStruct(b, v.Elem(), p.elem, true)
	case encStruct:
		return appendStruct(b, v, p, false)
	case encSlice:
		b = append(b, '[')
		var err error
		for i, n := 0, v.Len(); i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, v.Index(i), p.elem); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case encString:
		return appendJSONString(b, v.String()), nil
	case encBool:
		return strconv.AppendBool(b, v.Bool()), nil
	case encInt:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case encUint:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case encFloat:
		// JSON has no infinities; 1e999 overflows to +Inf at parse time.
		f := v.Float()
		switch {
		case math.IsInf(f, 1):
			return append(b, `"inf"`...), nil
		case math.IsInf(f, -1):
			return append(b, `"-inf"`...), nil
		case math.IsNaN(f):
			return append(b, `"nan"`...), nil
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64), nil
	}
	return b, fmt.Errorf("marshal program: unsupported %s", v.Type())
}

// appendStruct writes the struct v as an object; node adds the "type"
// discriminator first.
func appendStruct(b []byte, v reflect.Value, p *typePlan, node bool) ([]byte, error) {
	lead := !node // the first field must not get a comma
	if node {
		b = append(b, p.head...)
	} else {
		b = append(b, '{')
	}
	var err error
	for _, f := range p.fields {
		key := f.key
		if lead {
			key, lead = key[1:], false
		}
		b = append(b, key...)
		fv := v.Field(f.index)
		if f.span {
			s := fv.Field(0) // Pos.S, a diag.Span{Start, End}
			b = appendSpan(b, s.Field(0).Int(), s.Field(1).Int())
			continue
		}
		if b, err = appendValue(b, fv, f.plan); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func appendSpan(b []byte, start, end int64) []byte {
	b = append(b, `{"start":`...)
	b = strconv.AppendInt(b, start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, end, 10)
	return append(b, '}')
}

// htmlSafe marks the ASCII bytes encoding/json writes unescaped when it
// escapes HTML (as json.Marshal does): printable, not " \ < > &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted exactly as json.Marshal(s) would: HTML
// characters and U+2028/U+2029 as \u escapes, invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other control bytes and < > &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
