// Package leash is Shoal's capability policy: principals, the effects a
// plan may have, the verdict each effect and plan gets, the approver rule,
// per-principal quotas, and the lowering of a principal's grants to an OS
// sandbox description ([Spec]) that leash/sandbox enforces.
//
// leash is pure: it performs no I/O of its own. Reading the policy file,
// resolving the home directory and checking which sandbox roots exist are
// the caller's business, passed in as bytes, strings or Options functions.
// Deriving effects from Shoal source is the kernel's job too; leash only
// defines the [Effect] vocabulary and judges it.
//
// Allowed imports: the standard library and github.com/pelletier/go-toml/v2.
// It is a leaf: no other Shoal package.
package leash
