package doctor

import (
	"context"
	"fmt"

	"github.com/sotcomm/sotd/wire"
)

// daemonView is what this box's daemon told doctor over one connection: its
// hello, and the links it should hold (or why it did not tell them).
type daemonView struct {
	hello    wire.HelloOK
	dialErr  error // no daemon answered hello
	links    wire.LinkStatus
	linksErr error // wraps errNoDaemon when dialErr is set
}

// askDaemon dials this box's daemon once and asks it for link.status.
func askDaemon(e Env) daemonView {
	ctx, cancel := context.WithTimeout(context.Background(), e.HelloWait)
	defer cancel()
	cl, err := wire.Dial(ctx, e.Socket, wire.Hello{Role: wire.RoleCLI, Host: e.Host, OSUser: e.OSUser, Protocol: wire.Protocol})
	if err != nil {
		return daemonView{dialErr: err, linksErr: fmt.Errorf("%w at %s: %w", errNoDaemon, e.Socket, err)}
	}
	defer cl.Close()
	v := daemonView{hello: cl.Hello()}
	v.linksErr = cl.Call(ctx, wire.OpLinkStatus, struct{}{}, &v.links)
	return v
}

// checkDaemon: this box's daemon answers hello on its socket.
func checkDaemon(e Env, v daemonView) Check {
	c := Check{Name: "daemon"}
	if v.dialErr != nil {
		c.Level, c.Detail = Fail, fmt.Sprintf("no daemon answered hello at %s: %v", e.Socket, v.dialErr)
		c.Fix = "Start it: sotd serve, or sotd service install to have the OS keep it running."
		return c
	}
	c.Level, c.Detail = OK, fmt.Sprintf("the daemon of %s answers hello at %s (protocol %d)", v.hello.Host, e.Socket, v.hello.Protocol)
	return c
}
