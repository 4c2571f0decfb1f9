package eval

import (
	"io"
	"os"
)

// Change is one reversible file change the evaluator made, reported to [Host.OnChange] after
// it happened so a journaling host can record how to undo it.
type Change struct {
	Op   string // ChangeTrash, ChangeMove or ChangeWrite
	Path string // trash, move: where the file was; write: the file written
	To   string // trash: where it is in the trash; move: where it is now
	// Prior is what a written file held before (write); Created says it did not exist.
	Prior   []byte
	Created bool
}

// Change ops.
const (
	ChangeTrash = "trash" // rm moved Path into the trash at To
	ChangeMove  = "move"  // mv moved Path to To
	ChangeWrite = "write" // `>`, save or cp replaced (or created) Path whole
)

// maxPrior bounds the prior content kept for undoing a write: a larger file is written
// without an undo record rather than read whole first.
const maxPrior = 16 << 20

// prior is a file's state before a whole-file write, captured for OnChange.
type prior struct {
	path    string
	data    []byte
	created bool
}

// before captures what writing p whole will replace, or nil when nobody records changes or
// the write could not be undone (p is not a regular file, is too large or unreadable).
func (t *thread) before(p string) *prior {
	if t.e.host.OnChange == nil {
		return nil
	}
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) {
		return &prior{path: p, created: true}
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPrior {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPrior+1))
	if err != nil || len(data) > maxPrior {
		return nil
	}
	return &prior{path: p, data: data}
}

// wrote reports a completed whole-file write captured by before (nil: nothing to report).
func (t *thread) wrote(p *prior) {
	if p == nil {
		return
	}
	t.changed(Change{Op: ChangeWrite, Path: p.path, Prior: p.data, Created: p.created})
}

// changed reports c to the host, if it listens.
func (t *thread) changed(c Change) {
	if t.e.host.OnChange != nil {
		t.e.host.OnChange(t.ctx, c)
	}
}
