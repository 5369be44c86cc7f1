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

// PageActions is what a Backend may also do for the page: a read-only
// preview of a row's screen, and a message filed from the page. A Backend
// without it refuses both as unknown ops.
type PageActions interface {
	// PtyScreen answers pty.screen for one of this box's rows; it never types.
	PtyScreen(ctx context.Context, workspaceID string) (any, error)
	// PageSend files the request's text to its handle as comm.file does, from
	// the box's page sender (daemon/internal/page.Sender), as an answer to the line ReplyTo
	// names when it names one, and answers as comm.file does.
	PageSend(ctx context.Context, req PageSendReq) (any, error)
}

// OpPageSend is the page's send: a PageSendReq, answered as comm.file is.
const OpPageSend = "page.send"

// PageSendReq is what the page's text box sends.
// ReplyTo is the id of the line answered from a conversation's reply box.
type PageSendReq struct {
	To      string `json:"to"`
	Text    string `json:"text"`
	ReplyTo string `json:"reply_to,omitempty"`
}

// Event kinds a Backend publishes and a subscriber receives, with their
// payloads, and the two this package sends itself.
const (
	EvWorkspaceChanged = "workspace.changed" // WorkspaceChanged
	EvAgentState       = "agent.state"       // Agent: a join, a state change, a leave (Live false)
	EvUnread           = "unread"            // Unread
	EvLink             = "link"              // Link: up or down
	EvBoxes            = "boxes"             // Boxes: every box of the network and whether it is known now
	EvBoxRows          = "box.rows"          // BoxRows: another box's rows after a change on it
	EvAgentMessage     = "agent.message"     // an agent.send payload, to every connection
	EvFECommand        = "fe.command"        // FECommand, to one frontend
	EvConversation     = "conversation"      // Conversation: one pair's last lines after a change
	EvMailRate         = "mail.rate"         // MailRate: one box's per-minute counts after a change
)

// View is the status page's whole picture: this box's home and rows, and
// every other box's sessions and rows as the network view holds them.
type View struct {
	Host       string  `json:"host"` // the box this daemon serves
	Agents     []Agent `json:"agents"`
	Rows       []Row   `json:"rows"`        // this box's
	RemoteRows []Row   `json:"remote_rows"` // every other box's, by box and id
	Links      []Link  `json:"links"`
	Boxes      Boxes   `json:"boxes"`
	// Conversations are those of this box's inboxes only: a body never
	// leaves the box that files it. Newest first.
	Conversations []Conversation `json:"conversations"`
	MailRates     []MailRate     `json:"mail_rates"` // by box
}

// Conversation is the last lines between two handles, as this box's inboxes
// hold them: at most ConversationLines, newest first. Key names the pair, its
// two handles sorted and joined by a space; a conversation with no lines has
// left the view (its inboxes went).
type Conversation struct {
	Key     string     `json:"key"`
	Handles [2]string  `json:"handles"`
	Lines   []MailLine `json:"lines"`
}

// MailLine is one filed line and whether its receiver has been shown it.
type MailLine struct {
	ID        string `json:"id,omitempty"`
	From      string `json:"from"`
	To        string `json:"to"`
	Msg       string `json:"msg"`
	TS        string `json:"ts"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	Read      bool   `json:"read"`
}

// MailRate is how many lines this box filed per minute from one sending box,
// for the minutes of the last MailRateMinutes that had any.
type MailRate struct {
	Box    string        `json:"box"`
	Counts []MinuteCount `json:"counts"`
}

// MinuteCount is the lines of one minute, named by its Unix minute.
type MinuteCount struct {
	Minute int64 `json:"minute"`
	N      int   `json:"n"`
}

// The conversations' bounds: the lines kept per conversation, and the
// minutes a rate chart spans.
const (
	ConversationLines = 20
	MailRateMinutes   = 30
)

// Agent is one handle, its box and its work-state. Unread is counted only for
// this box's own handles (Local): another box's inboxes are not read here.
// Gone: the handle left the view (its box went out of reach, or it left).
type Agent struct {
	Handle    string    `json:"handle"`
	Host      string    `json:"host"`
	Live      bool      `json:"live"`
	State     string    `json:"state,omitempty"`
	Summary   string    `json:"summary,omitempty"`
	StatusAt  time.Time `json:"status_at,omitzero"`
	Expertise []string  `json:"expertise,omitempty"`
	Unread    int       `json:"unread"`
	Local     bool      `json:"local"`
	Gone      bool      `json:"gone,omitempty"`
}

// Row is one agent row (a terminal a daemon runs) and its phase. Host is the
// box that runs it: only that box's page previews its screen.
type Row struct {
	ID       string    `json:"id"`
	Host     string    `json:"host"`
	Label    string    `json:"label,omitempty"`
	Agent    string    `json:"agent,omitempty"` // claude, codex or other
	Handle   string    `json:"handle,omitempty"`
	Phase    string    `json:"phase"`
	ExitCode *int      `json:"exit_code,omitempty"`
	Since    time.Time `json:"since,omitzero"` // when the row started
}

// Link is the health of the link to one peer box: its transport (quic or
// ws), round trip and the peer's clock offset while up, why it is down.
type Link struct {
	Peer         string    `json:"peer"`
	Up           bool      `json:"up"`
	Transport    string    `json:"transport,omitempty"`
	RTTMillis    float64   `json:"rtt_ms,omitempty"`
	OffsetMillis float64   `json:"offset_ms,omitempty"`
	Since        time.Time `json:"since,omitzero"`
	Reason       string    `json:"reason,omitempty"`
}

// Boxes is every box of the network as this box knows it. Known is false
// while this guest's link to its hub is down: then only this box is known,
// since AsOf.
type Boxes struct {
	Known bool       `json:"known"`
	AsOf  string     `json:"as_of,omitempty"`
	Why   string     `json:"why,omitempty"`
	List  []BoxState `json:"list"`
}

// BoxState is one box: up (its sessions known) or down since when and why.
type BoxState struct {
	Box    string `json:"box"`
	Up     bool   `json:"up"`
	Since  string `json:"since,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Unread is a handle's count of lines past its cursor.
type Unread struct {
	Handle string `json:"handle"`
	Count  int    `json:"count"`
}

// BoxRows carries every row of another box after a change on it: none when
// it runs none or its rows went out of view.
type BoxRows struct {
	Box  string `json:"box"`
	Rows []Row  `json:"rows"`
}

// WorkspaceChanged carries every row of this box after a change.
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
