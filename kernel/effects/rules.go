package effects

import (
	"slices"
	"strings"
	"sync"

	"github.com/shoal-sh/shoal/leash"
)

// rule is how one builtin command head (LANGUAGE.md §9.10) maps to
// effects. doc is its cell in the derivation table of docs/effects.md,
// which is generated from these rules (TestDocTable).
type rule struct {
	doc   string
	apply func(w *walker, st *cwdState, args argList)
}

// sharedRules is the table built once: its rules keep no state of their own (they work on
// the walker they are given), and building the map took a third of deriving `1 + 2`.
var sharedRules = sync.OnceValue(rules)

// rules is the derivation table for builtin command heads. Path arguments
// are literal words, strings and path words resolved against the tracked
// cwd; anything computed is [Anywhere], a glob its root with "/**".
// Builtins ignore flags they do not know, and so does this table.
func rules() map[string]rule {
	none := rule{doc: "none", apply: func(*walker, *cwdState, argList) {}}
	read := rule{doc: "fs_read: each path argument", apply: func(w *walker, st *cwdState, a argList) {
		w.paths(leash.KindFsRead, st, a.positional(), false)
	}}
	write := rule{doc: "fs_write: each path argument", apply: func(w *walker, st *cwdState, a argList) {
		w.paths(leash.KindFsWrite, st, a.positional(), false)
	}}
	journal := rule{doc: "journal_read", apply: func(w *walker, _ *cwdState, _ argList) {
		w.out.flag(leash.KindJournalRead)
	}}
	lostCwd := rule{doc: "session_write; the cwd is unknown afterwards", apply: func(w *walker, st *cwdState, _ argList) {
		w.out.flag(leash.KindSessionWrite)
		st.forget()
	}}
	return map[string]rule{
		"ls": {doc: "fs_read: each path argument, the cwd when none", apply: func(w *walker, st *cwdState, a argList) {
			w.paths(leash.KindFsRead, st, a.positional(), true)
		}},
		"stat": read,
		"cat":  read,
		"head": {doc: "fs_read: the first argument (the second is a line count)", apply: func(w *walker, st *cwdState, a argList) {
			w.paths(leash.KindFsRead, st, first(a.positional()), false)
		}},
		"mkdir": write,
		"touch": write,
		"cp": {doc: "fs_read: the sources (with `/**` under `-r`); fs_write: the destination and `dest/**`", apply: func(w *walker, st *cwdState, a argList) {
			pos := a.positional()
			if len(pos) < 2 {
				return
			}
			rec := a.hasFlag("recursive", "rR")
			for _, s := range pos[:len(pos)-1] {
				w.tree(leash.KindFsRead, st, s, rec)
			}
			w.tree(leash.KindFsWrite, st, pos[len(pos)-1], true)
		}},
		"mv": {doc: "fs_read + fs_delete: each source and `src/**`; fs_write: the destination and `dest/**`", apply: func(w *walker, st *cwdState, a argList) {
			pos := a.positional()
			if len(pos) < 2 {
				return
			}
			for _, s := range pos[:len(pos)-1] {
				w.tree(leash.KindFsRead, st, s, true)
				w.tree(leash.KindFsDelete, st, s, true)
			}
			w.tree(leash.KindFsWrite, st, pos[len(pos)-1], true)
		}},
		"rm": {doc: "fs_delete: each path (with `/**` under `-r`), into the trash (reversible); `--permanent` marks it permanent (irreversible)", apply: func(w *walker, st *cwdState, a argList) {
			perm := a.hasFlag("permanent", "")
			rec := a.hasFlag("recursive", "rR")
			for _, p := range a.positional() {
				for _, ep := range w.treePaths(st, p, rec) {
					if perm {
						w.out.deletePermanent(ep)
					} else {
						w.out.path(leash.KindFsDelete, ep)
					}
				}
			}
		}},
		"ln": {doc: "fs_write: the link; fs_read: the target (the link exposes it under a new name)", apply: func(w *walker, st *cwdState, a argList) {
			pos := a.positional()
			if len(pos) != 2 {
				return
			}
			w.out.path(leash.KindFsRead, w.argPath(pos[0], st))
			w.out.path(leash.KindFsWrite, w.argPath(pos[1], st))
		}},
		"cd": {doc: "session_write; a literal target (none: home, `-`: the previous cwd) moves the tracked cwd", apply: func(w *walker, st *cwdState, a argList) {
			w.out.flag(leash.KindSessionWrite)
			pos := a.positional()
			switch {
			case len(pos) == 0 && w.env.Home != "":
				st.set(w.resolve("~", st), true)
			case len(pos) == 0:
				st.forget()
			case pos[0].known && !pos[0].glob && pos[0].lit == "-":
				st.set(st.prev, st.prevKnown)
			default:
				w.moveTo(st, pos[0])
			}
		}},
		"pushd": {doc: "session_write; a literal target moves the tracked cwd, none swaps with an unknown one", apply: func(w *walker, st *cwdState, a argList) {
			w.out.flag(leash.KindSessionWrite)
			if pos := a.positional(); len(pos) > 0 {
				w.moveTo(st, pos[0])
			} else {
				st.forget()
			}
		}},
		"popd": lostCwd,
		"j":    lostCwd,
		"jump": lostCwd,
		"dirs": none,
		"pwd":  none,
		"env": {doc: "env_read: the named variable, `*` when none", apply: func(w *walker, _ *cwdState, a argList) {
			pos := a.positional()
			if len(pos) == 0 {
				w.out.name(leash.KindEnvRead, AnyName)
			}
			for _, p := range pos {
				if p.known && !p.glob {
					w.out.name(leash.KindEnvRead, p.lit)
				} else {
					w.out.name(leash.KindEnvRead, AnyName)
				}
			}
		}},
		"sleep": {doc: "time (it waits on the clock)", apply: func(w *walker, _ *cwdState, _ argList) {
			w.out.flag(leash.KindTime)
		}},
		"echo": none,
		"save": {doc: "fs_write: the first argument", apply: func(w *walker, st *cwdState, a argList) {
			w.paths(leash.KindFsWrite, st, first(a.positional()), false)
		}},
		"source": {doc: "fs_read: the file; opaque (its statements are not known before it is read)", apply: func(w *walker, st *cwdState, a argList) {
			if pos := a.positional(); len(pos) > 0 {
				w.out.path(leash.KindFsRead, w.argPath(pos[0], st))
				w.out.flag(leash.KindOpaque)
			}
		}},
		"run": {doc: "a script: fs_read of it, opaque, and proc_spawn of its runner; another name: a program", apply: func(w *walker, st *cwdState, a argList) {
			w.run(st, a)
		}},
		"journal": journal,
		"history": journal,
		"undo": {doc: "journal_read; opaque (what it restores is in the journal, not the source)", apply: func(w *walker, _ *cwdState, _ argList) {
			w.out.flag(leash.KindJournalRead)
			w.out.flag(leash.KindOpaque)
		}},
		"which": {doc: "env_read: PATH; fs_read: `/**` (Reef manifests from the cwd up and PATH directories)", apply: func(w *walker, _ *cwdState, _ argList) {
			w.reefLookup()
		}},
		"reef": {doc: "as which; any subcommand but `doctor` also opaque (it writes manifests or locks, or fetches)", apply: func(w *walker, _ *cwdState, a argList) {
			w.reefLookup()
			if pos := a.positional(); len(pos) > 0 && !(pos[0].known && pos[0].lit == "doctor") {
				w.out.flag(leash.KindOpaque)
			}
		}},
		"exit":    none,
		"quit":    none,
		"jobs":    none,
		"assert":  none,
		"plan":    none,
		"explain": none,
		"apply": {doc: "opaque (the stored plan's source is not this program)", apply: func(w *walker, _ *cwdState, _ argList) {
			w.out.flag(leash.KindOpaque)
		}},
		"open": {doc: "proc_spawn: xdg-open; opaque", apply: func(w *walker, st *cwdState, _ argList) {
			w.open(st)
		}},
		"interact": {doc: "proc_spawn of the command it runs; opaque", apply: func(w *walker, st *cwdState, a argList) {
			w.interact(st, a)
		}},
	}
}

