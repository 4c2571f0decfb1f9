// Package effects derives the Leash effects a Shoal program may have,
// statically, from its syntax tree: the plan that explain, exec in plan
// mode, plan fingerprints and the run-time verdict judge. The result is an
// over-approximation: every branch, loop body, lambda and called function
// counts, and whatever cannot be known before running (a computed path, a
// foreign program's text, a callable from earlier session state) is
// represented by the widest form of its effect, never a narrower one.
//
// The derivation table — which builtin head, call, method or namespace
// member yields which effect — lives in one place, [rules] and the
// namespace and method switches beside it; docs/effects.md is generated
// from the same table and documents the decisions.
//
// effects imports lang/syntax, leash and the standard library only: it
// never evaluates anything, so deriving a plan cannot have an effect of
// its own beyond the injected [Env] look-ups.
package effects
