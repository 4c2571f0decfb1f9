package proto

// Task states. Completed, failed and cancelled are terminal.
const (
	TaskQueued     = "queued"
	TaskRunning    = "running"
	TaskCancelling = "cancelling"
	TaskSuspended  = "suspended"
	TaskCompleted  = "completed"
	TaskFailed     = "failed"
	TaskCancelled  = "cancelled"
)

// TaskTerminal reports whether state is final.
func TaskTerminal(state string) bool {
	return state == TaskCompleted || state == TaskFailed || state == TaskCancelled
}

// TaskRecord describes a task of the caller's session.
type TaskRecord struct {
	Task       string      `json:"task"`
	Session    string      `json:"session"`
	State      string      `json:"state"`
	StartedNs  *int64      `json:"started_ns"`
	FinishedNs *int64      `json:"finished_ns"`
	ResultRef  *string     `json:"result_ref"`
	Error      *ErrorReply `json:"error"`
}

// ErrorReply is a JSON-RPC error object as stored on a failed task.
type ErrorReply struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// TaskListParams takes no fields; task.list returns []TaskRecord.
type TaskListParams struct{}

// TaskListResult is the caller's session's tasks, oldest first.
type TaskListResult = []TaskRecord

// TaskGetParams names a task ("task:N").
type TaskGetParams struct {
	Task string `json:"task"`
}

// TaskGetResult is the task's record.
type TaskGetResult = TaskRecord

// TaskAwaitParams waits for a terminal state, at most TimeoutMs when set (then the current
// record is returned).
type TaskAwaitParams struct {
	Task      string `json:"task"`
	TimeoutMs *int64 `json:"timeout_ms,omitempty"`
}

// TaskAwaitResult is the task's record.
type TaskAwaitResult = TaskRecord

// TaskCancelParams requests cooperative cancellation.
type TaskCancelParams struct {
	Task string `json:"task"`
}

// TaskCancelResult confirms the request.
type TaskCancelResult struct {
	Task            string `json:"task"`
	CancelRequested bool   `json:"cancel_requested"`
}

// TaskSuspendParams stops the task's live process groups (SIGSTOP).
type TaskSuspendParams struct {
	Task string `json:"task"`
}

// TaskSuspendResult is the task's record after the signal.
type TaskSuspendResult = TaskRecord

// TaskResumeParams continues the task's process groups (SIGCONT).
type TaskResumeParams struct {
	Task string `json:"task"`
}

// TaskResumeResult is the task's record after the signal.
type TaskResumeResult = TaskRecord

// TaskOutputParams reads the task's merged process output from byte offset Since.
type TaskOutputParams struct {
	Task  string `json:"task"`
	Since int64  `json:"since,omitempty"`
	Limit *int   `json:"limit,omitempty"`
}

// TaskOutputResult is a window of the output ring; DroppedBefore counts bytes the 1 MiB ring
// no longer holds.
type TaskOutputResult struct {
	Task          string `json:"task"`
	State         string `json:"state"`
	Offset        int64  `json:"offset"`
	Next          int64  `json:"next"`
	Data          string `json:"data"`
	DroppedBefore int64  `json:"dropped_before"`
}

// TaskHandle is the exec reply of an async or timed-out exec.
type TaskHandle struct {
	Task     string `json:"task"`
	Events   string `json:"events"`
	TimedOut bool   `json:"timed_out,omitempty"`
}
