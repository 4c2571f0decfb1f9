package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shoal-sh/shoal/journal/cas"
)

// seedRow is one entry for query tests.
type seedRow struct {
	src, principal, kind string
	ts                   int64
	ok                   *bool // nil: leave unfinished
	effects              string
}

func seed(t testing.TB, j *Journal, rows []seedRow) []int64 {
	t.Helper()
	ctx := context.Background()
	ids := make([]int64, len(rows))
	for i, r := range rows {
		eff := r.effects
		if eff == "" {
			eff = "[]"
		}
		id, err := j.Begin(ctx, ExecStart{Kind: r.kind, Session: "s", Principal: r.principal, Src: r.src, StartedNs: r.ts, Effects: json.RawMessage(eff)})
		if err != nil {
			t.Fatal(err)
		}
		if r.ok != nil {
			if err := j.Finish(ctx, id, ExecFinish{OK: *r.ok, Status: ptr(0)}); err != nil {
				t.Fatal(err)
			}
		}
		ids[i] = id
	}
	return ids
}

func idsOf(entries []*Entry) []int64 {
	out := []int64{}
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

// 500 rows, only 3 match the head; limit 2 must return the 2 newest matches even though
// hundreds of newer rows do not match.
func TestQueryFiltersBeforeLimit(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	rows := make([]seedRow, 500)
	for i := range rows {
		rows[i] = seedRow{src: fmt.Sprintf("echo %d", i), principal: "uid:1", ts: int64(1000 + i), ok: ptr(true)}
	}
	rows[10].src, rows[20].src, rows[30].src = "git log", "git status", "git diff"
	ids := seed(t, j, rows)
	got, err := j.Query(t.Context(), Filter{Head: ptr("git"), Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{ids[30], ids[20]}, idsOf(got)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// A head is a whole word, not a prefix.
	if got, _ := j.Query(t.Context(), Filter{Head: ptr("gi")}); len(got) != 0 {
		t.Fatalf("prefix matched %d rows", len(got))
	}
	// limit 0 means 100.
	if got, _ := j.Query(t.Context(), Filter{}); len(got) != DefaultLimit || got[0].ID != ids[499] {
		t.Fatalf("default limit: %d rows", len(got))
	}
}

func TestQueryFilters(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	yes, no := ptr(true), ptr(false)
	w := `[{"kind":"fs_write","paths":["./out"]},{"kind":"fs_read","paths":["."]}]`
	rows := []seedRow{
		/*0*/ {src: "cp a out", principal: "agent:a", ts: 10, ok: yes, effects: w},
		/*1*/ {src: "cat a", principal: "agent:b", ts: 20, ok: no, effects: `[{"kind":"fs_read","paths":["a"]}]`},
		/*2*/ {src: "echo fs_write", principal: "agent:a", ts: 30, ok: yes, effects: `[{"kind":"opaque","note":"fs_write"}]`},
		/*3*/ {src: "let x = 1", principal: "agent:a", kind: KindStmt, ts: 35, ok: yes, effects: w},
		/*4*/ {src: "tee out", principal: "agent:b", ts: 40, ok: yes, effects: w},
		/*5*/ {src: "sleep 9", principal: "agent:a", ts: 50, effects: `["fs_write"]`},
		/*6*/ {src: "ls", principal: "agent:a", ts: 60, ok: yes},
	}
	ids := seed(t, j, rows)
	id := func(i ...int) []int64 {
		out := []int64{}
		for _, k := range i {
			out = append(out, ids[k])
		}
		return out
	}
	tests := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all exec rows newest first", Filter{}, id(6, 5, 4, 2, 1, 0)},
		{"with statements", Filter{IncludeStatements: true}, id(6, 5, 4, 3, 2, 1, 0)},
		{"since inclusive", Filter{Since: ptr[int64](40)}, id(6, 5, 4)},
		{"until inclusive", Filter{Until: ptr[int64](20)}, id(1, 0)},
		{"since and until", Filter{Since: ptr[int64](20), Until: ptr[int64](40)}, id(4, 2, 1)},
		{"principal", Filter{Principal: ptr("agent:b")}, id(4, 1)},
		{"scope hides others", Filter{OnlyPrincipal: "agent:b"}, id(4, 1)},
		{"scope and other principal", Filter{OnlyPrincipal: "agent:b", Principal: ptr("agent:a")}, id()},
		{"ok false", Filter{OK: ptr(false)}, id(1)},
		{"ok true skips unfinished", Filter{OK: ptr(true)}, id(6, 4, 2, 0)},
		{"effect kind typed, not substring", Filter{Effects: []string{"fs_write"}}, id(5, 4, 0)},
		{"dotted kind normalized", Filter{Effects: []string{"fs.write"}}, id(5, 4, 0)},
		{"all kinds required", Filter{Effects: []string{"fs.write", "fs.read"}}, id(4, 0)},
		{"partial kind never matches", Filter{Effects: []string{"fs"}}, id()},
		{"newest match behind newer non-matches", Filter{Effects: []string{"fs.write"}, OK: ptr(true), Limit: 1}, id(4)},
		{"until before limit", Filter{Until: ptr[int64](15), Limit: 1}, id(0)},
		{"head", Filter{Head: ptr("tee")}, id(4)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := j.Query(t.Context(), tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, idsOf(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := j.Query(t.Context(), Filter{Limit: -1}); err == nil {
		t.Error("negative limit accepted")
	}
}

func TestQueryReturnsOutputsAndEmptyList(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	a, _ := j.Begin(ctx, ExecStart{Src: "a", StartedNs: 1})
	b, _ := j.Begin(ctx, ExecStart{Src: "b", StartedNs: 2})
	o1, _ := j.PutBytes(ctx, OutputStdout, []byte("one"))
	o2, _ := j.PutBytes(ctx, OutputStderr, []byte("two"))
	j.Finish(ctx, a, ExecFinish{OK: true, Outputs: []Output{o1, o2}})
	got, err := j.Query(ctx, Filter{})
	if err != nil || len(got) != 2 || got[0].ID != b {
		t.Fatalf("query: %v", err)
	}
	if got[0].Outputs == nil || len(got[0].Outputs) != 0 {
		t.Fatalf("entry without outputs must have an empty list, got %#v", got[0].Outputs)
	}
	if diff := cmp.Diff([]Output{o1, o2}, got[1].Outputs); diff != "" {
		t.Fatalf("outputs (-want +got):\n%s", diff)
	}
	none, err := j.Query(ctx, Filter{Head: ptr("zzz")})
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("no match must be an empty, non-nil list: %#v %v", none, err)
	}
}

func TestHashVisible(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	id, _ := j.Begin(ctx, ExecStart{Src: "secret", Principal: "agent:a"})
	o, _ := j.PutBytes(ctx, OutputValue, []byte("a's value"))
	j.Finish(ctx, id, ExecFinish{OK: true, Outputs: []Output{o}})
	unreferenced, _ := j.Blobs().Put([]byte("orphan"))
	tests := []struct {
		hash, principal string
		all, want       bool
	}{
		{o.Hash, "agent:a", false, true},
		{o.Hash, "agent:b", false, false},
		{o.Hash, "agent:b", true, true},
		{unreferenced, "agent:a", true, false},
		{"../../etc/passwd", "agent:a", true, false},
		{cas.Sum([]byte("never")), "agent:a", true, false},
	}
	for _, tc := range tests {
		got, err := j.HashVisible(ctx, tc.hash, tc.principal, tc.all)
		if err != nil || got != tc.want {
			t.Errorf("HashVisible(%.12s, %s, %v) = %v, %v; want %v", tc.hash, tc.principal, tc.all, got, err, tc.want)
		}
	}
}

// benchJournal holds 100,000 entries (a tenth of them statements, one in a hundred with head
// "x"), built once per benchmark run with bulk inserts.
func benchJournal(b *testing.B) *Journal {
	b.Helper()
	j, _ := openJournal(b, &Options{NoSyncBlobs: true})
	ctx := context.Background()
	tx, err := j.w.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO entry (kind, session, principal, ts, dur_ns, cwd, src, head, ast, effects, status, ok)
		VALUES (?, 's', ?, ?, 1000, x'2f', ?, ?, 'null', ?, 0, 1)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100_000 {
		kind, head := KindExec, fmt.Sprintf("cmd%d", i%97)
		if i%10 == 9 {
			kind = KindStmt
		}
		if i%100 == 0 {
			head = "x"
		}
		eff := `[{"kind":"fs_read","paths":["."]}]`
		if i%50 == 0 {
			eff = `[{"kind":"fs_write","paths":["out"]}]`
		}
		if _, err := stmt.ExecContext(ctx, kind, fmt.Sprintf("agent:%d", i%7), int64(i)*1000, head+" arg", head, eff); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := j.w.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return j
}

func BenchmarkQuery100k(b *testing.B) {
	j := benchJournal(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		f    Filter
		want int
	}{
		{"limit50", Filter{Limit: 50}, 50},
		{"head_limit50", Filter{Head: ptr("x"), Limit: 50}, 50},
		{"principal_limit50", Filter{Principal: ptr("agent:3"), Limit: 50}, 50},
		{"effects_limit50", Filter{Effects: []string{"fs.write"}, Limit: 50}, 50},
		{"until_old_limit50", Filter{Until: ptr[int64](1_000_000), Limit: 50}, 50},
		// Worst cases: no row matches, so the whole table is examined.
		{"head_nomatch", Filter{Head: ptr("nope"), Limit: 50}, 0},
		{"effects_nomatch", Filter{Effects: []string{"net.listen"}, Limit: 50}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				got, err := j.Query(ctx, bc.f)
				if err != nil || len(got) != bc.want {
					b.Fatalf("%d rows, %v", len(got), err)
				}
			}
		})
	}
}

// A kind spelled with JSON escapes is still the same kind; the substring prefilter must not
// hide it.
func TestQueryEffectsWithEscapes(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ids := seed(t, j, []seedRow{
		{src: "a", ts: 1, ok: ptr(true), effects: `[{"kind":"fs\u005fwrite"}]`},
		{src: "b", ts: 2, ok: ptr(true), effects: `[{"kind":"fs_read","note":"\u0041"}]`},
	})
	got, err := j.Query(t.Context(), Filter{Effects: []string{"fs.write"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{ids[0]}, idsOf(got)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
