// Package proto is the wire contract between the Shoal kernel and its clients (the typed
// client, the MCP facade, tests): JSON-RPC method names, one Params/Result pair per method,
// Shoal's application error codes (-32000 to -32099), the event envelope and the elision
// defaults. Tagged wire values travel as [json.RawMessage]; encoding them from language values
// is the kernel's job, because this package imports nothing of the module.
//
// Imports: the standard library only. It is a leaf.
package proto
