package filer

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/nolog"
	"github.com/sotcomm/sotd/machine"
)

// NoManager is the manager of a machine with no machine id; it never matches.
const NoManager = "none"

// maxRecord bounds the read of the inbox-lock-manager record: two short lines.
const maxRecord = 4096

// ReadRecord reads the inbox-lock-manager record at path: line 1 is the manager,
// line 2 the machine id of the machine that wrote it ("" when the record has none,
// an unknown writer). ok is false when there is no record. It is read as every
// home file is: never through a symlink, never waiting on a FIFO.
func ReadRecord(path string) (line1, line2 string, ok bool, err error) {
	b, err := home.Home{}.ReadFile(path, maxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("the inbox-lock-manager record %s could not be read (%v)", path, bareErr(err))
	}
	lines := strings.SplitN(string(b), "\n", 3)
	line1 = strings.TrimSpace(lines[0])
	if len(lines) > 1 {
		line2 = strings.TrimSpace(lines[1])
	}
	return line1, line2, true, nil
}

// EnsureRecord is the hub daemon's step at start: it makes the record by an
// exclusive create when there is none (of two daemons starting at once one writes
// it, the other reads the winner's), leaves it alone when line 1 is own, and
// replaces it only when this machine wrote it (the hub after a remount). A record
// another machine wrote that names a different manager is left untouched and is
// returned as an error naming the recovery. A hub with no machine id (own is bare
// none) never writes the record.
func EnsureRecord(h home.Home, own string, log *slog.Logger) error {
	return ensureRecord(h, own, machine.ID(), log)
}

func ensureRecord(h home.Home, own, id string, log *slog.Logger) error {
	log = nolog.Or(log)
	path := h.LockManager()
	if own == NoManager || !machine.Known(id) {
		return fmt.Errorf("this machine has no machine id, so the hub cannot name its inbox lock manager in %s and refuses every filing: give the machine a machine id (/etc/machine-id on Linux), then restart the daemon", path)
	}
	line1, line2, ok, err := ReadRecord(path)
	if err != nil {
		return err
	}
	if !ok {
		won, err := createRecord(h, own, id)
		if err != nil {
			return err
		}
		if won {
			log.Info("recorded the inbox lock manager", "record", path, "manager", own)
			return nil
		}
		// Another daemon created it first: judge the winner's record.
		if line1, line2, _, err = ReadRecord(path); err != nil {
			return err
		}
	}
	switch {
	case line1 == own:
		return nil
	case line2 == id:
		if err := replaceRecord(h, own, id); err != nil {
			return err
		}
		log.Info("replaced this machine's inbox-lock-manager record (the mount changed)", "record", path, "was", line1, "manager", own)
		return nil
	}
	writer := "an unknown machine (the record has no line 2)"
	if line2 != "" {
		writer = "machine " + line2
	}
	return fmt.Errorf("the inbox-lock-manager record %s was written by %s and names a different lock manager (%s) than this hub's (%s); it was left untouched, and inboxes here are not filed: %s", path, writer, line1, own, replaceByHand(path))
}

// replaceByHand is the protocol's recovery for a record another machine wrote.
func replaceByHand(path string) string {
	return "stop every daemon on this comm folder, on every box that shares it, delete " + path + " (or run sotd lock-manager reset) and start the hub"
}

// RecordFix is what a person does when the folder's record does not name own,
// the manager of a daemon that is (hub) or is not the folder's hub: the one
// recovery the daemon's refusal and sotd doctor both name.
func RecordFix(h home.Home, own string, hub bool) string {
	_, writer, present, err := ReadRecord(h.LockManager())
	switch {
	case err != nil:
	case !present && hub:
		return "restart the daemon (sotd serve), which records its own"
	case !present:
		return "start the folder's hub (sotd serve on its box), which records its own"
	case machine.Same(writer, machine.ID()):
		return "this machine wrote the record, so its folder was remounted: restart the daemon"
	}
	return replaceByHand(h.LockManager())
}

var owned sync.Map // inbox folder -> ownManager

type ownManager struct {
	name string
	err  error
}

// OwnManager names this box's lock manager for h's inboxes, as line 1 of the
// inbox-lock-manager record would (ComputeManager of inbox/, where the lock files
// live). It reads the mounts and the machine id once per process and folder: every
// route, the daemon and doctor ask it, so they cannot disagree.
func OwnManager(h home.Home) (string, error) {
	dir := h.InboxDir()
	if v, ok := owned.Load(dir); ok {
		m := v.(ownManager)
		return m.name, m.err
	}
	name, err := computeManager(dir)
	owned.Store(dir, ownManager{name, err})
	return name, err
}

var recordSeq atomic.Int64

// recordTemp writes the record to a fresh temp file beside it, flushed.
func recordTemp(h home.Home, own, id string) (string, error) {
	tmp := filepath.Join(h.Dir, ".inbox-lock-manager."+home.FileName(id)+"."+strconv.Itoa(os.Getpid())+"."+strconv.FormatInt(recordSeq.Add(1), 10))
	if err := home.WriteNew(tmp, []byte(own+"\n"+id+"\n"), (*os.File).Sync); err != nil {
		return "", fmt.Errorf("the inbox-lock-manager record could not be written (%v)", bareErr(err))
	}
	return tmp, nil
}

// createRecord publishes the record by link(2), which never replaces a name;
// won is false when another daemon's record was there first.
func createRecord(h home.Home, own, id string) (won bool, err error) {
	tmp, err := recordTemp(h, own, id)
	if err != nil {
		return false, err
	}
	won, err = home.LinkNew(tmp, h.LockManager())
	if err != nil {
		return false, fmt.Errorf("the inbox-lock-manager record %s could not be created (%v)", h.LockManager(), err)
	}
	if !won {
		return false, nil
	}
	return true, home.SyncDir(h.Dir)
}

func replaceRecord(h home.Home, own, id string) error {
	tmp, err := recordTemp(h, own, id)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, h.LockManager()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("the inbox-lock-manager record %s could not be replaced (%v)", h.LockManager(), bareErr(err))
	}
	return home.SyncDir(h.Dir)
}

// Matches is route 1's decision: a client appends itself only when the record's
// line 1 names its own manager own. why says, for a person, why it may not.
func Matches(h home.Home, own string) (ok bool, why string) {
	line1, _, found, err := ReadRecord(h.LockManager())
	switch {
	case err != nil:
		return false, err.Error()
	case !found:
		return false, "there is no inbox-lock-manager record in " + h.Dir + " (the hub has not started on this folder)"
	case own == NoManager || line1 == NoManager:
		return false, "a bare none manager (no machine id) never matches"
	case line1 != own:
		return false, fmt.Sprintf("the inbox lock manager recorded for %s is %q, and this box's is %q", h.Dir, line1, own)
	}
	return true, ""
}
