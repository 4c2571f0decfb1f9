package journal

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shoal-sh/shoal/journal/cas"
)

func openJournal(t testing.TB, opts *Options) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, path
}

func ptr[T any](v T) *T { return &v }

// reopen closes j and opens the journal at path again, closed when the test ends.
func reopen(t testing.TB, j *Journal, path string) *Journal {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j2.Close() })
	return j2
}

func TestSchemaVersionMatchesMigrations(t *testing.T) {
	if SchemaVersion != len(migrations) {
		t.Fatalf("SchemaVersion %d, but %d migrations", SchemaVersion, len(migrations))
	}
}

func TestOpenMigratesFromEmpty(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	if v, err := j.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("user_version %d, %v", v, err)
	}
	columns := func(table string) []string {
		rows, err := j.r.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			out = append(out, n)
		}
		return out
	}
	want := map[string][]string{
		"entry":            {"id", "kind", "parent_id", "session", "principal", "ts", "dur_ns", "cwd", "env_hash", "src", "head", "ast", "effects", "status", "ok", "opaque", "meta"},
		"output":           {"entry_id", "kind", "hash", "len", "meta"},
		"undo":             {"entry_id", "op", "inverse", "undone_ns"},
		"pin":              {"hash"},
		"blob":             {"hash", "stored_len", "created_ns", "last_access_ns"},
		"transcript_event": {"entry_id", "ts", "payload"},
		"channel_event":    {"channel", "seq", "entry_id", "ts", "payload"},
	}
	for table, cols := range want {
		if diff := cmp.Diff(cols, columns(table)); diff != "" {
			t.Errorf("table %s columns (-want +got):\n%s", table, diff)
		}
	}
	for _, idx := range []string{"entry_ts", "output_entry", "undo_entry", "entry_head_ts"} {
		var n int
		j.r.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type='index' AND name=?", idx).Scan(&n)
		if n != 1 {
			t.Errorf("index %s missing", idx)
		}
	}
	var mode string
	var syncLevel, busy, fk int
	j.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	j.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&syncLevel)
	j.w.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy)
	j.w.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk)
	if mode != "wal" || syncLevel != 1 || busy != 5000 || fk != 1 {
		t.Fatalf("journal_mode=%s synchronous=%d busy_timeout=%d foreign_keys=%d; want wal 1 5000 1", mode, syncLevel, busy, fk)
	}
	if got, err := j.IntegrityCheck(ctx); err != nil || got != "ok" {
		t.Fatalf("integrity_check %q, %v", got, err)
	}
}

func TestReadPoolIsReadOnly(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	if _, err := j.r.ExecContext(t.Context(), "INSERT INTO pin (hash) VALUES (zeroblob(32))"); err == nil {
		t.Fatal("write through the read pool succeeded")
	}
}

func TestRefuseNewerSchema(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	if _, err := j.w.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	_, err := Open(path, nil)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Fatalf("Open of a newer journal: %v", err)
	}
}

func TestReopenAfterClose(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	id, err := j.Begin(ctx, ExecStart{Session: "s", Principal: "p", Src: "echo hi", StartedNs: 5})
	if err != nil {
		t.Fatal(err)
	}
	j2 := reopen(t, j, path)
	e, err := j2.Get(ctx, id)
	if err != nil || e.Src != "echo hi" {
		t.Fatalf("after reopen: %+v, %v", e, err)
	}
	id2, err := j2.Begin(ctx, ExecStart{Session: "s", Principal: "p", Src: "next"})
	if err != nil || id2 <= id {
		t.Fatalf("id after reopen %d (first %d), %v", id2, id, err)
	}
}

