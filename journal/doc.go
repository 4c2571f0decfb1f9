// Package journal is Shoal's durable record: one SQLite database (WAL) holding every exec and
// statement the kernel runs, the outputs they produced (as hashes into the content-addressed
// store), undo records, and the durable event channels `journal` and `session.transcript`, so
// history and those channels survive a kernel restart.
//
// Only the kernel writes the journal, through a single writer connection; queries go through a
// separate read-only pool. Entries are written when an exec starts and completed when it ends,
// and a write that returned is durable against the process being killed (see docs/journal.md).
//
// Imports: the standard library, github.com/mattn/go-sqlite3 and journal/cas.
package journal
