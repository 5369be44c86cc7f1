package client

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// DaemonWait bounds one call to this box's daemon that is not a filing: a
// spawn waits for a process to start, a despawn for one to end.
const DaemonWait = 30 * time.Second

// CallDaemon makes one request to this box's daemon. An error reads as a
// FAILED reason: the daemon's own sentence when it answered, else what the
// transport said and how to start a daemon.
func (s *Session) CallDaemon(op string, req, resp any) error {
	return s.callDaemonWithin(DaemonWait, op, req, resp)
}

// callDaemonWithin is CallDaemon bounded by wait, dial and answer together.
func (s *Session) callDaemonWithin(wait time.Duration, op string, req, resp any) error {
	_, err := s.callDaemonOwn(wait, op, req, resp)
	return err
}

// callDaemonOwn is callDaemonWithin that also says whether the daemon that
// answered runs as this account: the home's run folder is this account's, but
// a socket there could still be another's.
func (s *Session) callDaemonOwn(wait time.Duration, op string, req, resp any) (own bool, err error) {
	sock := s.Home.Socket(s.Host)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := wire.Dial(ctx, sock, wire.Hello{Role: wire.RoleCLI, Host: s.Host, OSUser: osUser(), Protocol: wire.Protocol})
	if err != nil {
		return false, errors.New(daemonFailure(sock, err, ""))
	}
	defer c.Close()
	if err := c.Call(ctx, op, req, resp); err != nil {
		return false, errors.New(daemonFailure(sock, err, ""))
	}
	uid, err := c.PeerUID()
	return err == nil && uid == os.Getuid(), nil
}
