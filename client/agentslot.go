package client

import (
	"fmt"

	"github.com/sotcomm/sotd/home"
)

// Agent is the agent process this session's identity is keyed by (see
// identity), ok false when it is keyed otherwise (a row, a terminal, a folder).
func (s *Session) Agent() (pid int, start string, ok bool) {
	id := s.ident()
	return id.agentPID, id.agentStart, id.agentPID > 0
}

// AsAgent keys this session's identity by the agent process pid, started at
// start, as Agent gave it to a process that ran under that agent: for a process
// that outlives its place below the agent, such as a Codex session's detached
// mail waiter, whose own ancestry no longer reaches the agent.
func (s *Session) AsAgent(pid int, start string) {
	s.id = &identity{
		slot:       home.Slot{Key: home.ProcKey(home.KeyAgent, pid, start)},
		agentPID:   pid,
		agentStart: start,
		desc:       fmt.Sprintf("the agent session of pid %d", pid),
	}
}
