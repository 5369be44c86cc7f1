package wire

import "encoding/json"

// Version is the envelope version this build speaks.
const Version = 1

// Protocol is the sot-comm protocol version a hello carries.
const Protocol = 1

// MaxFrame is the longest frame, newline included.
const MaxFrame = 1 << 20

// Envelope kinds.
const (
	KindReq = "req"
	KindRes = "res"
	KindEvt = "evt"
)

// Ops.
const (
	OpHello        = "hello"
	OpCommFile     = "comm.file"
	OpRegistryList = "registry.list"
	// OpError names a refusal that answers no request of the peer's: a frame too
	// broken to carry an op, or a peer refused before it said anything.
	OpError = "error"
)

// Hello roles.
const (
	RoleAgent = "agent"
	RoleCLI   = "cli"
	RoleFE    = "fe"
	RoleLink  = "link"
)

// Envelope is one frame.
type Envelope struct {
	V       int             `json:"v"`
	ID      uint64          `json:"id"`
	Kind    string          `json:"kind"`
	Op      string          `json:"op"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Error is the payload of a refused request.
type Error struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// Hello opens every connection.
type Hello struct {
	Role     string `json:"role"`
	Host     string `json:"host"`
	Name     string `json:"name,omitempty"`
	OSUser   string `json:"os_user,omitempty"`
	Protocol int    `json:"protocol"`
	// Mux, in a link's hello, asks to carry each end's requests on one stream
	// of its own, answers matched by id (see package link); a peer that does
	// not know it leaves it out of its answer, and each request is a stream.
	Mux bool `json:"mux,omitempty"`
	// Ticks, in a link's hello, is a guest's promise that its directory is
	// complete as of its last event: its first link.directory event is the full
	// set, and it sends one on every registry poll, an empty one when nothing
	// changed. A hub that takes it (HelloOK.Ticks) waits for such a tick
	// rather than offer that box a line for a handle no directory names.
	Ticks bool `json:"ticks,omitempty"`
	// Items, in a link's hello that asks for Mux, asks that each end answer
	// the items of the other's comm.file.batch as they finish
	// (OpCommFileItems), not only all at once in the batch's answer; a peer
	// that does not know it leaves it out of its answer, and a batch is
	// answered whole.
	Items bool `json:"items,omitempty"`
}

// HelloOK answers an accepted hello.
type HelloOK struct {
	Host     string `json:"host"`
	Protocol int    `json:"protocol"`
	Daemon   string `json:"daemon,omitempty"`
	Mux      bool   `json:"mux,omitempty"`   // the link's hello asked for Mux, and it is taken
	Ticks    bool   `json:"ticks,omitempty"` // the link's hello promised Ticks, and the hub takes it
	Items    bool   `json:"items,omitempty"` // the link's hello asked for Items with Mux, and it is taken
}

// CommFile asks a daemon to file one line. ID is the sender's message id, kept
// across retries so a second filing is answered "filed" without a second line.
// InReplyTo is the id of the line this one answers (sotd send --reply-to),
// filed as the line's in_reply_to; a daemon older than it drops it, and the
// line is filed without it.
type CommFile struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Text      string `json:"text"`
	Repo      string `json:"repo,omitempty"`
	Broadcast bool   `json:"broadcast,omitempty"`
	Forwarded bool   `json:"forwarded,omitempty"`
	ID        string `json:"id,omitempty"`
	InReplyTo string `json:"in_reply_to,omitempty"`
}

// CommFiled answers a filed line.
type CommFiled struct {
	OK  bool   `json:"ok"`
	To  string `json:"to"`
	Dup bool   `json:"dup,omitempty"` // the inbox already held this id; nothing was appended
}

// RegistryList answers registry.list with the registry's agents as they are on disk.
type RegistryList struct {
	Agents json.RawMessage `json:"agents"`
}