func first(args []arg) []arg {
	if len(args) == 0 {
		return nil
	}
	return args[:1]
}

// paths adds one effect path per argument, or the cwd when there is none
// and orCwd is set.
func (w *walker) paths(k leash.Kind, st *cwdState, args []arg, orCwd bool) {
	if len(args) == 0 && orCwd {
		w.out.path(k, w.cwdPath(st))
	}
	for _, a := range args {
		w.out.path(k, w.argPath(a, st))
	}
}

func (w *walker) cwdPath(st *cwdState) string {
	if !st.known {
		return Anywhere
	}
	return st.cwd
}

// treePaths is a path and, when tree is set, everything under it: policy
// globs like "/p/**" do not match "/p" itself, so an operation on a
// directory and its contents names both.
func (w *walker) treePaths(st *cwdState, a arg, tree bool) []string {
	p := w.argPath(a, st)
	if !tree || p == Anywhere || strings.HasSuffix(p, "/**") {
		return []string{p}
	}
	return []string{p, strings.TrimSuffix(p, "/") + "/**"}
}

func (w *walker) tree(k leash.Kind, st *cwdState, a arg, tree bool) {
	for _, p := range w.treePaths(st, a, tree) {
		w.out.path(k, p)
	}
}

// moveTo moves the tracked cwd to a literal target, or forgets it.
func (w *walker) moveTo(st *cwdState, a arg) {
	if !a.known || a.glob {
		st.forget()
		return
	}
	p := w.resolve(a.lit, st)
	if p == Anywhere {
		st.forget()
		return
	}
	st.set(p, true)
}

// reefLookup is what which and reef read: the session PATH, and Reef
// manifests and PATH directories at paths not known statically.
func (w *walker) reefLookup() {
	w.out.name(leash.KindEnvRead, "PATH")
	w.out.path(leash.KindFsRead, Anywhere)
}

// ruleTable renders the builtin rows of the derivation table: heads with
// the same rule share a row, rows sorted by their first head.
func ruleTable(rs map[string]rule) string {
	byDoc := map[string][]string{}
	for head, r := range rs {
		byDoc[r.doc] = append(byDoc[r.doc], head)
	}
	var rows [][]string
	docOf := map[string]string{}
	for doc, heads := range byDoc {
		slices.Sort(heads)
		rows = append(rows, heads)
		docOf[heads[0]] = doc
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	var b strings.Builder
	b.WriteString("| Builtin head(s) | Effects |\n|---|---|\n")
	for _, heads := range rows {
		b.WriteString("| `" + strings.Join(heads, "` `") + "` | " + docOf[heads[0]] + " |\n")
	}
	return b.String()
}
