package eval

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/value"
)

// pathFieldName reports the path members readable as fields (§8.1).
func pathFieldName(name string) bool {
	switch name {
	case "name", "stem", "ext", "parent", "read", "read_bytes", "lines", "exists", "is_dir",
		"is_file", "size", "modified":
		return true
	}
	return false
}

// pathMethodName reports the path methods the evaluator implements (the
// filesystem needs the session cwd).
func pathMethodName(name string) bool {
	return pathFieldName(name) || name == "join" || name == "abs"
}

func (t *thread) pathMethod(p value.Path, name string, args []value.Value) (value.Value, error) {
	if name != "join" && len(args) > 0 {
		return nil, diag.New(diag.ArgError, ".%s() takes no arguments", name)
	}
	switch name {
	case "name":
		return value.Str(filepath.Base(p.P)), nil
	case "stem":
		base := filepath.Base(p.P)
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			return value.Str(base[:i]), nil
		}
		return value.Str(base), nil
	case "ext":
		base := filepath.Base(p.P)
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			return value.Str(base[i+1:]), nil
		}
		return value.Null{}, nil
	case "parent":
		clean := strings.TrimSuffix(p.P, "/")
		i := strings.LastIndexByte(clean, '/')
		if i < 0 {
			return value.Null{}, nil
		}
		if i == 0 {
			return value.Path{P: "/"}, nil
		}
		return value.Path{P: clean[:i]}, nil
	case "join":
		if len(args) != 1 {
			return nil, diag.New(diag.ArgError, ".join() requires one segment")
		}
		switch s := args[0].(type) {
		case value.Str:
			return value.Path{P: filepath.Join(p.P, string(s))}, nil
		case value.Path:
			return value.Path{P: filepath.Join(p.P, s.P)}, nil
		}
		return nil, diag.New(diag.TypeError, "cannot join %s to a path", value.TypeName(args[0]))
	case "abs":
		return value.Path{P: t.e.abs(p.P)}, nil
	}
	full := t.e.abs(p.P)
	switch name {
	case "exists":
		_, err := os.Stat(full)
		return value.Bool(err == nil), nil
	case "is_dir":
		fi, err := os.Stat(full)
		return value.Bool(err == nil && fi.IsDir()), nil
	case "is_file":
		fi, err := os.Stat(full)
		return value.Bool(err == nil && fi.Mode().IsRegular()), nil
	case "size":
		fi, err := os.Stat(full)
		if err != nil {
			return nil, fileErr(p.P, err)
		}
		return value.Size(uint64(fi.Size())), nil
	case "modified":
		fi, err := os.Stat(full)
		if err != nil {
			return value.Null{}, nil
		}
		return value.Datetime{T: fi.ModTime().UTC()}, nil
	case "read_bytes":
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, fileErr(p.P, err)
		}
		return &value.Bytes{Data: data}, nil
	case "read", "lines":
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, fileErr(p.P, err)
		}
		if !utf8.Valid(data) {
			return nil, diag.New(diag.UTF8Error, "%s is not valid UTF-8", p.P)
		}
		if name == "read" {
			return value.Str(data), nil
		}
		s := strings.TrimSuffix(string(data), "\n")
		items := []value.Value{}
		if len(data) > 0 {
			for _, l := range strings.Split(s, "\n") {
				items = append(items, value.Str(strings.TrimSuffix(l, "\r")))
			}
		}
		return &value.List{Items: items}, nil
	}
	return nil, diag.New(diag.FieldMissing, "unknown method `.%s` on path", name)
}

func fileErr(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return diag.New(diag.NotFound, "%s: no such file or directory", p)
	}
	if errors.Is(err, fs.ErrPermission) {
		return diag.New(diag.Permission, "%s: permission denied", p)
	}
	return diag.New(diag.IOError, "%s: %v", p, unwrapPathErr(err))
}
