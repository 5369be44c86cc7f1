package daemon

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/wire"
)

// socketDoor is the socket's part of hello admission: every role may say
// hello here.
var socketDoor = wire.Door{
	Roles:     []string{wire.RoleAgent, wire.RoleCLI, wire.RoleFE, wire.RoleLink},
	WrongRole: "role %q is not agent, cli, fe or link",
}

// checkUser returns why a hello's os_user is refused, or "" when it names the
// account this daemon runs as (or none).
func (d *Daemon) checkUser(h wire.Hello) string {
	if h.OSUser == "" || d.sameUser(h.OSUser) {
		return ""
	}
	self := fmt.Sprintf("uid:%d", d.uid)
	if d.user != "" {
		self = fmt.Sprintf("%s (uid:%d)", d.user, d.uid)
	}
	return fmt.Sprintf("the hello names OS user %q but this daemon runs as %s; say hello as that user, or use the daemon of %q", h.OSUser, self, h.OSUser)
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
