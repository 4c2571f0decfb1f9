package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/eval"
	"github.com/shoal-sh/shoal/lang/value"
	"github.com/shoal-sh/shoal/leash"
)

// Undo (LANGUAGE.md §9 `undo`, AGENT-SURFACE §7 `undo` table). While an exec runs, the
// evaluator reports each reversible file change (eval.Change); the kernel records its inverse
// against the exec's journal row, with a fingerprint of what the change left behind. `undo`
// reverses the newest exec of the session (and principal) that has inverses not yet applied,
// `undo ID` a given one; every target is checked first, and if anything changed since it was
// recorded the whole undo is refused with stale_undo, before anything is touched.

type undoKey struct{}

// withUndo makes file changes under ctx record their inverse against journal row id.
func withUndo(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, undoKey{}, id)
}

// The inverse kinds of AGENT-SURFACE §7, which are also the undo table's op.
const (
	invTrashMove    = "TrashMove"    // move Trash back to Path (rm)
	invMoveBack     = "MoveBack"     // move To back to From (mv)
	invRestoreBytes = "RestoreBytes" // put Prior back into Path, or remove it when Created
)

// inverse is the stored JSON of one undo record.
type inverse struct {
	Kind        string     `json:"kind"`              // invTrashMove, invMoveBack or invRestoreBytes
	Path        string     `json:"path"`              // trash, write: the file to put back or restore
	Trash       string     `json:"trash,omitempty"`   // trash: where rm put it
	From        string     `json:"from,omitempty"`    // move: where it was
	To          string     `json:"to,omitempty"`      // move: where it went
	Prior       string     `json:"prior,omitempty"`   // write: blob hash of the old content
	Created     bool       `json:"created,omitempty"` // write: the file did not exist before
	Fingerprint *fileState `json:"fingerprint"`       // what the change left behind
}

// fileState identifies a file's state: its type, and the BLAKE3 of a regular file's
// content, a symlink's target, or a directory's modification time.
type fileState struct {
	Type    string `json:"type"`
	Size    int64  `json:"size,omitempty"`
	Hash    string `json:"hash,omitempty"`
	Target  string `json:"target,omitempty"`
	MtimeNs int64  `json:"mtime_ns,omitempty"`
}

// maxHashed bounds the files fingerprinted by content; larger ones by size and mtime.
const maxHashed = 64 << 20

func fileStateOf(p string) (*fileState, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		f := &fileState{Type: "file", Size: fi.Size()}
		if fi.Size() > maxHashed {
			f.MtimeNs = fi.ModTime().UnixNano()
			return f, nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sum := blake3.Sum256(data)
		f.Hash = fmt.Sprintf("%x", sum[:])
		return f, nil
	case m&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		return &fileState{Type: "symlink", Target: t}, nil
	case m.IsDir():
		return &fileState{Type: "dir", MtimeNs: fi.ModTime().UnixNano()}, nil
	}
	return &fileState{Type: "other", MtimeNs: fi.ModTime().UnixNano()}, nil
}

func (f *fileState) same(g *fileState) bool { return f != nil && g != nil && *f == *g }

// onChange is the evaluator's Host.OnChange: it records how to reverse c against the exec's
// row. A change it cannot fingerprint or store is not recorded (undo then has nothing to do
// for it), and a nested evaluation outside an exec records nothing.
func (ss *session) onChange(ctx context.Context, c eval.Change) {
	id, ok := ctx.Value(undoKey{}).(int64)
	if !ok || id == 0 {
		return
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(ss.ev.Cwd(), p)
	}
	var inv inverse
	var left string // what the change left behind, to fingerprint
	switch c.Op {
	case eval.ChangeTrash:
		inv.Kind, inv.Path, inv.Trash = invTrashMove, abs(c.Path), abs(c.To)
		left = inv.Trash
	case eval.ChangeMove:
		inv.Kind, inv.From, inv.To = invMoveBack, abs(c.Path), abs(c.To)
		inv.Path, left = inv.From, inv.To
	case eval.ChangeWrite:
		inv.Kind, inv.Path, inv.Created = invRestoreBytes, abs(c.Path), c.Created
		left = inv.Path
		if !c.Created {
			o, err := ss.srv.journal.PutOutput(ctx, "value", c.Prior)
			if err != nil {
				ss.srv.log.Warn("kernel: undo: store prior content", "path", inv.Path, "error", err)
				return
			}
			inv.Prior = o.Hash
		}
	default:
		return
	}
	fp, err := fileStateOf(left)
	if err != nil {
		return
	}
	inv.Fingerprint = fp
	data, _ := json.Marshal(inv)
	if err := ss.srv.journal.AddUndo(context.WithoutCancel(ctx), id, UndoRecord{Op: inv.Kind, Inverse: data}); err != nil {
		ss.srv.log.Warn("kernel: undo: record", "entry", id, "error", err)
	}
}

