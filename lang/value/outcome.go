package value

import (
	"strconv"
	"strings"
)

// OutcomeOut is an outcome's semantic payload (LANGUAGE.md §9.5): the
// builtin's or adapter's Out when set, otherwise stdout as lossy UTF-8
// minus one trailing newline, replaced by the parsed JSON value when that
// text starts (after leading whitespace) with { or [ and parses. It does
// not check ok: raising cmd_failed for a failed outcome is the caller's
// job, since only the evaluator knows the hint and span.
func OutcomeOut(o *Outcome) Value {
	if o.Out != nil {
		return o.Out
	}
	text := lossy(string(o.Stdout))
	text = strings.TrimSuffix(text, "\n")
	if t := strings.TrimLeft(text, " \t\r\n"); t != "" && (t[0] == '{' || t[0] == '[') {
		if v, err := FromJSON([]byte(text)); err == nil {
			return v
		}
	}
	return Str(text)
}

// OutcomeErr is an outcome's err field: stderr as lossy text.
func OutcomeErr(o *Outcome) Value { return Str(lossy(string(o.Stderr))) }

// SignalName names a signal number the way outcomes show it ("SIGTERM");
// numbers without a name become "SIG<n>". The numbering is Linux's.
func SignalName(sig int) string {
	switch sig {
	case 1:
		return "SIGHUP"
	case 2:
		return "SIGINT"
	case 3:
		return "SIGQUIT"
	case 4:
		return "SIGILL"
	case 5:
		return "SIGTRAP"
	case 6:
		return "SIGABRT"
	case 7:
		return "SIGBUS"
	case 8:
		return "SIGFPE"
	case 9:
		return "SIGKILL"
	case 10:
		return "SIGUSR1"
	case 11:
		return "SIGSEGV"
	case 12:
		return "SIGUSR2"
	case 13:
		return "SIGPIPE"
	case 14:
		return "SIGALRM"
	case 15:
		return "SIGTERM"
	case 16:
		return "SIGSTKFLT"
	case 17:
		return "SIGCHLD"
	case 18:
		return "SIGCONT"
	case 19:
		return "SIGSTOP"
	case 20:
		return "SIGTSTP"
	case 21:
		return "SIGTTIN"
	case 22:
		return "SIGTTOU"
	case 23:
		return "SIGURG"
	case 24:
		return "SIGXCPU"
	case 25:
		return "SIGXFSZ"
	case 26:
		return "SIGVTALRM"
	case 27:
		return "SIGPROF"
	case 28:
		return "SIGWINCH"
	case 29:
		return "SIGIO"
	case 30:
		return "SIGPWR"
	case 31:
		return "SIGSYS"
	}
	return "SIG" + strconv.Itoa(sig)
}
