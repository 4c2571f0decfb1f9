package eval

import (
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/syntax"
	"github.com/shoal-sh/shoal/lang/value"
)

// isFeedCommand reports whether x denotes the command side of .feed: a
// command, an interpreter block or an unbound bare name.
func isFeedCommand(sc *scope, x syntax.Expr) bool {
	switch n := x.(type) {
	case *syntax.Command, *syntax.LangBlock:
		return true
	case *syntax.Ident:
		return n.Name != "." && sc.lookup(n.Name) == nil
	}
	return false
}

// feed runs value.feed(cmd) / cmd.feed(value) (LANGUAGE.md §9.8).
func (t *thread) feed(sc *scope, n *syntax.MethodCall, stmtPos bool) (value.Value, error) {
	if len(n.Args) != 1 || n.Args[0].Name != "" {
		return nil, diag.New(diag.ArgError, ".feed() takes exactly one command")
	}
	data, cmd := n.Recv, n.Args[0].Value
	if !isFeedCommand(sc, cmd) {
		if !isFeedCommand(sc, n.Recv) {
			v, err := t.expr(sc, cmd)
			if err != nil {
				return nil, err
			}
			return nil, diag.New(diag.TypeError, ".feed() expects a command, found %s", value.TypeName(v))
		}
		data, cmd = cmd, n.Recv
	}
	v, err := t.expr(sc, data)
	if err != nil {
		return nil, err
	}
	if n.Safe {
		if _, isNull := v.(value.Null); isNull {
			return value.Null{}, nil
		}
	}
	stdin, err := t.feedBytes(v)
	if err != nil {
		return nil, err
	}
	switch c := cmd.(type) {
	case *syntax.LangBlock:
		return t.langBlock(sc, c, stdin, stmtPos)
	case *syntax.Ident:
		return t.external(c.Name, nil, &cmdOpts{stdin: stdin, hasIn: true, stmtPos: stmtPos, scope: sc})
	case *syntax.Command:
		opts := &cmdOpts{stdin: stdin, hasIn: true, stmtPos: stmtPos, scope: sc, span: c.Span()}
		for _, ea := range c.Env {
			vals, err := t.cmdPart(sc, ea.Value)
			if err != nil {
				return nil, err
			}
			s := ""
			if len(vals) == 1 && vals[0].val != nil {
				if s, err = argvString(vals[0].val); err != nil {
					return nil, err
				}
			}
			opts.env = append(opts.env, ea.Name+"="+s)
		}
		var args []cmdArg
		for _, p := range c.Args {
			vals, err := t.cmdPart(sc, p)
			if err != nil {
				return nil, err
			}
			args = append(args, vals...)
		}
		for _, r := range c.Redirs {
			vals, err := t.cmdPart(sc, r.Target)
			if err != nil {
				return nil, err
			}
			if len(vals) == 1 && vals[0].val != nil {
				p, err := argvString(vals[0].val)
				if err != nil {
					return nil, err
				}
				opts.redirs = append(opts.redirs, redir{op: r.Op, path: t.e.abs(p)})
			}
		}
		head := expandHome(c.HeadName(), t.e)
		return t.external(head, args, opts)
	}
	return nil, diag.New(diag.TypeError, ".feed() expects a command")
}

// feedBytes serializes a value for a child's stdin (§9.8 table).
func (t *thread) feedBytes(v value.Value) ([]byte, error) {
	switch x := v.(type) {
	case value.Str:
		return []byte(x), nil
	case *value.Bytes:
		return t.serialize(x)
	case value.Int, value.Float, value.Bool, value.Size, value.Duration, value.Datetime, value.Time:
		return []byte(value.RenderInline(v)), nil
	case *value.List:
		allStr := true
		for _, it := range x.Items {
			if _, ok := it.(value.Str); !ok {
				allStr = false
				break
			}
		}
		if allStr {
			var b strings.Builder
			for _, it := range x.Items {
				b.WriteString(string(it.(value.Str)))
				b.WriteByte('\n')
			}
			return []byte(b.String()), nil
		}
		s, err := toJSON(v)
		return []byte(s), err
	case *value.Record, *value.Table:
		s, err := toJSON(v)
		return []byte(s), err
	case *value.Outcome:
		if x.Out != nil {
			return t.feedBytes(x.Out)
		}
		return x.Stdout, nil
	case value.Path:
		return nil, diag.New(diag.TypeError, "cannot feed a path: a bare path is a name, not the file's contents").
			WithHint("feed its contents with path.read() or path.read_bytes()")
	case *value.Stream:
		return nil, diag.New(diag.TypeError, "feeding a stream to a process is not implemented yet").
			WithHint("collect it first: .collect().feed(cmd)")
	case *value.Secret, *value.Task, *value.Closure, *value.ErrorVal, value.Glob, value.Regex:
		return nil, diag.New(diag.FeedError, "cannot feed a %s to a process", value.TypeName(v))
	}
	return nil, diag.New(diag.TypeError, "cannot feed %s to a process", value.TypeName(v))
}

// langBlock runs an interpreter block (§9.7); stdin is .feed data or nil.
func (t *thread) langBlock(sc *scope, n *syntax.LangBlock, stdin []byte, stmtPos bool) (value.Value, error) {
	var argv []string
	switch n.Tool {
	case "sh", "bash", "zsh", "fish", "python", "python3":
		argv = []string{n.Tool, "-c", n.Text}
	case "node", "ruby", "perl", "lua", "Rscript", "osascript":
		argv = []string{n.Tool, "-e", n.Text}
	case "php":
		argv = []string{n.Tool, "-r", n.Text}
	case "deno":
		argv = []string{n.Tool, "eval", n.Text}
	case "jq":
		argv = []string{n.Tool, n.Text}
	default:
		if stdin != nil {
			return nil, diag.New(diag.TypeError, "%s reads its program from stdin and cannot also be fed data", n.Tool)
		}
		argv = []string{n.Tool}
		stdin = []byte(n.Text)
	}
	pinned, err := t.e.reefGate(n.Tool, &cmdOpts{})
	if err != nil {
		return nil, err
	}
	path, ok := pinned, pinned != ""
	if !ok {
		path, ok = t.e.lookPath(n.Tool)
	}
	if !ok {
		return nil, diag.New(diag.NotFound, "%s: command not found", n.Tool)
	}
	var env []string
	if pinned != "" {
		env = t.withReefPath(nil)
	}
	return t.runProc(&procSpec{path: path, argv: argv, env: env, stdin: stdin, hasIn: stdin != nil, stmtPos: stmtPos})
}
