package wire

// Ops on the rows a daemon runs.
const (
	OpWorkspaceSpawn   = "workspace.spawn"
	OpWorkspaceDestroy = "workspace.destroy"
	OpWorkspaceList    = "workspace.list"
	OpPtyScreen        = "pty.screen"
	OpPtyInput         = "pty.input"
	OpAgentJoin        = "agent.join"

	// OpPtyAttach streams a PTY row's output to this connection as
	// EvPtyOutput events (the screen as it is first), while the client types
	// with pty.input on the same connection; it is answered with PtyDetached
	// when the row's program exits, and ends unanswered when the client closes.
	OpPtyAttach = "pty.attach"
	EvPtyOutput = "pty.output"
)

// Answers of agent.join.
const (
	JoinOK       = "ok"          // clearance: no row holds the handle
	JoinHeld     = "held_by_row" // clearance: a row that has not ended holds it
	JoinAccepted = "joined"      // the handle is now the row's
)

// WorkspaceSpawn asks the daemon to start a row. With a Handle the row's agent
// acts as it: the daemon binds the handle to the row in the registry.
type WorkspaceSpawn struct {
	Label  string   `json:"label"`
	Handle string   `json:"handle,omitempty"`
	Agent  string   `json:"agent"`
	Cwd    string   `json:"cwd,omitempty"`
	Argv   []string `json:"argv"`
	Env    []string `json:"env,omitempty"` // KEY=VALUE added to the row's environment
	// Cols and Rows size the row's terminal (sotd run: the terminal it runs
	// on); 0 takes the daemon's size, 120x40.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// WorkspaceRef names one row.
type WorkspaceRef struct {
	WorkspaceID string `json:"workspace_id"`
}

// WorkspaceList answers workspace.list: every row the daemon runs, by id.
type WorkspaceList struct {
	Workspaces []Workspace `json:"workspaces"`
}

// Workspace is one row, with the registry facts of the handle bound to it.
type Workspace struct {
	ID            string `json:"id"`
	Label         string `json:"label"`
	Phase         string `json:"phase"`
	Agent         string `json:"agent"`
	Backend       string `json:"backend"`
	Cwd           string `json:"cwd,omitempty"`
	Pid           int    `json:"pid,omitempty"`
	ExitCode      *int   `json:"exit_code,omitempty"` // once Stopped
	Started       string `json:"started,omitempty"`   // RFC 3339, UTC: when the row's process started
	AgentHandle   string `json:"agent_handle,omitempty"`
	AgentState    string `json:"agent_state,omitempty"`
	AgentSummary  string `json:"agent_summary,omitempty"`
	AgentStatusAt string `json:"agent_status_at,omitempty"`
}

// PtyScreen answers pty.screen: the row's lines as text (trailing blanks cut),
// the cursor (0-based) and the dim cells as the screen text format's ranges.
type PtyScreen struct {
	Cols   int      `json:"cols"`
	Rows   int      `json:"rows"`
	Lines  []string `json:"lines"`
	Cursor Cursor   `json:"cursor"`
	Dim    string   `json:"dim,omitempty"`
}

// Cursor is a 0-based screen position.
type Cursor struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// PtyInput types DataB64's bytes into a row; Enter then sends CR as a write of
// its own.
type PtyInput struct {
	WorkspaceID string `json:"workspace_id"`
	DataB64     string `json:"data_b64"`
	Enter       bool   `json:"enter,omitempty"`
}

// AgentJoin gives Handle to the row WorkspaceID; an empty WorkspaceID asks for
// clearance and writes nothing.
type AgentJoin struct {
	WorkspaceID string `json:"workspace_id"`
	Handle      string `json:"handle"`
}

// AgentJoined answers agent.join. Row is the row that holds the handle
// (held_by_row) or now has it (joined); MovedFrom the row that lost it.
type AgentJoined struct {
	Answer    string `json:"answer"`
	Row       string `json:"row,omitempty"`
	MovedFrom string `json:"moved_from,omitempty"`
}

// PtyOutput is one EvPtyOutput: bytes the row drew, for a terminal.
type PtyOutput struct {
	DataB64 string `json:"data_b64"`
}

// PtyDetached answers pty.attach when the attachment ends from the daemon's side.
type PtyDetached struct {
	Why string `json:"why"`
}

// Done answers an op that has nothing to say but that it was done.
type Done struct {
	OK bool `json:"ok"`
}
