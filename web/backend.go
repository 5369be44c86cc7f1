package web

import (
	"context"
	"time"

	"github.com/sotcomm/sotd/events"
)

// Backend is what the daemon gives the frontend door.
type Backend interface {
	// WorkspaceList answers workspace.list: the rows with the agent state
	// joined on (agent_state, agent_summary, agent_status_at).
	WorkspaceList(ctx context.Context) (any, error)
	// RegistryList answers registry.list.
	RegistryList(ctx context.Context) (any, error)
	// Snapshot is the whole view a subscription starts from. It runs with the
	// event bus held, so it reads memory only and never publishes.
	Snapshot() View
	// Events is the bus the daemon publishes the kinds below on.
	Events() *events.Bus
}

// Event kinds a Backend publishes and a subscriber receives, with their
// payloads, and the two this package sends itself.
const (
	EvWorkspaceChanged = "workspace.changed" // WorkspaceChanged
	EvAgentState       = "agent.state"       // Agent: a join, a state change, a leave (Live false)
	EvUnread           = "unread"            // Unread
	EvLink             = "link"              // Link: up or down
	EvAgentMessage     = "agent.message"     // an agent.send payload, to every connection
	EvFECommand        = "fe.command"        // FECommand, to one frontend
)

// View is the status page's whole picture of the comm home.
type View struct {
	Host   string  `json:"host"` // the box this daemon serves
	Agents []Agent `json:"agents"`
	Rows   []Row   `json:"rows"`
	Links  []Link  `json:"links"`
}

// Agent is one handle, its box and its work-state.
type Agent struct {
	Handle   string    `json:"handle"`
	Host     string    `json:"host"`
	Live     bool      `json:"live"`
	State    string    `json:"state,omitempty"`
	Summary  string    `json:"summary,omitempty"`
	StatusAt time.Time `json:"status_at,omitzero"`
	Unread   int       `json:"unread"`
}

// Row is one agent row (a terminal the daemon runs) and its phase.
type Row struct {
	ID     string `json:"id"`
	Host   string `json:"host"`
	Handle string `json:"handle,omitempty"`
	Phase  string `json:"phase"`
}

// Link is the health of the link to one peer box.
type Link struct {
	Peer      string    `json:"peer"`
	Up        bool      `json:"up"`
	RTTMillis float64   `json:"rtt_ms,omitempty"`
	Since     time.Time `json:"since,omitzero"`
}

// Unread is a handle's count of lines past its cursor.
type Unread struct {
	Handle string `json:"handle"`
	Count  int    `json:"count"`
}

// WorkspaceChanged carries every row after a change.
type WorkspaceChanged struct {
	Rows []Row `json:"rows"`
}

// FECommand is what fe.command.send asks for and what its target receives.
type FECommand struct {
	Cmd    string `json:"cmd"`
	Args   any    `json:"args,omitempty"`
	Target string `json:"target,omitempty"`
	From   string `json:"from,omitempty"`
}
