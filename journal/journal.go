package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" database/sql driver

	"github.com/shoal-sh/shoal/journal/cas"
)

// ErrNoSQLite is returned by [Open] in binaries built with CGO_ENABLED=0: go-sqlite3 needs cgo,
// and its stub would otherwise fail every call later with a less obvious message.
var ErrNoSQLite = errors.New("journal needs SQLite, but this binary was built with CGO_ENABLED=0")

// ErrNotFound means no entry has the given id.
var ErrNotFound = errors.New("journal entry not found")

// ErrAlreadyFinished means Finish was called for an entry that is already finished.
var ErrAlreadyFinished = errors.New("journal entry already finished")

// DefaultMaxOutput is the largest output stored whole; longer ones keep a prefix (§7).
const DefaultMaxOutput = 256 << 20

// Options configures [Open]; nil means defaults.
type Options struct {
	// CASDir is the blob store directory; "" means "cas" next to the database file.
	CASDir string
	// BusyTimeout is how long a connection waits for a lock; 0 means 5 s.
	BusyTimeout time.Duration
	// ReadConns bounds the read-only pool; 0 means 4.
	ReadConns int
	// MaxOutput caps one stored output in bytes; 0 means [DefaultMaxOutput].
	MaxOutput int64
	// Now is the clock for blob bookkeeping; nil means time.Now.
	Now func() time.Time
	// NoSyncBlobs skips fsync in the blob store (benchmarks only).
	NoSyncBlobs bool
	// ApplyDelay is how long the writer gathers logged records before applying them; 0 means
	// 5 ms (see applyDelay).
	ApplyDelay time.Duration
}

// Journal is an open journal database plus its blob store. It is safe for concurrent use.
type Journal struct {
	path string
	w    *sql.DB // exactly one connection: SQLite allows one writer, and one conn avoids lock errors
	r    *sql.DB // read-only pool
	cas  *cas.Store

	// Small new outputs wait here, in memory, until the writer installs them in the CAS from
	// the finish record that names them (see Journal.StoreBytes).
	hmu       sync.Mutex
	heldBlobs map[string][]byte

	started bool // open got as far as starting the writer and the checkpointer
	opts    Options

	// Statements of the hot write path, prepared once on the writer: go-sqlite3 would
	// otherwise compile the SQL on every call, a large share of a Begin+Finish.
	begin, finish      *sql.Stmt
	beginDone          *sql.Stmt
	outputs            [5]*sql.Stmt // outputs[n] inserts n output rows (n ≥ 1)
	blobRow            *sql.Stmt    // records a blob an output names
	events             [3]*sql.Stmt // events[n] inserts n channel_event rows (n ≥ 1)
	maxSeq, transcript *sql.Stmt
	ck                 *sql.DB       // the checkpointer's connection
	ckWake             chan struct{} // the writer asks for a checkpoint; closed when the writer is done
	ckDone             chan struct{}
	commits            int // writes applied since the last checkpoint request; only the writer uses it

	// The redo log (see redo.go). logMu guards what must follow log order: the log file and
	// its size, the last LSN, the next entry id and event seqs, and the unfinished entries.
	logMu      sync.Mutex
	redo       *os.File
	redoFd     uintptr // redo's descriptor, for appendRedo
	redoSize   int64
	held       []byte // encoded records not yet written (see appendLog)
	lastLSN    int64
	closedLog  bool
	nextID     int64
	nextSeq    map[string]int64   // next seq of each durable channel
	unfinished map[int64]struct{} // begun by this process and not yet finished
	lastBegin  *writeOp           // the queued write of the newest record, when that is a Begin
	appliedLSN atomic.Int64       // the highest record committed to SQLite
	setApplied *sql.Stmt

	// The writer's queue (see write): qmu guards queue and closed; wake signals the writer.
	qmu        sync.Mutex
	queue      []*writeOp
	waiters    int // queued writes someone waits for (done != nil)
	closed     bool
	wake       chan struct{}
	writerDone chan struct{}
	closeOnce  sync.Once
}

