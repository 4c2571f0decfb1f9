package proto

// Method names (AGENT-SURFACE §2.4). This is the only list of them.
const (
	MethodSessionAttach = "session.attach"
	MethodSessionEnv    = "session.env"
	MethodSessionReef   = "session.reef"
	MethodSessionCwd    = "session.cwd"

	MethodParse    = "parse"
	MethodComplete = "complete"
	MethodExplain  = "explain"
	MethodExec     = "exec"

	MethodValueGet     = "value.get"
	MethodBlobGet      = "blob.get"
	MethodJournalQuery = "journal.query"
	MethodStreamPull   = "stream.pull"

	MethodTaskList    = "task.list"
	MethodTaskGet     = "task.get"
	MethodTaskAwait   = "task.await"
	MethodTaskCancel  = "task.cancel"
	MethodTaskSuspend = "task.suspend"
	MethodTaskResume  = "task.resume"
	MethodTaskOutput  = "task.output"

	MethodPlanGet    = "plan.get"
	MethodPlanList   = "plan.list"
	MethodPlanApply  = "plan.apply"
	MethodCapRequest = "cap.request"

	MethodPTYOpen   = "pty.open"
	MethodPTYSend   = "pty.send"
	MethodPTYRead   = "pty.read"
	MethodPTYResize = "pty.resize"
	MethodPTYClose  = "pty.close"
	MethodPTYList   = "pty.list"

	MethodEventsRead        = "events.read"
	MethodEventsPublish     = "events.publish"
	MethodEventsSubscribe   = "events.subscribe"
	MethodEventsUnsubscribe = "events.unsubscribe"

	// NotifyEvent is the method of server-pushed event notifications.
	NotifyEvent = "event"
)

// Static event channels, in the order session.attach lists them.
const (
	ChannelTranscript = "session.transcript"
	ChannelJournal    = "journal"
	ChannelApproval   = "approval"
	ChannelRender     = "render"
)

// StaticChannels is the channel list reported by session.attach.
func StaticChannels() []string {
	return []string{ChannelTranscript, ChannelJournal, ChannelApproval, ChannelRender}
}
