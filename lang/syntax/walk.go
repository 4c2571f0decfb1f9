package syntax

// Walk visits n and then, when fn returns true, each of its children in
// source order, depth first. Nil children are skipped. The effect analysis
// relies on it reaching every node, commands inside strings and
// interpolations included.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || isNilNode(n) || !fn(n) {
		return
	}
	for _, c := range children(n) {
		Walk(c, fn)
	}
}

// isNilNode reports a typed nil pointer stored in a Node interface.
func isNilNode(n Node) bool {
	switch x := n.(type) {
	case *Block:
		return x == nil
	case *TypeExpr:
		return x == nil
	case *Param:
		return x == nil
	case *Command:
		return x == nil
	case *Program:
		return x == nil
	}
	return false
}

// children lists a node's direct children.
func children(n Node) []Node {
	var out []Node
	add := func(ns ...Node) {
		for _, c := range ns {
			if c != nil && !isNilNode(c) {
				out = append(out, c)
			}
		}
	}
	addExpr := func(x Expr) {
		if x != nil {
			add(x)
		}
	}
	addParams := func(ps []*Param) {
		for _, p := range ps {
			add(p)
		}
	}
	addArgs := func(as []*Arg) {
		for _, a := range as {
			add(a)
		}
	}
	switch x := n.(type) {
	case *Program:
		for _, s := range x.Stmts {
			add(s)
		}
	case *LetStmt:
		if x.Type != nil {
			add(x.Type)
		}
		addExpr(x.Value)
	case *ExportStmt:
		if x.Decl != nil {
			add(x.Decl)
		}
	case *FnDecl:
		addParams(x.Params)
		if x.Rest != nil {
			add(x.Rest)
		}
		if x.Ret != nil {
			add(x.Ret)
		}
		add(x.Body)
	case *Param:
		if x.Type != nil {
			add(x.Type)
		}
		addExpr(x.Default)
	case *TypeExpr:
		for _, a := range x.Args {
			add(a)
		}
	case *AliasStmt:
		add(x.Cmd)
	case *ReturnStmt:
		addExpr(x.Value)
	case *ForStmt:
		addExpr(x.Iter)
		add(x.Body)
	case *WhileStmt:
		addExpr(x.Cond)
		add(x.Body)
	case *AssignStmt:
		addExpr(x.Value)
	case *ExprStmt:
		addExpr(x.X)
	case *InterpStr:
		for _, p := range x.Parts {
			addExpr(p.Expr)
		}
	case *Binary:
		addExpr(x.L)
		addExpr(x.R)
	case *Unary:
		addExpr(x.X)
	case *Field:
		addExpr(x.X)
	case *Index:
		addExpr(x.X)
		addExpr(x.Index)
	case *MethodCall:
		addExpr(x.Recv)
		addArgs(x.Args)
	case *Call:
		addExpr(x.Fn)
		addArgs(x.Args)
	case *Arg:
		addExpr(x.Value)
	case *Lambda:
		addParams(x.Params)
		addExpr(x.Body)
	case *ListLit:
		for _, it := range x.Items {
			addExpr(it)
		}
	case *RecordLit:
		for _, f := range x.Fields {
			add(f)
		}
	case *RecordField:
		addExpr(x.Value)
	case *Block:
		for _, s := range x.Stmts {
			add(s)
		}
	case *If:
		addExpr(x.Cond)
		add(x.Then)
		addExpr(x.Else)
	case *Match:
		addExpr(x.Subject)
		for _, a := range x.Arms {
			add(a)
		}
	case *MatchArm:
		for _, p := range x.Patterns {
			add(p)
		}
		addExpr(x.Guard)
		addExpr(x.Body)
	case *Try:
		add(x.Body, x.Handler)
	case *Catch:
		addExpr(x.X)
		addExpr(x.Handler)
	case *With:
		for _, e := range x.Entries {
			add(e)
		}
		add(x.Body)
	case *WithEntry:
		addExpr(x.Value)
	case *Spawn:
		add(x.Body)
	case *Command:
		for _, e := range x.Env {
			add(e)
		}
		add(x.Head)
		for _, a := range x.Args {
			add(a)
		}
		for _, r := range x.Redirs {
			add(r)
		}
		add(x.Block)
	case *EnvAssign:
		add(x.Value)
	case *Redirect:
		add(x.Target)
	case *Flag:
		add(x.Value)
	case *ExprPart:
		addExpr(x.X)
	case *LitPat:
		addExpr(x.Lit)
	case *RecordPat:
		for _, f := range x.Fields {
			add(f)
		}
	case *FieldPat:
		if x.Pat != nil {
			add(x.Pat)
		}
	case *ListPat:
		for _, e := range x.Elems {
			add(e)
		}
	}
	return out
}

// DeclaredNames returns the names the program declares at any depth with
// let, var, fn or alias, in source order without duplicates (for
// completion).
func DeclaredNames(p *Program) []string {
	var names []string
	seen := map[string]bool{}
	addName := func(n string) {
		if n != "" && n != "_" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	Walk(p, func(n Node) bool {
		switch x := n.(type) {
		case *LetStmt:
			addName(x.Name)
		case *FnDecl:
			addName(x.Name)
		case *AliasStmt:
			addName(x.Name)
		}
		return true
	})
	return names
}
