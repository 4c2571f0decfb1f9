package eval

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/shoal-sh/shoal/lang/diag"
	"github.com/shoal-sh/shoal/lang/lib"
	"github.com/shoal-sh/shoal/lang/value"
)

// pollEvery is how often tail and watch look at the filesystem. Polling
// keeps the evaluator free of platform notification APIs; a tenth of a
// second is well below what an interactive user notices.
const pollEvery = 100 * time.Millisecond

// tailSource yields lines appended to a file.
type tailSource struct {
	path    string
	off     int64
	pending []byte
	lines   []string
}

func (t *thread) tailStream(pos []value.Value, named []lib.Named) (value.Value, error) {
	if len(pos) != 1 {
		return nil, diag.New(diag.ArgError, "tail() expects a path")
	}
	p, err := t.e.pathArg(pos[0])
	if err != nil {
		return nil, err
	}
	fromStart := false
	for _, a := range named {
		if a.Name != "from_start" {
			return nil, diag.New(diag.ArgError, "unknown argument `%s`", a.Name)
		}
		b, ok := a.Value.(value.Bool)
		if !ok {
			return nil, diag.New(diag.TypeError, "from_start must be a bool")
		}
		fromStart = bool(b)
	}
	src := &tailSource{path: p}
	if !fromStart {
		if fi, err := os.Stat(p); err == nil {
			src.off = fi.Size()
		}
	}
	return value.NewStream("str", src), nil
}

func (s *tailSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		if len(s.lines) > 0 {
			l := s.lines[0]
			s.lines = s.lines[1:]
			return value.Str(l), true, nil
		}
		s.read()
		if len(s.lines) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil, false, diag.New(diag.Cancelled, "cancelled")
		case <-time.After(pollEvery):
		}
	}
}

// read picks up bytes appended since the last read; a truncated file is
// followed from its new end.
func (s *tailSource) read() {
	f, err := os.Open(s.path)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < s.off {
		s.off, s.pending = 0, nil
	}
	if _, err := f.Seek(s.off, io.SeekStart); err != nil {
		return
	}
	data, _ := io.ReadAll(io.LimitReader(f, captureLimit))
	s.off += int64(len(data))
	s.pending = append(s.pending, data...)
	for {
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			return
		}
		s.lines = append(s.lines, string(bytes.TrimSuffix(s.pending[:i], []byte("\r"))))
		s.pending = s.pending[i+1:]
	}
}

func (s *tailSource) Bounded() bool { return false }

// watchSource yields {path, kind, ts} records for created, modified and
// removed files under a path or matching a glob.
type watchSource struct {
	e         *Evaluator
	root      string
	glob      *value.Glob
	recursive bool
	last      map[string]fileStamp
	queue     []value.Value
}

type fileStamp struct {
	mod  time.Time
	size int64
}

var watchShape = value.NewShape([]string{"path", "kind", "ts"})

func (t *thread) watchStream(pos []value.Value, named []lib.Named) (value.Value, error) {
	if len(pos) != 1 {
		return nil, diag.New(diag.ArgError, "watch() expects a path or glob")
	}
	src := &watchSource{e: t.e, recursive: true}
	switch x := pos[0].(type) {
	case value.Glob:
		g := x
		src.glob = &g
	default:
		p, err := t.e.pathArg(x)
		if err != nil {
			return nil, err
		}
		src.root = p
	}
	for _, a := range named {
		if a.Name != "recursive" {
			return nil, diag.New(diag.ArgError, "unknown argument `%s`", a.Name)
		}
		b, ok := a.Value.(value.Bool)
		if !ok {
			return nil, diag.New(diag.TypeError, "recursive must be a bool")
		}
		src.recursive = bool(b)
	}
	src.last = src.snapshot()
	return value.NewStream("event", src), nil
}

func (s *watchSource) snapshot() map[string]fileStamp {
	out := map[string]fileStamp{}
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			out[p] = fileStamp{mod: fi.ModTime(), size: fi.Size()}
		}
	}
	if s.glob != nil {
		m, _ := s.e.expandGlob(*s.glob)
		for _, p := range m {
			if !filepath.IsAbs(p) {
				p = filepath.Join(s.glob.Cwd, p)
			}
			add(p)
		}
		return out
	}
	fi, err := os.Stat(s.root)
	if err != nil {
		return out
	}
	if !fi.IsDir() {
		add(s.root)
		return out
	}
	_ = filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		if d.IsDir() {
			if p != s.root && !s.recursive {
				return filepath.SkipDir
			}
			return nil
		}
		add(p)
		return nil
	})
	return out
}

func (s *watchSource) Next(ctx context.Context) (value.Value, bool, error) {
	for {
		if len(s.queue) > 0 {
			v := s.queue[0]
			s.queue = s.queue[1:]
			return v, true, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, diag.New(diag.Cancelled, "cancelled")
		case <-time.After(pollEvery):
		}
		cur := s.snapshot()
		now := value.Datetime{T: s.e.now()}
		ev := func(p, kind string) {
			s.queue = append(s.queue, &value.Record{Shape: watchShape, Vals: []value.Value{value.Path{P: p}, value.Str(kind), now}})
		}
		for _, p := range sortedKeys(cur) {
			old, seen := s.last[p]
			switch {
			case !seen:
				ev(p, "created")
			case old != cur[p]:
				ev(p, "modified")
			}
		}
		var gone []string
		for p := range s.last {
			if _, ok := cur[p]; !ok {
				gone = append(gone, p)
			}
		}
		sort.Strings(gone)
		for _, p := range gone {
			ev(p, "removed")
		}
		s.last = cur
	}
}

func (s *watchSource) Bounded() bool { return false }
