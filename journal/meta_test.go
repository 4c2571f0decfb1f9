package journal

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// A version-1 database (before entry.meta) migrates on Open: its rows read back with no meta,
// and new rows record one.
func TestMigrateV1AddsEntryMeta(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO entry (kind, session, principal, ts, cwd, src, head, ast, effects, status, ok)
		VALUES ('exec', 's', 'p', 1, x'2f', 'old', 'old', 'null', '[]', 0, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	j, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if v, err := j.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("user_version %d, %v", v, err)
	}
	old, err := j.Get(ctx, 1)
	if err != nil || old.Src != "old" || old.Meta != nil {
		t.Fatalf("old row = %+v, %v", old, err)
	}
	id, err := j.Begin(ctx, ExecStart{Session: "s", Principal: "p", Src: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Finish(ctx, id, ExecFinish{OK: true, Meta: []byte(`{"sandbox":{"active_tier":"A"}}`)}); err != nil {
		t.Fatal(err)
	}
	rows, err := j.Query(ctx, Filter{})
	if err != nil || len(rows) != 2 {
		t.Fatalf("query = %v, %v", rows, err)
	}
	if string(rows[0].Meta) != `{"sandbox":{"active_tier":"A"}}` || rows[1].Meta != nil {
		t.Errorf("meta = %s / %s", rows[0].Meta, rows[1].Meta)
	}
	id2, _ := j.Begin(ctx, ExecStart{Session: "s", Principal: "p", Src: "bad"})
	if err := j.Finish(ctx, id2, ExecFinish{Meta: []byte(`{`)}); err == nil {
		t.Error("invalid meta accepted")
	}
}
