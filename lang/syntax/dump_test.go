package syntax

import (
	"fmt"
	"reflect"
	"strings"
)

// dump renders a node as a compact S-expression for table tests:
// (TypeName field:value …) with zero-valued fields and spans left out, so
// a want string states only what the case is about.
func dump(n any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(n), false)
	return b.String()
}

// dumpLoose is dump with empty slices treated as absent: the JSON form
// does not distinguish a nil list from an empty one.
func dumpLoose(n any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(n), true)
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, loose bool) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem(), loose)
	case reflect.Struct:
		t := v.Type()
		b.WriteString("(" + t.Name())
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fv := v.Field(i)
			if isPos(f.Type) || fv.IsZero() || (loose && fv.Kind() == reflect.Slice && fv.Len() == 0) {
				continue
			}
			b.WriteString(" " + f.Name + ":")
			dumpValue(b, fv, loose)
		}
		b.WriteString(")")
	case reflect.Slice:
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			dumpValue(b, v.Index(i), loose)
		}
		b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprint(b, v.Interface())
	}
}