// Open opens or creates the journal at path (its directory must exist), migrates the schema
// forward, and opens the blob store. A database written by a newer Shoal is refused.
func Open(path string, opts *Options) (*Journal, error) {
	if !sqliteAvailable {
		return nil, fmt.Errorf("open journal %s: %w", path, ErrNoSQLite)
	}
	j := &Journal{path: path, wake: make(chan struct{}, 1), writerDone: make(chan struct{}), nextSeq: map[string]int64{},
		unfinished: map[int64]struct{}{},
		ckWake:     make(chan struct{}, 1), ckDone: make(chan struct{})}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.CASDir == "" {
		j.opts.CASDir = filepath.Join(filepath.Dir(path), "cas")
	}
	if j.opts.BusyTimeout <= 0 {
		j.opts.BusyTimeout = 5 * time.Second
	}
	if j.opts.ReadConns <= 0 {
		j.opts.ReadConns = 4
	}
	if j.opts.MaxOutput <= 0 {
		j.opts.MaxOutput = DefaultMaxOutput
	}
	if j.opts.Now == nil {
		j.opts.Now = time.Now
	}
	if j.opts.ApplyDelay <= 0 {
		j.opts.ApplyDelay = applyDelay
	}
	if err := j.open(); err != nil {
		j.Close()
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	return j, nil
}

func (j *Journal) open() error {
	// Create the file ourselves so it is private (0600): it holds every command and its
	// outputs. SQLite gives the -wal and -shm files the database file's mode.
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	busy := j.opts.BusyTimeout.Milliseconds()
	// DSN parameters reach every pooled connection (a PRAGMA via Exec reaches only one).
	// synchronous=NORMAL in WAL mode: a commit is in the WAL (the OS page cache) before the
	// call returns, so it survives the process being killed; only power loss can drop the last
	// commits. See docs/journal.md.
	writeDSN := fmt.Sprintf("%s?_journal_mode=WAL&_busy_timeout=%d&_txlock=immediate&_foreign_keys=on&_synchronous=NORMAL", fileURI(j.path), busy)
	w, err := sql.Open(writerDriver, writeDSN)
	if err != nil {
		return err
	}
	j.w = w
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.Ping(); err != nil {
		return err
	}
	if err := j.migrate(); err != nil {
		return err
	}
	if err := j.prepare(); err != nil {
		return err
	}
	// The blob store opens before the redo log is replayed: a finish record may carry blobs
	// to install (see StoreBytes).
	store, err := cas.Open(j.opts.CASDir, &cas.Options{NoSync: j.opts.NoSyncBlobs, DeferSync: true})
	if err != nil {
		return err
	}
	j.cas = store
	if err := j.recover(); err != nil {
		return err
	}
	if err := j.loadSeqs(); err != nil {
		return err
	}
	// The read pool opens after the writer so the WAL and schema exist; mode=ro makes a stray
	// write through it fail instead of contending for the write lock.
	readDSN := fmt.Sprintf("%s?mode=ro&_busy_timeout=%d&_foreign_keys=on", fileURI(j.path), busy)
	r, err := sql.Open("sqlite3", readDSN)
	if err != nil {
		return err
	}
	j.r = r
	r.SetMaxOpenConns(j.opts.ReadConns)
	r.SetMaxIdleConns(j.opts.ReadConns)
	if err := r.Ping(); err != nil {
		return err
	}
	// The checkpointer's own connection: a PASSIVE checkpoint there runs beside the writer
	// instead of inside one of its commits.
	ck, err := sql.Open("sqlite3", fmt.Sprintf("%s?_busy_timeout=%d", fileURI(j.path), busy))
	if err != nil {
		return err
	}
	j.ck = ck
	ck.SetMaxOpenConns(1)
	ck.SetMaxIdleConns(1)
	j.started = true
	go j.checkpointer()
	go j.writer()
	return nil
}

// checkpointEvery is how many writes the writer applies between checkpoint requests. At a
// few pages per write it is near SQLite's default of a checkpoint per 1000 WAL pages.
const checkpointEvery = 250

// checkpointer copies the WAL into the database when the writer asks (every checkpointEvery
// writes) and once more when the journal closes. SQLite would otherwise checkpoint inside
// the commit that crosses 1000 WAL pages, with two fsyncs, stalling every write queued behind
// it (the writer's connection has automatic checkpoints off, see writerDriver). PASSIVE
// never blocks the writer or readers; what it cannot copy now is copied next time. Durability
// does not depend on checkpoints: a commit is in the WAL when the writer acknowledges it.
func (j *Journal) checkpointer() {
	defer close(j.ckDone)
	background()
	for range j.ckWake {
		// A checkpoint that fails (the database is busy past the timeout) leaves the WAL as it
		// was; the next request copies it. The connection closing last checkpoints whatever
		// is left.
		_, _ = j.ck.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// fileURI builds a SQLite URI ("file:/a%20b/j.db") for a filesystem path, percent-escaping
// '?', '#', '%' and spaces so they stay part of the name instead of starting parameters.
func fileURI(path string) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	return u.String()
}

// migrate applies every migration newer than the database's user_version, each in its own
// transaction together with the version bump, so a crash leaves a consistent version.
func (j *Journal) migrate() error {
	ctx := context.Background()
	var version int
	if err := j.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this shoal understands (%d)", version, SchemaVersion)
	}
	for v := version; v < len(migrations); v++ {
		tx, err := j.w.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		// PRAGMA takes no placeholders; v+1 is an integer we computed.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
	}
	return nil
}

func (j *Journal) prepare() error {
	var err error
	if j.begin, err = j.w.Prepare(sqlBegin); err != nil {
		return err
	}
	if j.finish, err = j.w.Prepare(sqlFinish); err != nil {
		return err
	}
	if j.beginDone, err = j.w.Prepare(sqlBeginDone); err != nil {
		return err
	}
	if j.blobRow, err = j.w.Prepare(sqlBlob); err != nil {
		return err
	}
	for n := 1; n < len(j.outputs); n++ {
		if j.outputs[n], err = j.w.Prepare(sqlRows(sqlOutput, n)); err != nil {
			return err
		}
	}
	for n := 1; n < len(j.events); n++ {
		if j.events[n], err = j.w.Prepare(sqlRows(sqlEvent, n)); err != nil {
			return err
		}
	}
	if j.maxSeq, err = j.w.Prepare(sqlMaxSeq); err != nil {
		return err
	}
	if j.setApplied, err = j.w.Prepare(sqlApplied); err != nil {
		return err
	}
	j.transcript, err = j.w.Prepare(sqlTranscript)
	return err
}

// Close stops the writer (writes already queued still commit), then closes both pools and the
// blob store. Writes after Close fail with [ErrClosed].
func (j *Journal) Close() error {
	var errs []error
	j.closeOnce.Do(func() {
		j.logMu.Lock()
		j.closedLog = true
		j.logMu.Unlock()
		j.qmu.Lock()
		j.closed = true
		j.qmu.Unlock()
		select {
		case j.wake <- struct{}{}:
		default:
		}
		if j.started { // the writer and the checkpointer were started
			<-j.writerDone
			close(j.ckWake)
			<-j.ckDone
		}
		if j.redo != nil {
			// Everything logged is applied now (the writer drained its queue): empty the log,
			// unless the writer failed to apply it, in which case the next Open replays it.
			if j.started && j.appliedLSN.Load() >= j.lastLSN {
				j.redo.Truncate(0)
			}
			errs = append(errs, j.redo.Close())
		}
	})
	stmts := append([]*sql.Stmt{j.begin, j.finish, j.beginDone, j.blobRow, j.maxSeq, j.transcript, j.setApplied}, j.outputs[:]...)
	for _, st := range append(stmts, j.events[:]...) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if j.ck != nil {
		errs = append(errs, j.ck.Close())
	}
	if j.r != nil {
		errs = append(errs, j.r.Close())
	}
	if j.w != nil {
		errs = append(errs, j.w.Close())
	}
	if j.cas != nil {
		errs = append(errs, j.installHeld()) // outputs no finish named: keep them anyway
		errs = append(errs, j.cas.Close())
	}
	return errors.Join(errs...)
}

// Blobs returns the journal's content-addressed store.
func (j *Journal) Blobs() *cas.Store { return j.cas }

// Version returns the database's schema version (PRAGMA user_version).
func (j *Journal) Version(ctx context.Context) (int, error) {
	var v int
	err := j.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// IntegrityCheck runs PRAGMA integrity_check and returns its report, "ok" for a sound
// database.
func (j *Journal) IntegrityCheck(ctx context.Context) (string, error) {
	if err := j.settle(); err != nil {
		return "", err
	}
	rows, err := j.r.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", fmt.Errorf("integrity check: %w", err)
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}
