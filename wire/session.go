package wire

// OpSessionWatch asks this box's daemon to stamp a session's handle live while
// its agent process runs: a session outside any row has no row for the daemon
// to stamp, but its agent is as good a sign of life. Answered with Done.
const OpSessionWatch = "session.watch"

// SessionWatch names the handle and its session's agent process: its pid and
// its start as the agent-layer walk read it (package ancestry). The daemon
// reads the process itself and refuses one that is not there, started at
// another time, or is not an agent.
type SessionWatch struct {
	Handle string `json:"handle"`
	PID    int    `json:"pid"`
	Start  string `json:"start"`
}
