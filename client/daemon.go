package client

import (
	"context"
	"errors"
	"net"
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
	conn, own, err := s.dialDaemon(ctx)
	if err != nil {
		return false, errors.New(daemonFailure(sock, err, ""))
	}
	defer conn.Close()
	if err := wire.CallOnce(ctx, conn, s.cliHello(), op, req, resp); err != nil {
		return false, errors.New(daemonFailure(sock, err, ""))
	}
	return own, nil
}

// dialDaemon connects to this box's daemon's socket for one call
// (wire.CallOnce: the hello and the request in one round trip), and says
// whether the process listening there runs as this account, asked before
// anything is written to it.
func (s *Session) dialDaemon(ctx context.Context) (conn net.Conn, own bool, err error) {
	var d net.Dialer
	conn, err = d.DialContext(ctx, "unix", s.Home.Socket(s.Host))
	if err != nil {
		return nil, false, err
	}
	uid, err := wire.PeerUIDOf(conn)
	return conn, err == nil && uid == os.Getuid(), nil
}

// cliHello is this client's hello to its box's daemon.
func (s *Session) cliHello() wire.Hello {
	return wire.Hello{Role: wire.RoleCLI, Host: s.Host, OSUser: osUser(), Protocol: wire.Protocol}
}
