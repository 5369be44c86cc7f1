package daemon

import (
	"fmt"
	"strconv"
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
		return protocolMismatch(h.Protocol)
	}
	if h.OSUser != "" && !d.sameUser(h.OSUser) {
		self := fmt.Sprintf("uid:%d", d.uid)
		if d.user != "" {
			self = fmt.Sprintf("%s (uid:%d)", d.user, d.uid)
		}
		return fmt.Sprintf("the hello names OS user %q but this daemon runs as %s; say hello as that user, or use the daemon of %q", h.OSUser, self, h.OSUser)
	}
	return ""
}

// protocolMismatch says which protocol each side speaks and which side is
// older. The protocol's rule is that the numbers must match, so a newer
// client is refused too: this daemon cannot know what that number changed.
func protocolMismatch(client int) string {
	older := "update the client"
	if client > wire.Protocol {
		older = "update this daemon (sotd) to one that speaks it, or use a client that speaks protocol " + fmt.Sprint(wire.Protocol)
	}
	return fmt.Sprintf("the client speaks sot-comm protocol %d and this daemon speaks only protocol %d; %s", client, wire.Protocol, older)
}

// sameUser compares a hello's os_user with the account this daemon runs as:
// its name, or "uid:<n>" with its uid, as the reference's newer client says
// it. An account whose name is unknown is not checked by name.
func (d *Daemon) sameUser(hello string) bool {
	if n, ok := strings.CutPrefix(hello, "uid:"); ok {
		return d.uid >= 0 && n == strconv.Itoa(d.uid)
	}
	return d.user == "" || sameName(hello, d.user)
}

// sameName compares a hello's os_user with the daemon's account name. Windows
// names the daemon's account DOMAIN\user while a shell's $USERNAME is the bare
// user, so the bare name matches too.
func sameName(hello, daemon string) bool {
	if hello == daemon {
		return true
	}
	i := strings.LastIndexByte(daemon, '\\')
	return i >= 0 && !strings.ContainsRune(hello, '\\') && strings.EqualFold(hello, daemon[i+1:])
}
