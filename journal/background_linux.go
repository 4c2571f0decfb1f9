package journal

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// background pins the calling goroutine to its thread and lowers that thread's priority. The
// writer and the checkpointer call it: everything they do is off the request path (a logged
// write is durable before they see it), so on a small machine the scheduler should run an
// exec's round trip first and SQLite in the gaps. Best effort: a refused setpriority leaves
// the thread as it was.
func background() {
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), backgroundNice)
}

// backgroundNice is the writer's nice value: a weight of about a tenth of a normal thread's
// under contention, all of an idle core otherwise.
const backgroundNice = 10
