package journal

// migrations are the schema steps in order; migration i brings user_version from i to i+1.
// Never edit a released step: append a new one.
var migrations = []string{
	// 1: the tables of AGENT-SURFACE §7. Hashes are 32 raw bytes. head is a denormalized
	// copy of the first word of src so journal.query can filter on it through an index.
	`
CREATE TABLE entry (
	id        INTEGER PRIMARY KEY,
	kind      TEXT    NOT NULL CHECK (kind IN ('exec', 'stmt')),
	parent_id INTEGER REFERENCES entry(id),
	session   TEXT    NOT NULL,
	principal TEXT    NOT NULL,
	ts        INTEGER NOT NULL,
	dur_ns    INTEGER,
	cwd       BLOB    NOT NULL,
	env_hash  TEXT,
	src       TEXT    NOT NULL,
	head      TEXT    NOT NULL,
	ast       TEXT    NOT NULL,
	effects   TEXT    NOT NULL,
	status    INTEGER,
	ok        INTEGER,
	opaque    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entry_ts ON entry(ts);
CREATE INDEX entry_head_ts ON entry(head, ts);
CREATE INDEX entry_principal_ts ON entry(principal, ts);
CREATE INDEX entry_parent ON entry(parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE output (
	entry_id INTEGER NOT NULL REFERENCES entry(id),
	kind     TEXT    NOT NULL CHECK (kind IN ('stdout', 'stderr', 'value', 'render')),
	hash     BLOB    NOT NULL CHECK (length(hash) = 32),
	len      INTEGER NOT NULL,
	meta     TEXT
);
CREATE INDEX output_entry ON output(entry_id);
CREATE INDEX output_hash ON output(hash);

CREATE TABLE undo (
	entry_id INTEGER NOT NULL REFERENCES entry(id),
	op       TEXT    NOT NULL,
	inverse  TEXT    NOT NULL
);
CREATE INDEX undo_entry ON undo(entry_id);

CREATE TABLE pin (
	hash BLOB PRIMARY KEY CHECK (length(hash) = 32)
) WITHOUT ROWID;

CREATE TABLE blob (
	hash           BLOB    PRIMARY KEY CHECK (length(hash) = 32),
	stored_len     INTEGER NOT NULL,
	created_ns     INTEGER NOT NULL,
	last_access_ns INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE transcript_event (
	entry_id INTEGER PRIMARY KEY REFERENCES entry(id),
	ts       INTEGER NOT NULL,
	payload  TEXT    NOT NULL
);

CREATE TABLE channel_event (
	channel  TEXT    NOT NULL,
	seq      INTEGER NOT NULL,
	entry_id INTEGER REFERENCES entry(id),
	ts       INTEGER NOT NULL,
	payload  TEXT    NOT NULL,
	PRIMARY KEY (channel, seq)
) WITHOUT ROWID;
`,
	// 2: entry.meta, JSON metadata of a row (the sandbox status of a confined exec).
	`ALTER TABLE entry ADD COLUMN meta TEXT;`,
	// 3: the position of the redo log (journal.db-redo) applied so far; see redo.go.
	`CREATE TABLE redo_applied (lsn INTEGER NOT NULL);
INSERT INTO redo_applied (lsn) VALUES (0);`,
	// 4: when an undo record was applied (NULL: not yet), so undo walks back entry by entry.
	`ALTER TABLE undo ADD COLUMN undone_ns INTEGER;`,
}

// SchemaVersion is the user_version this build writes; a newer database is refused. It always
// equals len(migrations) (a test checks).
const SchemaVersion = 4
