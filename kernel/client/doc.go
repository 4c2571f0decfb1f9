// Package client is the typed client of the Shoal kernel: where the kernel's socket and state
// live ([SocketPath], [StateDir]), connecting or spawning it ([Activate]), and one method per
// kernel call over kernel/jsonrpc. The kernel and the MCP facade share these functions, so both
// agree on paths without probing the filesystem.
//
// Imports: kernel/proto, kernel/jsonrpc, golang.org/x/sys/unix.
package client
