// Package mcp is the Model Context Protocol (2025-06-18) stdio facade over
// the Shoal kernel: thirteen tools, resources with templates, and
// subscriptions, each a thin translation to kernel JSON-RPC calls. It
// speaks newline-delimited JSON-RPC through kernel/jsonrpc (bounded
// frames, ids kept verbatim, bad lines answered and survived) and reaches
// the kernel through kernel/client, autostarting one when none listens.
//
// It imports kernel/client, kernel/proto and kernel/jsonrpc only: never the
// kernel itself or the language.
package mcp
