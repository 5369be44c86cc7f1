// Package mcpserver is `sotd mcp`: the session's mail verbs as tools of an MCP
// server over stdio, for an agent that calls tools more readily than it runs
// commands.
//
// Each tool call runs the client verb the CLI runs (package client), in a fresh
// session read from the server's environment and folder, which are the agent's:
// so the identity rules are the CLI's, and a tool answers with exactly the lines
// the command prints. A verb that exits non-zero (a FAILED line, a busy inbox's
// 75, a usage error) is a tool error whose text is those lines, so the agent
// sees the protocol's own sentence.
package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/wire"
)

// Name is the server's name, and the name `claude mcp add` registers it under.
const Name = "sot-comm"

// Sessions makes the client session one tool call runs in, writing to stdout
// and stderr; client.NewSession in sotd.
type Sessions func(stdout, stderr io.Writer) (*client.Session, error)

// SendArgs is the send tool's input.
type SendArgs struct {
	To        string `json:"to,omitempty" jsonschema:"the receiver's handle, with or without its @; leave out with broadcast"`
	Text      string `json:"text" jsonschema:"the message"`
	Broadcast bool   `json:"broadcast,omitempty" jsonschema:"send to every other live session instead of one handle"`
	ReplyTo   string `json:"reply_to,omitempty" jsonschema:"the id of the line this answers: the short id poll shows after 'id' (it must name one line of this session's inbox), or a full message id"`
}

// StatusArgs is the status tool's input.
type StatusArgs struct {
	Verb string `json:"verb,omitempty" jsonschema:"working, idle, blocked, waiting or done (or an event: prompt, stop, dialog, resumed, join); leave out to show this session's work-state and unread count"`
	Text string `json:"text,omitempty" jsonschema:"the note, question or what is waited for"`
}

// SentArgs is the sent tool's input.
type SentArgs struct {
	To string `json:"to,omitempty" jsonschema:"only the lines sent to this handle"`
}

// LogArgs is the log tool's input.
type LogArgs struct {
	With  string `json:"with,omitempty" jsonschema:"only the conversation with this handle"`
	Since string `json:"since,omitempty" jsonschema:"only the lines filed since an age (90m, 12h, 30d) or a time (2026-05-29T18:04:00Z)"`
	Grep  string `json:"grep,omitempty" jsonschema:"only the lines whose message holds this text, in any case"`
}

// ListIn is the list tool's input.
type ListIn struct {
	All bool `json:"all,omitempty" jsonschema:"list the stale entries too, not only count them"`
}

// None is the input of a tool that takes no arguments.
type None struct{}

// New is the server, its tools calling into sessions made by sessions.
func New(sessions Sessions, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "sot-comm mail", Version: version}, &mcp.ServerOptions{
		Instructions: "Mail between coding-agent sessions: each session has a handle (@name). poll reads new mail and marks it read, each line with its short id; send files a message into a handle's inbox, and with reply_to answers one line; log shows this session's history, read lines included; list shows every handle; status declares what this session is doing; sent shows whether sent lines were read. A subagent never sends or reads mail.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: "send", Description: "File a message into another session's inbox (to), or into every other live session's (broadcast); reply_to names the line it answers. Answers 'filed -> @handle' per receiver, or 'FAILED -> @handle: reason' as a tool error: nothing was sent."},
		textOnly(func(_ context.Context, _ *mcp.CallToolRequest, in SendArgs) (*mcp.CallToolResult, any, error) {
			to := strings.TrimPrefix(in.To, "@")
			switch {
			case in.Broadcast && to != "":
				return failed("give either to or broadcast, not both; nothing was sent")
			case !in.Broadcast && to == "":
				return failed("no receiver: give to (a handle) or broadcast; nothing was sent")
			case in.Text == "":
				return failed("no message: text is empty; nothing was sent")
			}
			return call(sessions, func(c *client.Session) int {
				return c.Send(client.SendArgs{To: to, Text: in.Text, Broadcast: in.Broadcast, ReplyTo: in.ReplyTo})
			})
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "poll", Description: "Show the mail past this session's read cursor, one '@sender (time, id SHORT): text' a line, and move the cursor past it; send's reply_to takes SHORT to answer that line. A busy inbox is a tool error: nothing was read; try again."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ None) (*mcp.CallToolResult, any, error) {
			return call(sessions, func(c *client.Session) int { return c.Poll(false) })
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list", Description: "List every live session's handle with box, state and expertise; (me) marks this session, and a closing line counts the stale entries, which all lists too."},
		func(_ context.Context, _ *mcp.CallToolRequest, in ListIn) (*mcp.CallToolResult, any, error) {
			return call(sessions, func(c *client.Session) int { return c.List(client.ListArgs{All: in.All}) })
		})
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "Declare this session's work-state (verb working, idle, blocked, waiting or done, with text), which list shows the others; with no verb, show it and the unread count."},
		textOnly(func(_ context.Context, _ *mcp.CallToolRequest, in StatusArgs) (*mcp.CallToolResult, any, error) {
			return call(sessions, func(c *client.Session) int {
				if in.Verb == "" {
					return c.ShowStatus(false)
				}
				return c.Status(in.Verb, in.Text, in.Text != "", false)
			})
		}))
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Show this session's conversation history, read lines included, oldest first: '@from -> @to (time, id SHORT, read): text' a line, for the lines of its inbox and those it sent that this box's inboxes hold. Marks nothing read."},
		func(_ context.Context, _ *mcp.CallToolRequest, in LogArgs) (*mcp.CallToolResult, any, error) {
			a := client.LogArgs{With: strings.TrimPrefix(in.With, "@"), Grep: in.Grep}
			if in.Since != "" {
				var err error
				if a.Since, err = client.ParseSince(in.Since, time.Now()); err != nil {
					return failed(fmt.Sprintf("since %v; nothing was read", err))
				}
			}
			return call(sessions, func(c *client.Session) int { return c.Log(a) })
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sent", Description: "Show the lines this session sent recently (to one handle, or to any) and whether each has been read."},
		func(_ context.Context, _ *mcp.CallToolRequest, in SentArgs) (*mcp.CallToolResult, any, error) {
			return call(sessions, func(c *client.Session) int { return c.Sent(strings.TrimPrefix(in.To, "@"), false) })
		})
	return s
}

// Run serves the tools on stdin and stdout until the client closes them.
func Run(ctx context.Context, sessions Sessions, version string) error {
	return New(sessions, version).Run(ctx, &mcp.StdioTransport{})
}

// call runs one verb in a fresh session and answers with what it printed: its
// stdout, then its stderr (warnings such as a last_seen not stamped); a
// non-zero exit is a tool error.
func call(sessions Sessions, verb func(*client.Session) int) (*mcp.CallToolResult, any, error) {
	var stdout, stderr bytes.Buffer
	c, err := sessions(&stdout, &stderr)
	if err != nil {
		return failed(fmt.Sprintf("FAILED: %v", err))
	}
	code := verb(c)
	text := stdout.String() + stderr.String()
	if code != client.ExitOK {
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("exit %d", code)
		}
		return failed(text)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// textOnly refuses a call whose arguments are not text (wire.NotText), as the
// socket refuses such a frame: the SDK would hand the tool an escaped lone
// surrogate as U+FFFD, and sotd refuses text, never replaces it. It wraps the
// tools whose text is filed or written: send and status.
func textOnly[In any](tool mcp.ToolHandlerFor[In, any]) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		if err := wire.NotText(req.Params.Arguments, "the call"); err != nil {
			return failed(err.Error())
		}
		return tool(ctx, req, in)
	}
}

func failed(text string) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}
