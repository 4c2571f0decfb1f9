// Package jsonrpc speaks newline-delimited JSON-RPC 2.0 over any byte stream (a Unix socket or
// stdio). It is shared by the kernel daemon and the MCP stdio facade, so both answer bad frames
// the same way, echo request ids byte for byte, and never buffer more than one bounded frame.
//
// A [Conn] is symmetric: it serves incoming requests through a [Handler] (usually a [Router]
// built from [Typed] handlers) and can also act as a client with [Conn.Call], demultiplexing
// responses by id while incoming notifications go to the same Handler. Requests of one
// connection run strictly in order ([ModeInOrder], the kernel) or concurrently
// ([ModeConcurrent], the MCP facade, so a cancellation can arrive while a call runs).
//
// The standard JSON-RPC error codes are defined here and nowhere else; application codes live
// in kernel/proto.
//
// Imports: the standard library only. This package is a leaf.
package jsonrpc