// undoPort runs `undo [ID]` and returns {entry, undone: [{op, path}]}.
func (ss *session) undoPort(ctx context.Context, args []string) (value.Value, error) {
	s := ss.srv
	if len(args) > 1 {
		return nil, diag.New(diag.ArgError, "undo: expected at most one journal entry id")
	}
	var id int64
	if len(args) == 1 {
		n, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
		if err != nil || n < 1 {
			return nil, diag.New(diag.ArgError, "undo: expected a journal entry id, found %q", args[0])
		}
		row, err := s.journal.Row(ctx, n)
		if errors.Is(err, ErrNotFound) || err == nil && row.Principal != ss.key.principal {
			return nil, diag.New(diag.NotFound, "undo: no journal entry %d of yours", n)
		}
		if err != nil {
			return nil, diag.New(diag.IOError, "undo: %v", err)
		}
		id = n
	} else {
		n, err := s.journal.LastUndoable(ctx, ss.key.name, ss.key.principal)
		if err != nil {
			return nil, diag.New(diag.IOError, "undo: %v", err)
		}
		if n == 0 {
			return nil, diag.New(diag.NotFound, "undo: nothing to undo in this session").
				WithHint("rm, mv, cp, save and > record how to reverse what they change; see `journal`")
		}
		id = n
	}
	recs, err := s.journal.Undos(ctx, id)
	if err != nil {
		return nil, diag.New(diag.IOError, "undo: %v", err)
	}
	var todo []UndoRecord
	var invs []inverse
	for i := len(recs) - 1; i >= 0; i-- { // newest first: later changes are reversed first
		if recs[i].UndoneNs != 0 {
			continue
		}
		var inv inverse
		if err := json.Unmarshal(recs[i].Inverse, &inv); err != nil {
			return nil, diag.New(diag.Custom, "undo: entry %d: unreadable undo record: %v", id, err)
		}
		todo, invs = append(todo, recs[i]), append(invs, inv)
	}
	if len(todo) == 0 {
		return nil, diag.New(diag.NotFound, "undo: entry %d has nothing left to undo", id)
	}
	for _, inv := range invs {
		if err := ss.undoAllowed(inv); err != nil {
			return nil, err
		}
		if err := checkUndo(inv); err != nil {
			return nil, err
		}
	}
	var done []int64
	var undone []value.Value
	for i, inv := range invs {
		if err := ss.applyUndo(ctx, inv); err != nil {
			if len(done) > 0 {
				_ = s.journal.MarkUndone(context.WithoutCancel(ctx), done, s.nowNs())
			}
			return nil, err
		}
		done = append(done, todo[i].ID)
		undone = append(undone, value.NewRecord([]string{"op", "path"}, []value.Value{value.Str(inv.Kind), value.Path{P: inv.Path}}))
	}
	if err := s.journal.MarkUndone(context.WithoutCancel(ctx), done, s.nowNs()); err != nil {
		return nil, diag.New(diag.IOError, "undo: %v", err)
	}
	return value.NewRecord([]string{"entry", "undone"}, []value.Value{value.Int(id), &value.List{Items: undone}}), nil
}

// undoAllowed asks the session's policy whether its principal may write what the undo
// changes (undo runs in the kernel, outside any sandbox).
func (ss *session) undoAllowed(inv inverse) error {
	lp := ss.srv.lp
	if lp == nil {
		return nil
	}
	paths := []string{inv.Path}
	switch inv.Kind {
	case invTrashMove:
		paths = append(paths, inv.Trash)
	case invMoveBack:
		paths = append(paths, inv.To)
	}
	for i, p := range paths {
		paths[i] = leash.NormalizePath(p, lp.home, ss.ev.Cwd())
	}
	if v := lp.verdict(ss.key.principal, []leash.Effect{{Kind: leash.KindFsWrite, Paths: paths}}); v != leash.Allow {
		return diag.New(diag.Permission, "undo: writing %s is %s for %s", strings.Join(paths, ", "), v, ss.key.principal)
	}
	return nil
}

// stale is the stale_undo error for path.
func stale(path, why string) error {
	return diag.New(diag.StaleUndo, "undo: %s changed since it was recorded (%s)", path, why).
		WithHint("nothing was undone; restore it by hand from the journal record")
}

// checkUndo verifies that an inverse still applies: what the change left is still there and
// unchanged, and where it goes back to is free.
func checkUndo(inv inverse) error {
	var left, back string
	switch inv.Kind {
	case invTrashMove:
		left, back = inv.Trash, inv.Path
	case invMoveBack:
		left, back = inv.To, inv.From
	case invRestoreBytes:
		left = inv.Path
	default:
		return diag.New(diag.Custom, "undo: unknown inverse kind %q", inv.Kind)
	}
	fp, err := fileStateOf(left)
	if err != nil {
		return stale(left, "it is gone")
	}
	if !fp.same(inv.Fingerprint) {
		return stale(left, "its content differs")
	}
	if back != "" {
		if _, err := os.Lstat(back); err == nil {
			return stale(back, "something is there now")
		}
		if _, err := os.Stat(filepath.Dir(back)); err != nil {
			return stale(filepath.Dir(back), "the directory is gone")
		}
	}
	return nil
}

// applyUndo performs one checked inverse.
func (ss *session) applyUndo(ctx context.Context, inv inverse) error {
	fail := func(err error) error { return diag.New(diag.IOError, "undo: %v", err) }
	switch inv.Kind {
	case invTrashMove:
		if err := os.Rename(inv.Trash, inv.Path); err != nil {
			return fail(err)
		}
	case invMoveBack:
		if err := os.Rename(inv.To, inv.From); err != nil {
			return fail(err)
		}
	case invRestoreBytes:
		if inv.Created {
			if err := os.Remove(inv.Path); err != nil {
				return fail(err)
			}
			return nil
		}
		prior, err := ss.srv.journal.Blob(ctx, inv.Prior)
		if err != nil {
			return stale(inv.Path, "its earlier content is no longer stored")
		}
		if err := replaceFile(inv.Path, prior); err != nil {
			return fail(err)
		}
	}
	return nil
}

// replaceFile writes data to path through a temporary file in the same directory and a
// rename, keeping path's mode, so a crash leaves either the old or the new content.
func replaceFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".shoal-undo-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
