// Package eval is Shoal's evaluator: scopes, calls, control flow, commands
// and processes, the builtin command catalogue, and the host ports through
// which the language reaches the world. It imports lang/syntax, lang/value,
// lang/lib and lang/diag (plus x/sys/unix for process groups, go-toml for
// Reef manifests and BLAKE3 for Reef pins); the kernel and the CLI build
// an Evaluator with [New] and plug sandboxing, journaling, terminals and
// policy in through [Host].
//
// Layout:
//
//   - api.go: the public surface (Options, Host, Evaluator, Run, Eval).
//   - eval.go, control.go, scope.go: statements, expressions, loops,
//     if/match/try, and lexical scopes (closures capture by reference).
//   - call.go, match.go, field.go, method.go: function calls and argument
//     binding, patterns, field access and indexing, method dispatch (the
//     general catalogue lives in lang/lib).
//   - command.go, process.go, feed.go: command resolution, command-form
//     calls and word coercion, child processes (own process group, bounded
//     capture, cancellation kills the tree), .feed and interpreter blocks.
//   - builtin_*.go, path.go, glob.go: the builtin commands, path methods
//     and glob expansion, all relative to the session cwd (the process cwd
//     and environment are never touched).
//   - task.go, stream_src.go: tasks, channels, live stream sources.
//   - script.go, ns_os.go, reef.go: modules and scripts, the os/config/
//     http/env/secret namespaces, Reef tool resolution.
package eval
