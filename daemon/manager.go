package daemon

import (
	"log/slog"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

// lockManager is this box's inbox lock, as line 1 of inbox-lock-manager names it.
// A lock excludes only writers that share one manager, so every filing first
// checks that the folder's record still names ours.
type lockManager struct {
	home home.Home
	own  string
	hub  bool // this daemon is the folder's hub, the one that records it
}

// newLockManager records own for the folder when this daemon is its hub, as the
// hub does at start; a guest never writes or deletes the record. A record
// another machine wrote is left alone and logged; every filing then refuses with
// the recovery.
func newLockManager(h home.Home, own string, hub bool, log *slog.Logger) lockManager {
	if !hub {
		log.Info("this daemon is a guest on its comm folder: the folder's hub keeps its inbox-lock-manager record, and this daemon never writes it", "record", h.LockManager())
	} else if err := filer.EnsureRecord(h, own, log); err != nil {
		log.Error("this daemon will file nothing until its inbox lock manager is recorded", "err", err)
	}
	return lockManager{home: h, own: own, hub: hub}
}

// check refuses a filing unless the folder's record names this box's manager.
func (m lockManager) check() error {
	if m.own == filer.NoManager {
		return wire.Refuse(wire.CodeFileFailed, "this daemon's machine has no machine id, so it names no inbox lock and files nothing — nothing was appended; give the machine a machine id (/etc/machine-id on Linux), then restart the daemon")
	}
	ok, why := filer.Matches(m.home, m.own)
	if ok {
		return nil
	}
	return wire.Refuse(wire.CodeFileFailed, "the folder's inbox-lock-manager record does not name this daemon's inbox lock (%s), so nothing was appended; %s", why, filer.RecordFix(m.home, m.own, m.hub))
}
