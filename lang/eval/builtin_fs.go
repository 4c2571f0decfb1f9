package eval

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// bargs is a builtin's parsed arguments: flag names (long names and short
// letters) and positional values in order, globs expanded.
type bargs struct {
	flags map[string]value.Value
	pos   []value.Value
}

func parseBargs(args []cmdArg) *bargs {
	b := &bargs{flags: map[string]value.Value{}}
	for _, a := range args {
		switch {
		case a.flag && a.short:
			for _, c := range strings.TrimPrefix(a.raw, "-") {
				b.flags[string(c)] = value.Bool(true)
			}
		case a.flag:
			if a.val != nil {
				b.flags[a.name] = a.val
			} else {
				b.flags[a.name] = value.Bool(true)
			}
		case a.glob != nil:
			for _, m := range a.matches {
				b.pos = append(b.pos, value.Path{P: m})
			}
		case a.endOpts:
		default:
			b.pos = append(b.pos, a.val)
		}
	}
	return b
}

func (b *bargs) has(names ...string) bool {
	for _, n := range names {
		if _, ok := b.flags[n]; ok {
			return true
		}
	}
	return false
}

// okOutcome wraps a builtin's payload in a successful outcome whose stdout
// is what a redirect would write (§9.5).
func okOutcome(head string, out value.Value) *value.Outcome {
	zero := 0
	o := &value.Outcome{Status: &zero, OK: true, Cmd: head, Out: out}
	switch x := out.(type) {
	case value.Null:
		o.Stdout = []byte{}
	case value.Str:
		s := string(x)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		o.Stdout = []byte(s)
	case *value.Bytes:
		o.Stdout = x.Data
	default:
		o.Stdout = []byte(value.Display(out) + "\n")
	}
	return o
}

// redirectBuiltin writes a builtin outcome's stdout to > / >> targets.
func (t *thread) redirectBuiltin(v value.Value, opts *cmdOpts) (value.Value, error) {
	if opts == nil || len(opts.redirs) == 0 {
		return v, nil
	}
	o, isOutcome := v.(*value.Outcome)
	wrote := false
	for _, r := range opts.redirs {
		if r.op == "<" {
			continue
		}
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		var pr *prior
		if r.op == ">>" {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		} else {
			pr = t.before(r.path)
		}
		f, err := os.OpenFile(r.path, flag, 0o644)
		if err != nil {
			return nil, diag.New(diag.Custom, "redirect %s %s: %v", r.op, r.path, unwrapPathErr(err))
		}
		var data []byte
		if isOutcome {
			data = o.Stdout
		} else {
			data = []byte(value.Display(v) + "\n")
		}
		_, werr := f.Write(data)
		f.Close()
		if werr != nil {
			return nil, diag.New(diag.Custom, "redirect %s %s: %v", r.op, r.path, werr)
		}
		t.wrote(pr)
		wrote = true
	}
	if wrote {
		return value.Null{}, nil
	}
	return v, nil
}

func fsErr(verb string, err error) error {
	return diag.New(diag.Custom, "%s: %v", verb, err)
}

// pathOf converts a positional builtin argument to an absolute path.
func (t *thread) pathOf(head string, v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return t.e.abs(expandHome(string(x), t.e)), nil
	case value.Path:
		return t.e.abs(x.P), nil
	}
	return "", diag.New(diag.TypeError, "%s: expected a path, found %s", head, value.TypeName(v))
}

var rowShape = value.NewShape([]string{"path", "name", "type", "size", "modified"})

// fileRow is the ls/stat row of one path (Lstat: symlinks are reported
// as such).
func fileRow(p string, fi fs.FileInfo) *value.Record {
	typ := "other"
	switch m := fi.Mode(); {
	case m.IsRegular():
		typ = "file"
	case m.IsDir():
		typ = "dir"
	case m&fs.ModeSymlink != 0:
		typ = "symlink"
	}
	return &value.Record{Shape: rowShape, Vals: []value.Value{
		value.Path{P: p}, value.Str(filepath.Base(p)), value.Str(typ),
		value.Size(uint64(max(fi.Size(), 0))), value.Datetime{T: fi.ModTime().UTC()},
	}}
}

