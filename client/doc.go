// Package client is the session side of sot-comm: the verbs an agent runs (join,
// send, poll, list, leave, status, lock-clear). Each verb prints the protocol's
// lines and returns its exit code; cmd/sotd only parses flags and calls them.
//
// A send files the line itself when the protocol's route 1 allows it (this home
// lists the receiver and the inbox lock manager is this box's) and otherwise hands
// it to this box's daemon as one comm.file request. It never tries a second route.
package client

// Exit codes are the protocol's.
const (
	ExitOK       = 0
	ExitFailed   = 1
	ExitUsage    = 2
	ExitConflict = 3  // join: the self slot names another project, or a row holds the handle
	ExitBusy     = 75 // poll: the inbox is being written; try again
)
