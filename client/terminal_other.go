//go:build !unix

package client

// terminalLeader is 0 where sessions have no leader to read: a session outside
// any row and any agent is keyed by its project root.
func terminalLeader() int { return 0 }