func (t *thread) builtinFS(head string, b *bargs) (value.Value, error) {
	paths := func(min int) ([]string, error) {
		if len(b.pos) < min {
			return nil, diag.New(diag.ArgError, "%s: expected at least %d path argument%s", head, min, plural(min))
		}
		out := make([]string, len(b.pos))
		for i, v := range b.pos {
			p, err := t.pathOf(head, v)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	pathList := func(ps []string) value.Value {
		items := make([]value.Value, len(ps))
		for i, p := range ps {
			items[i] = value.Path{P: p}
		}
		return &value.List{Items: items}
	}
	switch head {
	case "ls":
		targets, _ := paths(0)
		if len(targets) == 0 {
			targets = []string{t.e.Cwd()}
		}
		all := b.has("a", "all")
		var rows []*value.Record
		for _, p := range targets {
			fi, err := os.Lstat(p)
			if err != nil {
				return nil, fsErr("ls", unwrapPathErr(err))
			}
			if !fi.IsDir() {
				rows = append(rows, fileRow(p, fi))
				continue
			}
			ents, err := os.ReadDir(p)
			if err != nil {
				return nil, fsErr("ls", unwrapPathErr(err))
			}
			for _, de := range ents {
				if !all && strings.HasPrefix(de.Name(), ".") {
					continue
				}
				info, err := de.Info()
				if err != nil {
					continue // removed while listing
				}
				rows = append(rows, fileRow(filepath.Join(p, de.Name()), info))
			}
		}
		sort.SliceStable(rows, func(i, j int) bool {
			return rows[i].Vals[0].(value.Path).P < rows[j].Vals[0].(value.Path).P
		})
		return &value.Table{Rows: rows}, nil
	case "stat":
		ps, err := paths(1)
		if err != nil {
			return nil, err
		}
		var rows []*value.Record
		for _, p := range ps {
			fi, err := os.Lstat(p)
			if err != nil {
				return nil, fsErr("stat", unwrapPathErr(err))
			}
			rows = append(rows, fileRow(p, fi))
		}
		if len(rows) == 1 {
			return rows[0], nil
		}
		return &value.Table{Rows: rows}, nil
	case "cat":
		ps, err := paths(1)
		if err != nil {
			return nil, err
		}
		var data []byte
		for _, p := range ps {
			d, err := os.ReadFile(p)
			if err != nil {
				return nil, fsErr("cat", fmt.Errorf("%s: %w", filepath.Base(p), unwrapPathErr(err)))
			}
			data = append(data, d...)
		}
		if data == nil {
			data = []byte{}
		}
		return &value.Bytes{Data: data}, nil
	case "head":
		if len(b.pos) < 1 || len(b.pos) > 2 {
			return nil, diag.New(diag.ArgError, "head: expected a path and an optional line count")
		}
		p, err := t.pathOf(head, b.pos[0])
		if err != nil {
			return nil, err
		}
		n := int64(10)
		if len(b.pos) == 2 {
			switch x := b.pos[1].(type) {
			case value.Int:
				n = int64(x)
			case value.Str:
				c, err := coerceWord(string(x), "int")
				if err != nil {
					return nil, err
				}
				n = int64(c.(value.Int))
			default:
				return nil, diag.New(diag.TypeError, "head: expected an int line count, found %s", value.TypeName(x))
			}
			if n < 0 {
				return nil, diag.New(diag.Custom, "head: line count cannot be negative")
			}
		}
		d, err := os.ReadFile(p)
		if err != nil {
			return nil, fsErr("head", unwrapPathErr(err))
		}
		lines := strings.Split(strings.TrimSuffix(string(d), "\n"), "\n")
		if len(d) == 0 {
			lines = nil
		}
		var items []value.Value
		for i, l := range lines {
			if int64(i) >= n {
				break
			}
			items = append(items, value.Str(strings.TrimSuffix(l, "\r")))
		}
		if items == nil {
			items = []value.Value{}
		}
		return &value.List{Items: items}, nil
	case "mkdir":
		ps, err := paths(1)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if b.has("p", "parents") {
				err = os.MkdirAll(p, 0o755)
			} else {
				err = os.Mkdir(p, 0o755)
			}
			if err != nil {
				return nil, fsErr("mkdir", unwrapPathErr(err))
			}
		}
		return pathList(ps), nil
	case "touch":
		ps, err := paths(1)
		if err != nil {
			return nil, err
		}
		now := t.e.now()
		for _, p := range ps {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				return nil, fsErr("touch", unwrapPathErr(err))
			}
			f.Close()
			_ = os.Chtimes(p, now, now) // best effort, like touch(1) on odd filesystems
		}
		return pathList(ps), nil
	case "cp", "mv":
		ps, err := paths(2)
		if err != nil {
			return nil, diag.New(diag.ArgError, "%s: expected a source and a destination", head)
		}
		srcs, dst := ps[:len(ps)-1], ps[len(ps)-1]
		dfi, derr := os.Stat(dst)
		dstDir := derr == nil && dfi.IsDir()
		if len(srcs) > 1 && !dstDir {
			return nil, diag.New(diag.ArgError, "%s: several sources need a directory destination", head)
		}
		var out []string
		for _, s := range srcs {
			target := dst
			if dstDir {
				target = filepath.Join(dst, filepath.Base(s))
			}
			sfi, err := os.Lstat(s)
			if err != nil {
				return nil, fsErr(head, unwrapPathErr(err))
			}
			if head == "mv" {
				_, lerr := os.Lstat(target)
				if err := os.Rename(s, target); err != nil {
					return nil, fsErr("mv", unwrapPathErr(err))
				}
				if os.IsNotExist(lerr) {
					// A move over an existing file is not recorded: what it replaced is gone.
					t.changed(Change{Op: ChangeMove, Path: s, To: target})
				}
			} else {
				if sfi.IsDir() && !b.has("r", "recursive", "R") {
					return nil, diag.New(diag.ArgError, "cp: %s is a directory (use -r)", filepath.Base(s))
				}
				var pr *prior
				if !sfi.IsDir() {
					pr = t.before(target)
				}
				if err := copyTree(s, target); err != nil {
					return nil, fsErr("cp", unwrapPathErr(err))
				}
				t.wrote(pr)
			}
			out = append(out, target)
		}
		return pathList(out), nil
	case "rm":
		if len(b.pos) == 0 {
			return nil, diag.New(diag.NoMatches, "rm: no paths to remove")
		}
		ps, err := paths(1)
		if err != nil {
			return nil, err
		}
		if b.has("permanent") {
			for _, p := range ps {
				fi, err := os.Lstat(p)
				if err != nil {
					return nil, fsErr("rm", unwrapPathErr(err))
				}
				if fi.IsDir() {
					if !b.has("r", "recursive", "R") {
						return nil, diag.New(diag.Custom, "rm: %s is a directory (use -r)", filepath.Base(p))
					}
					err = os.RemoveAll(p)
				} else {
					err = os.Remove(p)
				}
				if err != nil {
					return nil, fsErr("rm", unwrapPathErr(err))
				}
			}
			return pathList(ps), nil
		}
		var rows []value.Value
		for _, p := range ps {
			if _, err := os.Lstat(p); err != nil {
				return nil, fsErr("rm", unwrapPathErr(err))
			}
			tp, err := t.e.sess.trash(p)
			if err != nil {
				return nil, fsErr("rm", err)
			}
			t.changed(Change{Op: ChangeTrash, Path: p, To: tp})
			rows = append(rows, value.NewRecord([]string{"path", "trash"}, []value.Value{value.Path{P: p}, value.Path{P: tp}}))
		}
		return &value.List{Items: rows}, nil
	case "ln":
		if len(b.pos) != 2 {
			return nil, diag.New(diag.ArgError, "ln: expected a target and a link name")
		}
		target, err := t.pathOf(head, b.pos[0])
		if err != nil {
			return nil, err
		}
		link, err := t.pathOf(head, b.pos[1])
		if err != nil {
			return nil, err
		}
		sym := b.has("s", "symbolic")
		if sym {
			err = os.Symlink(target, link)
		} else {
			err = os.Link(target, link)
		}
		if err != nil {
			return nil, fsErr("ln", unwrapPathErr(err))
		}
		return value.NewRecord([]string{"target", "link", "symbolic"},
			[]value.Value{value.Path{P: target}, value.Path{P: link}, value.Bool(sym)}), nil
	}
	return nil, diag.New(diag.Custom, "unknown builtin %s", head)
}

// copyTree copies a file or directory tree.
func copyTree(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		if err := os.MkdirAll(dst, fi.Mode().Perm()|0o700); err != nil {
			return err
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, de := range ents {
			if err := copyTree(filepath.Join(src, de.Name()), filepath.Join(dst, de.Name())); err != nil {
				return err
			}
		}
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		l, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(l, dst)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
