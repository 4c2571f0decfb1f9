// Package tokens mints, stores, verifies and revokes the bearer tokens that
// let a non-local principal attach to the kernel.
//
// Secrets are shown once and never stored: the store file keeps only a
// keyed BLAKE3 digest per token, keyed by the store's own random key, and
// verification compares against every digest in constant time. Writers
// serialize on a flock of "<store>.lock" and replace the file atomically;
// a [Verifier] re-reads the file only when its (mtime, size, inode) changes,
// so tokens created or revoked by the CLI take effect without a restart.
//
// Allowed imports: the standard library, github.com/zeebo/blake3 and
// golang.org/x/sys/unix. It is a leaf: no other Shoal package.
package tokens
