package syntax

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

// ASTVersion is the version of the AST JSON form (docs/ast.md). It changes
// when a node or field is renamed or removed; additions keep it.
const ASTVersion = 2

// The encoder, MarshalProgram, is in json_encode.go; the decoder below
// shares its naming rules (nodeTypeName, fieldKey).

// nodeTypeName is the JSON discriminator of a node type: the Go type name
// with a "Stmt" suffix dropped (ExprStmt keeps it, as "Expr" is taken by
// no node but would read as a category).
func nodeTypeName(t reflect.Type) string {
	n := t.Name()
	if n != "ExprStmt" {
		n = strings.TrimSuffix(n, "Stmt")
	}
	return n
}

// newNode returns a pointer to a zero node for a JSON discriminator.
func newNode(typ string) (reflect.Value, bool) {
	var n any
	switch typ {
	case "Let":
		n = &LetStmt{}
	case "Export":
		n = &ExportStmt{}
	case "FnDecl":
		n = &FnDecl{}
	case "Param":
		n = &Param{}
	case "TypeExpr":
		n = &TypeExpr{}
	case "Alias":
		n = &AliasStmt{}
	case "Use":
		n = &UseStmt{}
	case "Return":
		n = &ReturnStmt{}
	case "Break":
		n = &BreakStmt{}
	case "Continue":
		n = &ContinueStmt{}
	case "For":
		n = &ForStmt{}
	case "While":
		n = &WhileStmt{}
	case "Assign":
		n = &AssignStmt{}
	case "ExprStmt":
		n = &ExprStmt{}
	case "IntLit":
		n = &IntLit{}
	case "FloatLit":
		n = &FloatLit{}
	case "SizeLit":
		n = &SizeLit{}
	case "DurationLit":
		n = &DurationLit{}
	case "TimeLit":
		n = &TimeLit{}
	case "BoolLit":
		n = &BoolLit{}
	case "NullLit":
		n = &NullLit{}
	case "StrLit":
		n = &StrLit{}
	case "InterpStr":
		n = &InterpStr{}
	case "RegexLit":
		n = &RegexLit{}
	case "DatetimeLit":
		n = &DatetimeLit{}
	case "Ident":
		n = &Ident{}
	case "Binary":
		n = &Binary{}
	case "Unary":
		n = &Unary{}
	case "Field":
		n = &Field{}
	case "Index":
		n = &Index{}
	case "MethodCall":
		n = &MethodCall{}
	case "Call":
		n = &Call{}
	case "Arg":
		n = &Arg{}
	case "Lambda":
		n = &Lambda{}
	case "ListLit":
		n = &ListLit{}
	case "RecordLit":
		n = &RecordLit{}
	case "RecordField":
		n = &RecordField{}
	case "Block":
		n = &Block{}
	case "If":
		n = &If{}
	case "Match":
		n = &Match{}
	case "MatchArm":
		n = &MatchArm{}
	case "Try":
		n = &Try{}
	case "Catch":
		n = &Catch{}
	case "With":
		n = &With{}
	case "WithEntry":
		n = &WithEntry{}
	case "Spawn":
		n = &Spawn{}
	case "LangBlock":
		n = &LangBlock{}
	case "Command":
		n = &Command{}
	case "EnvAssign":
		n = &EnvAssign{}
	case "Redirect":
		n = &Redirect{}
	case "Word":
		n = &Word{}
	case "PathWord":
		n = &PathWord{}
	case "GlobWord":
		n = &GlobWord{}
	case "Flag":
		n = &Flag{}
	case "EndOfFlags":
		n = &EndOfFlags{}
	case "Dash":
		n = &Dash{}
	case "ExprPart":
		n = &ExprPart{}
	case "WildcardPat":
		n = &WildcardPat{}
	case "BindPat":
		n = &BindPat{}
	case "TypePat":
		n = &TypePat{}
	case "LitPat":
		n = &LitPat{}
	case "RangePat":
		n = &RangePat{}
	case "RecordPat":
		n = &RecordPat{}
	case "ListPat":
		n = &ListPat{}
	case "FieldPat":
		n = &FieldPat{}
	default:
		return reflect.Value{}, false
	}
	return reflect.ValueOf(n), true
}

// isPos reports whether t is the embedded span carrier.
func isPos(t reflect.Type) bool { return t == reflect.TypeFor[Pos]() }

// fieldKey is the JSON key of a struct field: snake_case, except that a
// field named Type would collide with the discriminator, so a type
// annotation is "annotation" and a type pattern's name is "type_name".
func fieldKey(structType reflect.Type, field string) string {
	if field == "Type" {
		if structType == reflect.TypeFor[TypePat]() {
			return "type_name"
		}
		return "annotation"
	}
	return snake(field)
}

