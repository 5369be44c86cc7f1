//go:build unix

package client

import "golang.org/x/sys/unix"

// terminalLeader is the leader of this process's session when the session has
// a controlling terminal (the shell a terminal window or a tmux pane started),
// 0 when it has none: a process outside any terminal (a service, cron, a
// command run over ssh without a tty) has no session that means anything to a
// person, and one per ssh command would give every command its own identity.
func terminalLeader() int {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	unix.Close(fd)
	sid, err := unix.Getsid(0)
	if err != nil || sid <= 0 {
		return 0
	}
	return sid
}
