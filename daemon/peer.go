package daemon

import (
	"errors"
	"fmt"
	"net"
)

// errNoPeerCred: this OS cannot tell who is at the other end of a Unix socket.
var errNoPeerCred = errors.New("this OS does not tell a Unix socket's peer")

// checkPeer returns why c's process may not use this daemon, or "" when it may:
// only the daemon's own OS user is served. pid is that process, 0 where the OS
// does not tell.
func (d *Daemon) checkPeer(c *net.UnixConn) (pid int, reason string) {
	uid, pid, err := peerCred(c)
	switch {
	case errors.Is(err, errNoPeerCred):
		return 0, ""
	case err != nil:
		return 0, fmt.Sprintf("the daemon could not tell which OS user connected (%v), so it serves nothing on this connection", err)
	case uid != d.uid:
		return 0, fmt.Sprintf("this daemon serves OS user uid %d only; this connection comes from uid %d — use that user's own daemon", d.uid, uid)
	}
	return pid, ""
}