// snake converts a Go field name to snake_case (HasRest → has_rest).
func snake(s string) string {
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

// UnmarshalProgram decodes the JSON written by [MarshalProgram]. Malformed
// input, unknown node types and nodes in the wrong place are errors.
func UnmarshalProgram(data []byte) (*Program, error) {
	// One generic decode keeps the work linear in the input; UseNumber
	// keeps 64-bit sizes and durations exact.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("unmarshal program: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("unmarshal program: trailing data")
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("unmarshal program: not an object")
	}
	if typ, _ := top["type"].(string); typ != "Program" {
		return nil, fmt.Errorf("unmarshal program: type is not \"Program\"")
	}
	if v, _ := top["ast_version"].(json.Number); v.String() != strconv.Itoa(ASTVersion) {
		return nil, fmt.Errorf("unmarshal program: unsupported ast_version (want %d)", ASTVersion)
	}
	p := &Program{}
	if err := decodeSpan(top["span"], &p.S); err != nil {
		return nil, err
	}
	if src, ok := top["src"]; ok {
		s, isStr := src.(string)
		if !isStr {
			return nil, fmt.Errorf("unmarshal program: src is not a string")
		}
		p.Src = s
	}
	if err := decodeInto(reflect.ValueOf(&p.Stmts).Elem(), top["stmts"], true); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeSpan(raw any, s *diag.Span) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("unmarshal program: node without span")
	}
	start, err1 := intOf(m["start"])
	end, err2 := intOf(m["end"])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("unmarshal program: bad span")
	}
	*s = diag.Span{Start: int(start), End: int(end)}
	return nil
}

func intOf(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// decodeInto stores the generic JSON value raw into the settable v
// according to v's type; present reports whether the key existed.
func decodeInto(v reflect.Value, raw any, present bool) error {
	if raw == nil {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice:
			v.SetZero()
			return nil
		}
		if !present {
			return fmt.Errorf("unmarshal program: missing %s", v.Type())
		}
		return fmt.Errorf("unmarshal program: null %s", v.Type())
	}
	bad := func() error {
		return fmt.Errorf("unmarshal program: %T where %s belongs", raw, v.Type())
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		n, err := decodeNode(raw)
		if err != nil {
			return err
		}
		if !n.Type().AssignableTo(v.Type()) {
			return fmt.Errorf("unmarshal program: %s cannot appear as %s", nodeTypeName(n.Elem().Type()), v.Type())
		}
		v.Set(n)
	case reflect.Slice:
		items, ok := raw.([]any)
		if !ok {
			return bad()
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			if err := decodeInto(s.Index(i), it, true); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Struct: // StrPart
		m, ok := raw.(map[string]any)
		if !ok {
			return bad()
		}
		return decodeFields(v, m)
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return bad()
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return bad()
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := intOf(raw)
		if err != nil || v.OverflowInt(n) {
			return bad()
		}
		v.SetInt(n)
	case reflect.Uint64:
		num, ok := raw.(json.Number)
		if !ok {
			return bad()
		}
		n, err := strconv.ParseUint(num.String(), 10, 64)
		if err != nil {
			return bad()
		}
		v.SetUint(n)
	case reflect.Float64:
		switch x := raw.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(x.String(), 64)
			if err != nil {
				return bad()
			}
			v.SetFloat(f)
		case string:
			switch x {
			case "inf":
				v.SetFloat(math.Inf(1))
			case "-inf":
				v.SetFloat(math.Inf(-1))
			case "nan":
				v.SetFloat(math.NaN())
			default:
				return fmt.Errorf("unmarshal program: bad float %q", x)
			}
		default:
			return bad()
		}
	default:
		return bad()
	}
	return nil
}

// decodeNode decodes one node object into a new node pointer.
func decodeNode(raw any) (reflect.Value, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return reflect.Value{}, fmt.Errorf("unmarshal program: node is not an object")
	}
	typ, _ := m["type"].(string)
	n, ok := newNode(typ)
	if !ok {
		return reflect.Value{}, fmt.Errorf("unmarshal program: unknown node type %q", typ)
	}
	return n, decodeFields(n.Elem(), m)
}

func decodeFields(v reflect.Value, fields map[string]any) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if isPos(f.Type) {
			var s diag.Span
			if err := decodeSpan(fields["span"], &s); err != nil {
				return err
			}
			v.Field(i).Set(reflect.ValueOf(Pos{s}))
			continue
		}
		raw, present := fields[fieldKey(t, f.Name)]
		if err := decodeInto(v.Field(i), raw, present); err != nil {
			return err
		}
	}
	return nil
}
