// Package sandbox enforces a [leash.Spec] on a child process and reports,
// honestly, how much of it the host can enforce.
//
// Go cannot run code between fork and exec, so confinement happens in a
// helper: [Sandbox.Wrap] rewrites an *exec.Cmd to start Shoal's own
// executable as "shoal __sandbox-exec <payload> -- argv...". The helper
// ([Main]) opens the target, checks its pin by hashing that very file
// descriptor, restricts itself with Landlock (filesystem roots and TCP
// ports), and executes the same descriptor. The pid never changes, so the
// parent's Wait and signals reach the target.
//
// Landlock is driven through golang.org/x/sys/unix system calls rather
// than go-landlock: go-landlock v0.11.2 pulls in libpsx, whose module is
// not in this repository's go.sum, and the helper only ever restricts the
// single thread that immediately calls execve, which needs no
// all-threads machinery.
//
// Allowed imports: the standard library, leash, golang.org/x/sys/unix and
// github.com/zeebo/blake3.
package sandbox
