package daemon

import (
	"context"

	"github.com/sotcomm/sotd/wire"
)

// opEntry is one socket op: its name and how its request is read into the
// handler that answers it. Who may call it is the same for every op: any peer
// admitted at hello (this box's own account, in any role), hello itself being
// said once, at admission.
type opEntry struct {
	name string
	// read decodes env's payload; an error that is not a Refusal is a frame
	// error, and the connection closes.
	read func(c *conn, env wire.Envelope) (handler, error)
}

// opTable names every op the socket serves, once (wire.SocketOps lists them;
// TestOpTableNamesEverySocketOpOnce holds the two together). A row's op waits
// on no other box, so it leaves its connection's context alone; a stream
// (pty.attach) ends with its client (conn.stream).
var opTable = []opEntry{
	{wire.OpHello, func(*conn, wire.Envelope) (handler, error) {
		return nil, wire.Refuse(wire.CodeBadRequest, "this connection's hello was already accepted; send it once")
	}},
	{wire.OpCommFile, payload(func(c *conn, req wire.CommFile) handler {
		return func(ctx context.Context) (any, error) { return c.d.net.File(ctx, req) }
	})},
	{wire.OpRegistryList, bare(func(c *conn) handler {
		return func(context.Context) (any, error) { return c.d.registryList() }
	})},
	{wire.OpRegistryRows, payload(func(c *conn, req wire.RegistryRows) handler {
		return func(context.Context) (any, error) { return c.d.registryRows(req) }
	})},
	{wire.OpNetList, func(c *conn, env wire.Envelope) (handler, error) {
		var req wire.NetListPage
		if len(env.Payload) > 0 { // a client older than pages sends none
			if err := wire.DecodePayload(env.Payload, &req); err != nil {
				return nil, err
			}
		}
		return func(context.Context) (any, error) { return c.d.net.List(req) }, nil
	}},
	{wire.OpLinkStatus, bare(func(c *conn) handler {
		return func(context.Context) (any, error) { return c.d.net.Status() }
	})},
	{wire.OpCommReceipts, payload(func(c *conn, req wire.CommReceipts) handler {
		return func(ctx context.Context) (any, error) { return c.d.net.Receipts(ctx, nil, req) }
	})},
	{wire.OpWorkspaceSpawn, payload(func(c *conn, req wire.WorkspaceSpawn) handler {
		return func(context.Context) (any, error) { return c.d.rows.Spawn(req) }
	})},
	{wire.OpWorkspaceDestroy, payload(func(c *conn, req wire.WorkspaceRef) handler {
		return func(context.Context) (any, error) { return c.d.rows.Destroy(req.WorkspaceID) }
	})},
	{wire.OpWorkspaceList, bare(func(c *conn) handler {
		return func(context.Context) (any, error) { return c.d.rows.List() }
	})},
	{wire.OpPtyScreen, payload(func(c *conn, req wire.WorkspaceRef) handler {
		return func(context.Context) (any, error) { return c.d.rows.Screen(req.WorkspaceID) }
	})},
	{wire.OpPtyInput, payload(func(c *conn, req wire.PtyInput) handler {
		return func(context.Context) (any, error) { return c.d.rows.Input(req) }
	})},
	{wire.OpPtyAttach, func(c *conn, env wire.Envelope) (handler, error) {
		var req wire.WorkspaceRef
		if err := wire.DecodePayload(env.Payload, &req); err != nil {
			return nil, err
		}
		st := c.stream(env.ID)
		return func(context.Context) (any, error) { return c.d.rows.Attach(st, req.WorkspaceID) }, nil
	}},
	{wire.OpAgentJoin, payload(func(c *conn, req wire.AgentJoin) handler {
		return func(context.Context) (any, error) { return c.d.rows.Join(req) }
	})},
	{wire.OpSessionWatch, payload(func(c *conn, req wire.SessionWatch) handler {
		return func(context.Context) (any, error) { return c.d.rows.WatchSession(req, c.peer) }
	})},
}

// ops is opTable by name.
var ops = func() map[string]opEntry {
	m := make(map[string]opEntry, len(opTable))
	for _, o := range opTable {
		m[o.name] = o
	}
	return m
}()

// payload is an op whose request is a T.
func payload[T any](answer func(c *conn, req T) handler) func(*conn, wire.Envelope) (handler, error) {
	return func(c *conn, env wire.Envelope) (handler, error) {
		var req T
		if err := wire.DecodePayload(env.Payload, &req); err != nil {
			return nil, err
		}
		return answer(c, req), nil
	}
}

// bare is an op whose request carries nothing it reads.
func bare(answer func(c *conn) handler) func(*conn, wire.Envelope) (handler, error) {
	return func(c *conn, _ wire.Envelope) (handler, error) { return answer(c), nil }
}
