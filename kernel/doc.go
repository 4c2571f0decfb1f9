// Package kernel is the Shoal daemon: it listens on a Unix socket (peer-uid checked), serves
// the JSON-RPC method table of AGENT-SURFACE §2 over kernel/jsonrpc, and hosts sessions — one
// evaluator each, keyed by (principal, name), running one evaluation at a time from a FIFO
// queue — plus their transcripts, tasks, events and journal rows.
//
// The library never touches process-wide state: no signal handling, no environment reads, no
// package-level counters. The `shoal kernel` command builds [Options] from flags and the
// environment, calls [Run], and prints the readiness line from the Ready callback.
//
// Imports: lang/*, journal, leash, term, tokens, kernel/proto, kernel/jsonrpc.
package kernel
