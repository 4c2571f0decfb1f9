package eval

import (
	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

func (t *thread) matchExpr(sc *scope, n *syntax.Match, used bool) (value.Value, error) {
	subj, err := t.expr(sc, n.Subject)
	if err != nil {
		return nil, err
	}
	for _, arm := range n.Arms {
		for _, p := range arm.Patterns {
			as := newScope(sc)
			ok, err := t.matchPattern(as, p, subj)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if arm.Guard != nil {
				g, err := t.expr(as, arm.Guard)
				if err != nil {
					return nil, err
				}
				gb, err := cond(g)
				if err != nil {
					return nil, err
				}
				if !gb {
					continue
				}
			}
			return t.body(as, arm.Body, used)
		}
	}
	return value.Null{}, nil
}

// matchPattern tests v against p, declaring the pattern's bindings in sc.
func (t *thread) matchPattern(sc *scope, p syntax.Pattern, v value.Value) (bool, error) {
	switch n := p.(type) {
	case *syntax.WildcardPat:
		return true, nil
	case *syntax.BindPat:
		if n.Name != "_" {
			sc.declare(n.Name, v, false)
		}
		return true, nil
	case *syntax.TypePat:
		if value.TypeName(v) != n.Type {
			return false, nil
		}
		if n.Name != "_" {
			sc.declare(n.Name, v, false)
		}
		return true, nil
	case *syntax.LitPat:
		lit, err := t.expr(sc, n.Lit)
		if err != nil {
			return false, err
		}
		return equal(v, lit)
	case *syntax.RangePat:
		switch v.(type) {
		case value.Int, value.Float:
		default:
			return false, diag.New(diag.TypeError, "cannot compare %s with int", value.TypeName(v))
		}
		lo, err := compare(v, value.Int(n.Lo))
		if err != nil {
			return false, err
		}
		if lo < 0 {
			return false, nil
		}
		hi, err := compare(v, value.Int(n.Hi))
		if err != nil {
			return false, err
		}
		if n.Inclusive {
			return hi <= 0, nil
		}
		return hi < 0, nil
	case *syntax.RecordPat:
		r, ok := v.(*value.Record)
		if !ok {
			return false, nil
		}
		for _, f := range n.Fields {
			fv, has := r.Get(f.Name)
			if !has {
				return false, nil
			}
			if f.Pat == nil {
				sc.declare(f.Name, fv, false)
				continue
			}
			ok, err := t.matchPattern(sc, f.Pat, fv)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case *syntax.ListPat:
		var items []value.Value
		switch l := v.(type) {
		case *value.List:
			items = l.Items
		case *value.Table:
			for _, r := range l.Rows {
				items = append(items, r)
			}
		default:
			return false, nil
		}
		if n.HasRest {
			if len(items) < len(n.Elems) {
				return false, nil
			}
		} else if len(items) != len(n.Elems) {
			return false, nil
		}
		for i, ep := range n.Elems {
			ok, err := t.matchPattern(sc, ep, items[i])
			if err != nil || !ok {
				return false, err
			}
		}
		if n.HasRest && n.Rest != "" && n.Rest != "_" {
			rest := append([]value.Value{}, items[len(n.Elems):]...)
			sc.declare(n.Rest, &value.List{Items: rest}, false)
		}
		return true, nil
	}
	return false, diag.New(diag.Custom, "unsupported pattern %T", p)
}
