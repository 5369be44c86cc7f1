package daemon

import (
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/wire"
)

// checkHello returns why h is refused, or "" when it is accepted.
func (d *Daemon) checkHello(h wire.Hello) string {
	switch h.Role {
	case wire.RoleAgent, wire.RoleCLI, wire.RoleFE, wire.RoleLink:
	default:
		return fmt.Sprintf("role %q is not agent, cli, fe or link", h.Role)
	}
	if h.Protocol != wire.Protocol {
		return fmt.Sprintf("the client speaks sot-comm protocol %d and this daemon speaks %d; update the older side", h.Protocol, wire.Protocol)
	}
	if h.OSUser != "" && d.user != "" && !sameUser(h.OSUser, d.user) {
		return fmt.Sprintf("the hello names OS user %q but this daemon runs as %q; say hello as %q, or use the daemon of %q", h.OSUser, d.user, d.user, h.OSUser)
	}
	return ""
}

// sameUser compares a hello's os_user with the daemon's. Windows names the
// daemon's account DOMAIN\user while a shell's $USERNAME is the bare user, so
// the bare name matches too.
func sameUser(hello, daemon string) bool {
	if hello == daemon {
		return true
	}
	i := strings.LastIndexByte(daemon, '\\')
	return i >= 0 && !strings.ContainsRune(hello, '\\') && strings.EqualFold(hello, daemon[i+1:])
}
