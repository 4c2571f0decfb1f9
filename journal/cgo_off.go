//go:build !cgo

package journal

// sqliteAvailable is false only in CGO_ENABLED=0 builds, where go-sqlite3 is a stub.
const sqliteAvailable = false

// writerDriver is unused without cgo: [Open] fails first.
const writerDriver = "sqlite3"