func TestBeginFinishRoundTrip(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	id, err := j.Begin(ctx, ExecStart{
		Session: "work", Principal: "agent:r", Src: "  git status --short", StartedNs: 1000,
		AST: json.RawMessage(`{"type":"pipeline"}`), Cwd: []byte("/p"), EnvHash: strings.Repeat("e", 64),
		Effects: json.RawMessage(`[{"kind":"proc_spawn","argv0":"git"}]`),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Unfinished rows are visible with null duration, status and ok.
	e, err := j.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.DurNs != nil || e.Status != nil || e.OK != nil || e.Head != "git" || e.Kind != KindExec {
		t.Fatalf("unfinished entry %+v", e)
	}
	value, err := j.PutBytes(ctx, OutputValue, []byte(`{"$":"int","v":42}`))
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := j.PutOutput(ctx, OutputStdout, strings.NewReader("M a.go\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Finish(ctx, id, ExecFinish{Status: ptr(0), OK: true, DurNs: 2100000, Outputs: []Output{value, stdout}}); err != nil {
		t.Fatal(err)
	}
	e, err = j.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(e)
	want := fmt.Sprintf(`{"id":%d,"session":"work","principal":"agent:r","ts":1000,"dur_ns":2100000,"cwd":{"display":"/p"},`+
		`"src":"  git status --short","ast":{"type":"pipeline"},"effects":[{"kind":"proc_spawn","argv0":"git"}],"status":0,"ok":true,"opaque":false,`+
		`"outputs":[{"kind":"value","hash":"%s","len":18},{"kind":"stdout","hash":"%s","len":7}]}`,
		id, cas.Sum([]byte(`{"$":"int","v":42}`)), cas.Sum([]byte("M a.go\n")))
	if string(got) != want {
		t.Fatalf("entry JSON\n got %s\nwant %s", got, want)
	}
	if b, err := j.Blobs().Get(stdout.Hash); err != nil || string(b) != "M a.go\n" {
		t.Fatalf("stdout blob %q, %v", b, err)
	}
	if e.EnvHash != strings.Repeat("e", 64) {
		t.Fatalf("env hash %q", e.EnvHash)
	}
}

func TestFinishFailures(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	if err := j.Finish(ctx, 424242, ExecFinish{OK: true}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("finish unknown id: %v", err)
	}
	id, _ := j.Begin(ctx, ExecStart{Src: "x"})
	if err := j.Finish(ctx, id, ExecFinish{Outputs: []Output{{Kind: "video", Hash: cas.Sum(nil)}}}); err == nil {
		t.Fatal("unknown output kind accepted")
	}
	if err := j.Finish(ctx, id, ExecFinish{Outputs: []Output{{Kind: OutputValue, Hash: "../etc"}}}); !errors.Is(err, cas.ErrInvalidHash) {
		t.Fatalf("bad hash: %v", err)
	}
	// A rejected Finish leaves the row unfinished.
	if e, _ := j.Get(ctx, id); e.OK != nil {
		t.Fatal("rejected Finish changed the row")
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: true}); err != nil {
		t.Fatal(err)
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: false}); !errors.Is(err, ErrAlreadyFinished) {
		t.Fatalf("second finish: %v", err)
	}
	if e, _ := j.Get(ctx, id); e.OK == nil || !*e.OK {
		t.Fatal("second Finish changed the row")
	}
	if _, err := j.Begin(ctx, ExecStart{Src: "x", Kind: "statement"}); err == nil {
		t.Fatal("bad kind accepted")
	}
	if nullID, err := j.Begin(ctx, ExecStart{Src: "x", Effects: json.RawMessage(`null`)}); err != nil {
		t.Fatalf("null effects (a nil slice) refused: %v", err)
	} else if e, _ := j.Get(ctx, nullID); string(e.Effects) != "[]" {
		t.Fatalf("null effects stored as %s", e.Effects)
	}
	if _, err := j.Begin(ctx, ExecStart{Src: "x", Effects: json.RawMessage(`{"kind":"fs_read"}`)}); err == nil {
		t.Fatal("effects that are not an array accepted")
	}
	if _, err := j.Begin(ctx, ExecStart{Src: "x", AST: json.RawMessage("{nope")}); err == nil {
		t.Fatal("invalid AST JSON accepted")
	}
	if _, err := j.Get(ctx, 99999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get unknown: %v", err)
	}
}

func TestSignalDeathAndFailedOutcome(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	id, _ := j.Begin(ctx, ExecStart{Src: "sleep 30"})
	if err := j.Finish(ctx, id, ExecFinish{Status: nil, OK: false, DurNs: 5}); err != nil {
		t.Fatal(err)
	}
	e, _ := j.Get(ctx, id)
	if e.Status != nil || e.OK == nil || *e.OK {
		t.Fatalf("signal death row: status %v ok %v", e.Status, e.OK)
	}
	b, _ := json.Marshal(e)
	if !bytes.Contains(b, []byte(`"status":null,"ok":false`)) {
		t.Fatalf("JSON %s", b)
	}
}

func TestPathOfNonUTF8(t *testing.T) {
	t.Parallel()
	p := PathOf([]byte("/tmp/\xff\xfe"))
	b, _ := json.Marshal(p)
	if string(b) != "{\"display\":\"/tmp/\uFFFD\",\"raw\":\"L3RtcC///g==\"}" {
		t.Fatalf("got %s", b)
	}
	if b, _ := json.Marshal(PathOf([]byte("/ok"))); string(b) != `{"display":"/ok"}` {
		t.Fatalf("got %s", b)
	}
}

func TestHeadOf(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		"git status": "git", "  \tls": "ls", "echo\nhi": "echo", "": "", "x": "x", "ls -la\t/": "ls",
	} {
		if got := HeadOf(src); got != want {
			t.Errorf("HeadOf(%q) = %q, want %q", src, got, want)
		}
	}
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	j, _ := openJournal(t, nil)
	ctx := t.Context()
	const writers, each = 8, 100
	var wg sync.WaitGroup
	ids := make(chan int64, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id, err := j.Begin(ctx, ExecStart{Session: "s", Principal: fmt.Sprintf("p%d", w), Src: fmt.Sprintf("cmd%d %d", w, i)})
				if err != nil {
					t.Errorf("begin: %v", err)
					return
				}
				if err := j.Finish(ctx, id, ExecFinish{OK: true, Status: ptr(0)}); err != nil {
					t.Errorf("finish: %v", err)
					return
				}
				if _, err := j.AppendEvent(ctx, ChannelJournal, id, json.RawMessage(`{}`), 1); err != nil {
					t.Errorf("append: %v", err)
					return
				}
				ids <- id
			}
		})
	}
	// Readers run alongside the writers.
	for range 2 {
		wg.Go(func() {
			for range 50 {
				if _, err := j.Query(ctx, Filter{Limit: 10}); err != nil {
					t.Errorf("query: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct ids, want %d", len(seen), writers*each)
	}
	all, err := j.Query(ctx, Filter{Limit: 10000})
	if err != nil || len(all) != writers*each {
		t.Fatalf("query all: %d rows, %v", len(all), err)
	}
	evs, err := j.EventsSince(ctx, ChannelJournal, -1, 0)
	if err != nil || len(evs) != writers*each {
		t.Fatalf("events: %d, %v", len(evs), err)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i) {
			t.Fatalf("event %d has seq %d: seqs must be dense", i, ev.Seq)
		}
	}
}

// rawDB opens the database file directly, for tests that need to look underneath.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOutputHashStoredAsRawBytes(t *testing.T) {
	t.Parallel()
	j, path := openJournal(t, nil)
	ctx := t.Context()
	id, _ := j.Begin(ctx, ExecStart{Src: "x"})
	o, _ := j.PutBytes(ctx, OutputRender, []byte("x"))
	j.Finish(ctx, id, ExecFinish{OK: true, Outputs: []Output{o}})
	var n int
	var typ string
	j.settle()
	if err := rawDB(t, path).QueryRow("SELECT length(hash), typeof(hash) FROM output").Scan(&n, &typ); err != nil {
		t.Fatal(err)
	}
	if n != 32 || typ != "blob" {
		t.Fatalf("hash stored as %s of %d bytes", typ, n)
	}
}

// Paths with URI-special characters must name the file they say, not a truncated one.
func TestOpenPathWithSpecialCharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a dir?x=1#frag%20")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "journal.db")
	j, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Begin(t.Context(), ExecStart{Src: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at %q: %v", path, err)
	}
	if got, err := j.Query(t.Context(), Filter{}); err != nil || len(got) != 1 {
		t.Fatalf("read pool sees %d rows, %v", len(got), err)
	}
}
