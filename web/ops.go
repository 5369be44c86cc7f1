package web

import (
	"context"
	"encoding/json"

	"github.com/sotcomm/sotd/wire"
)

// do answers one request; an error is the refusal to send instead.
func (c *conn) do(ctx context.Context, env wire.Envelope) (any, error) {
	b := c.s.cfg.Backend
	switch env.Op {
	case OpAgentSend:
		return c.agentSend(env.Payload)
	case OpFECommandSend:
		return c.feCommand(env.Payload)
	case wire.OpWorkspaceList:
		return b.WorkspaceList(ctx)
	case wire.OpRegistryList:
		return b.RegistryList(ctx)
	case OpSubscribe:
		if c.sub != nil {
			return nil, wire.Refuse(wire.CodeBadRequest, "this connection is already subscribed; one subscription per connection")
		}
		c.sub = b.Events().Subscribe(func() any { return b.Snapshot() }, c.s.cfg.Buffer)
		return delivered{OK: true}, nil
	case wire.OpHello:
		return nil, wire.Refuse(wire.CodeBadRequest, "hello was already said on this connection as %s", c.name)
	}
	if pa, ok := b.(PageActions); ok {
		switch env.Op {
		case wire.OpPtyScreen:
			var req wire.WorkspaceRef
			if err := wire.DecodePayload(env.Payload, &req); err != nil {
				return nil, wire.Refuse(wire.CodeBadFrame, "%v", err)
			}
			return pa.PtyScreen(ctx, req.WorkspaceID)
		case OpPageSend:
			var req PageSendReq
			if err := wire.DecodePayload(env.Payload, &req); err != nil {
				return nil, wire.Refuse(wire.CodeBadFrame, "%v", err)
			}
			return pa.PageSend(ctx, req)
		}
	}
	return nil, wire.Refuse(wire.CodeUnknownOp, "op %q is not one this listener serves (agent.send, fe.command.send, workspace.list, registry.list, subscribe, pty.screen, page.send)", env.Op)
}

type delivered struct {
	OK        bool `json:"ok"`
	Delivered int  `json:"delivered,omitempty"`
}

// agentSend publishes a UI notification to every connection. One that names a
// handle is mail, which only comm.file files; nothing is published.
func (c *conn) agentSend(raw json.RawMessage) (any, error) {
	var p map[string]json.RawMessage
	if err := wire.DecodePayload(raw, &p); err != nil {
		return nil, wire.Refuse(wire.CodeBadFrame, "%v", err)
	}
	var to string
	if t, ok := p["to"]; ok && json.Unmarshal(t, &to) != nil {
		return nil, wire.Refuse(wire.CodeBadRequest, "agent.send's to is not a string")
	}
	if to != "" {
		return nil, wire.Refuse(wire.CodeMailRequiresCommFile, "agent.send carries UI notifications only, with an empty to; mail for @%s goes through comm.file (comm-send.sh); nothing was published", to)
	}
	p["from"], _ = json.Marshal(c.name)
	frame, err := wire.EncodeFrame(0, wire.KindEvt, EvAgentMessage, p)
	if err != nil {
		return nil, wire.Refuse(wire.CodeBadRequest, "%v; nothing was published", err)
	}
	return delivered{OK: true, Delivered: c.s.broadcast(frame, func(*conn) bool { return true })}, nil
}

// feCommand delivers a command to its target frontend only, or to every other
// frontend when it names none.
func (c *conn) feCommand(raw json.RawMessage) (any, error) {
	var cmd FECommand
	if err := wire.DecodePayload(raw, &cmd); err != nil {
		return nil, wire.Refuse(wire.CodeBadFrame, "%v", err)
	}
	if cmd.Cmd == "" {
		return nil, wire.Refuse(wire.CodeBadRequest, "fe.command.send names no cmd; send {cmd, args, target?}")
	}
	cmd.From = c.name
	frame, err := wire.EncodeFrame(0, wire.KindEvt, EvFECommand, cmd)
	if err != nil {
		return nil, wire.Refuse(wire.CodeBadRequest, "%v; nothing was sent", err)
	}
	n := c.s.broadcast(frame, func(o *conn) bool {
		if cmd.Target == "" {
			return o != c
		}
		return o.name == cmd.Target
	})
	if n == 0 && cmd.Target != "" {
		return nil, wire.Refuse(wire.CodeNoFrontend, "no frontend named %s is connected; nothing was sent", cmd.Target)
	}
	return delivered{OK: true, Delivered: n}, nil
}
