package doctor

import (
	"context"
	"fmt"

	"github.com/sotcomm/sotd/wire"
)

// checkDaemon: this box's daemon answers hello on its socket.
func checkDaemon(e Env) Check {
	c := Check{Name: "daemon"}
	ctx, cancel := context.WithTimeout(context.Background(), e.HelloWait)
	defer cancel()
	cl, err := wire.Dial(ctx, e.Socket, wire.Hello{Role: wire.RoleCLI, Host: e.Host, OSUser: e.OSUser, Protocol: wire.Protocol})
	if err != nil {
		c.Level, c.Detail = Fail, fmt.Sprintf("no daemon answered hello at %s: %v", e.Socket, err)
		c.Fix = "Start it: sotd serve, or sotd service install to have the OS keep it running."
		return c
	}
	defer cl.Close()
	ok := cl.Hello()
	c.Level, c.Detail = OK, fmt.Sprintf("the daemon of %s answers hello at %s (protocol %d)", ok.Host, e.Socket, ok.Protocol)
	return c
}
