package client

import (
	"context"
	"os"
	"time"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// daemonRowsFrom is the registry size from which a command's rows are asked
// of this box's daemon rather than read from the file: below it, reading and
// checking the file costs less than a round trip to the daemon (measured by
// BenchmarkSendRegistrySize, the file read of 10 entries against the daemon's
// answer); above it, the file's cost grows with every entry and the daemon's
// answer, from its cached parse, does not.
const daemonRowsFrom = 32 << 10

// daemonRowsWait bounds the ask; a daemon that takes longer is passed over for
// the file.
const daemonRowsWait = time.Second

// ReadRows is registry.ReadRows, answered by this box's daemon when the
// registry is large and a daemon of this account answers: from its cached
// parse, which it re-reads when the file changed, so the answer is as fresh as
// a read of the file. Anything short of a full answer (no daemon, a daemon of
// another account, an older daemon, a refusal, a bad row) reads the file, so
// every answer a read gives (unreadable among them: it is never taken for
// absent) stays the file's own.
func (s *Session) ReadRows(names ...string) (*registry.Doc, error) {
	if d, ok := s.daemonRows(names); ok {
		return d, nil
	}
	return registry.ReadRows(s.Home, names...)
}

// Lookup is registry.Lookup through ReadRows: present, absent, or unreadable.
func (s *Session) Lookup(name string) (*registry.Entry, bool, error) {
	d, err := s.ReadRows(name)
	if err != nil {
		return nil, false, err
	}
	e, ok := d.Agents[name]
	return e, ok, nil
}

// daemonRows asks the daemon; false when the file is to be read instead.
func (s *Session) daemonRows(names []string) (*registry.Doc, bool) {
	if len(names) > wire.MaxRegistryRows {
		return nil, false
	}
	if fi, err := os.Lstat(s.Home.Registry()); err != nil || fi.Size() < daemonRowsFrom {
		return nil, false
	}
	return s.askRows(names)
}

// askRows is daemonRows whatever the registry's size.
func (s *Session) askRows(names []string) (*registry.Doc, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), daemonRowsWait)
	defer cancel()
	conn, own, err := s.dialDaemon(ctx)
	if err != nil {
		return nil, false
	}
	defer conn.Close()
	// The home's run folder is this account's, but a socket there could
	// still be another's; what it says about the registry is taken only from
	// a daemon of this account, as the daemon serves only peers of its own.
	if !own {
		return nil, false
	}
	var res wire.RegistryRowsOK
	if err := wire.CallOnce(ctx, conn, s.cliHello(), wire.OpRegistryRows, wire.RegistryRows{Names: names}, &res); err != nil {
		return nil, false
	}
	d, err := registry.FromRows(res.ProtocolVersion, res.Rows)
	if err != nil {
		return nil, false
	}
	return d, true
}
