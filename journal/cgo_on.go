//go:build cgo

package journal

import (
	"database/sql"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// sqliteAvailable is false only in CGO_ENABLED=0 builds, where go-sqlite3 is a stub.
const sqliteAvailable = true

// writerDriver is go-sqlite3 with automatic checkpoints turned off on every connection it
// opens: the journal's writer connection never checkpoints on a commit, the checkpointer
// goroutine does it (see [Journal.checkpointer]). A PRAGMA run through the pool would reach
// only the connection of the moment; the hook reaches a replacement too.
const writerDriver = "sqlite3-shoal-journal-writer"

func init() {
	sql.Register(writerDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec("PRAGMA wal_autocheckpoint = 0", nil)
		return err
	}})
}
