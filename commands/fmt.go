package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/format"
)

// fmtExt is the extension of the Shoal files `shoal fmt DIR` formats.
const fmtExt = ".shl"

func newFmtCmd(io *stdio) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "fmt [--check] [FILE|DIR...]",
		Short: "Format Shoal source in canonical layout (in place; stdin to stdout without files)",
		Long: `Format Shoal source canonically (docs/fmt.md): indentation from bracket
nesting, two spaces a level, no trailing blanks, at most one blank line in a
row, LF line endings and one final newline. Nothing inside a token, no
spacing between tokens and no comment text is ever changed.

With FILEs, each is rewritten in place when its layout changes; a DIR
stands for every *.shl file under it. Without arguments the source is read
from stdin and written to stdout. With --check nothing is written: the files
that would change are listed, and the exit status is 1 when any would.

A file that does not parse is left untouched and its diagnostic printed on
stderr; the exit status is then 2, and the other files are still formatted.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmtStdin(io, check)
			}
			return fmtFiles(io, args, check)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list the files that would change and exit 1 if any would")
	return cmd
}

// fmtStdin formats stdin to stdout (or, with check, only reports
// through the exit status whether it would change).
func fmtStdin(io *stdio, check bool) error {
	src, err := readAll(io.in)
	if err != nil {
		return &exitError{1, fmt.Sprintf("shoal fmt: reading stdin: %v", err)}
	}
	out, code := fmtSource(io, "", []byte(src))
	if code != 0 {
		return &exitError{code: code}
	}
	if check {
		if !bytes.Equal(out, []byte(src)) {
			return &exitError{code: 1}
		}
		return nil
	}
	if _, err := io.out.Write(out); err != nil {
		return &exitError{1, fmt.Sprintf("shoal fmt: writing stdout: %v", err)}
	}
	return nil
}

// fmtFiles formats every named file (and every *.shl file under a named
// directory), going on past failures. The status is 2 when a file did not
// parse, else 1 when another failure happened or, with check, when a file
// would change, else 0.
func fmtFiles(io *stdio, args []string, check bool) error {
	parseErr, failed, changed := false, false, false
	for _, path := range fmtTargets(io, args, &failed) {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(io.err, "shoal fmt: %v\n", err)
			failed = true
			continue
		}
		out, code := fmtSource(io, path, src)
		switch code {
		case 0:
		case 2:
			parseErr = true
			continue
		default:
			failed = true
			continue
		}
		if bytes.Equal(out, src) {
			continue
		}
		changed = true
		if check {
			fmt.Fprintln(io.out, path)
			continue
		}
		if err := writeAtomic(path, out); err != nil {
			fmt.Fprintf(io.err, "shoal fmt: %v\n", err)
			failed = true
		}
	}
	switch {
	case parseErr:
		return &exitError{code: 2}
	case failed || check && changed:
		return &exitError{code: 1}
	}
	return nil
}

// fmtTargets expands the arguments: a directory stands for the *.shl
// files under it (hidden directories skipped), in lexical order.
func fmtTargets(io *stdio, args []string, failed *bool) []string {
	var out []string
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil || !fi.IsDir() {
			out = append(out, arg) // reading it reports any error
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(io.err, "shoal fmt: %v\n", err)
				*failed = true
				return nil
			}
			if d.IsDir() {
				if p != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), fmtExt) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintf(io.err, "shoal fmt: %v\n", err)
			*failed = true
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out
}

// fmtSource formats src, printing any failure on stderr: a parse error as
// the shell prints one (the message prefixed with the file name, as for
// a module that does not parse), status 2; anything else status 1.
func fmtSource(io *stdio, path string, src []byte) ([]byte, int) {
	out, err := format.Source(src)
	if err == nil {
		return out, 0
	}
	if d := diag.As(err); d != nil && d.Code == diag.ParseError {
		c := *d
		if path != "" {
			c.Msg = path + ": " + c.Msg
		}
		msg := c.Show(string(src))
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		fmt.Fprint(io.err, msg)
		return nil, 2
	}
	name := path
	if name == "" {
		name = "<stdin>"
	}
	var ue *format.UnsafeError
	if errors.As(err, &ue) {
		fmt.Fprintf(io.err, "shoal fmt: %s: %v\n", name, ue)
	} else {
		fmt.Fprintf(io.err, "shoal fmt: %s: %v\n", name, err)
	}
	return nil, 1
}

// writeAtomic replaces the file at path (the file a symlink points to,
// when it is one) with data: a temporary file in the same directory gets
// the data and the original's permissions, is synced, and is renamed over
// the original, so a reader or a crash sees the old or the new file,
// never a torn one.
func writeAtomic(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".fmt-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		os.Remove(tmp.Name())
		done = true
		return err
	}
	done = true
	return nil
}
