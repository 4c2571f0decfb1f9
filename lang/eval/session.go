package eval

// session is per-evaluator state that is not lexical: tasks, channels,
// the module cache and the trash. Child evaluators (scripts, spawn) share
// some of it.
type session struct{}

func newSession() *session { return &session{} }
