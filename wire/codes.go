package wire

// Stable error codes for programs, every one sotd answers or reports, in one
// list; the sentence beside a code is for people.
const (
	CodeBadFrame      = "bad_frame"
	CodeHelloRefused  = "hello_refused"
	CodeUnknownOp     = "unknown_op"
	CodeBadHandle     = "bad_handle"
	CodeNotHere       = "not_here"
	CodeNoLiveSession = "no_live_session"
	CodeFileFailed    = "file_failed"
	CodeBadRequest    = "bad_request"
	CodeShuttingDown  = "shutting_down"
	CodeUnreadable    = "registry_unreadable"
	// CodeNoAnswer: a box, or the hub, gave no answer in time; the line may
	// still have been filed, and a retry with the same id files it at most once.
	CodeNoAnswer = "no_answer"
	// CodeNotLinked: a guest holds no link to its hub, so nothing was forwarded.
	CodeNotLinked = "not_linked"
	// CodeNotHolder: a linked box asked to act for a handle it does not hold.
	CodeNotHolder = "not_holder"
	// CodeBusy refuses a request that came over a link while its connection
	// already had as many requests in flight as a link allows; nothing was done.
	CodeBusy = "busy"

	// A frontend's (package web):

	// CodeMailRequiresCommFile refuses an agent.send that names a handle: mail
	// is filed, never published.
	CodeMailRequiresCommFile = "mail_requires_comm_file"
	// CodeNoFrontend refuses a fe.command.send whose target is not connected.
	CodeNoFrontend = "no_such_frontend"
	// CodeBackend answers a query the daemon could not answer.
	CodeBackend = "backend_failed"

	// The registry lock's (package registry/reglock), one per FAILED sentence:

	CodeLockHeld     = "lock_held"      // held by a named holder this wait could not remove
	CodeLockReleased = "lock_released"  // held when last read, may be free now: retry
	CodeLockByHand   = "lock_by_hand"   // no reclaim can clear it: remove it by hand
	CodeLockNotTaken = "lock_not_taken" // no holder read by the deadline: retry
	CodeLockNotTried = "lock_not_tried" // another goroutine of this process kept its turn
	CodeLockNoLink   = "lock_no_link"   // the comm home cannot make the lock at all
)
