package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// keyMax bounds a session key: an agent's session id is a UUID, far shorter.
const keyMax = 64

// sessionKey reduces an agent's session id to the bytes a file name may hold.
func sessionKey(id string) string {
	if id == "" {
		return "nosession"
	}
	return registry.Sanitize(id, keyMax)
}

// state is one session's Stop-hook files (see the package doc).
type state struct {
	dir string
	key string
	h   home.Home
}

func newState(h home.Home, sessionID string) state {
	return state{dir: h.StateDir(), key: sessionKey(sessionID), h: h}
}

func (st state) mailTick() string     { return filepath.Join(st.dir, "mail-"+st.key+".tick") }
func (st state) feedbackFile() string { return filepath.Join(st.dir, "stop-feedback-"+st.key+".jsonl") }

func (st state) lockFaultTick(handle string) (string, error) {
	stem, err := st.h.HandlePath(home.LockFaultTick, handle)
	if err != nil {
		return "", err
	}
	return stem + "." + st.key + ".tick", nil
}

// maxState bounds the read of a tick: a cursor, or one fault's sentence.
const maxState = 64 << 10

// maxFeedback bounds the read of the feedback file: a line per block given
// while a tool fault lasts, far fewer than this holds.
const maxFeedback = 4 << 20

// blockedOn is the inbox position the last mail block was given for; a tick that
// is missing or unreadable is no position, so the mail holds one turn end. A
// state file is read as every home file is: never through a symlink, never
// waiting on a FIFO.
func (st state) blockedOn() filer.Cursor {
	b, err := st.h.ReadFile(st.mailTick(), maxState)
	if err != nil {
		return filer.Cursor{}
	}
	c, err := filer.ParseCursor(string(b))
	if err != nil {
		return filer.Cursor{}
	}
	return c
}

// announce records at as the batch announced, unless it already is: the one
// record the Stop hook's hold and the rewake waiter share, so one batch is
// announced once between them. Fresh is false when at was already recorded; err
// is a fault reading or writing the record, and then fresh still says whether
// the batch looked new. The read and the write are one step under the tick's
// lock, so a Stop hook and a waiter that find one batch together announce it
// once. A lock not had within tickLockWait is passed over: the worst that
// follows is the same batch announced twice, never one not announced.
func (st state) announce(at filer.Cursor) (fresh bool, err error) {
	if at == st.blockedOn() {
		return false, nil
	}
	if err := home.MkdirPrivate(st.dir); err != nil {
		return true, err
	}
	lk := flock.New(st.mailTick() + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), tickLockWait)
	defer cancel()
	if ok, _ := lk.TryLockContext(ctx, tickLockPoll); ok {
		defer lk.Unlock()
		if at == st.blockedOn() {
			return false, nil
		}
	}
	return true, st.write(st.mailTick(), []byte(at.String()+"\n"))
}

// The tick lock is held for one small read and write: a wait past a second
// means its holder is stuck.
const (
	tickLockWait = time.Second
	tickLockPoll = 10 * time.Millisecond
)

// waitFile names the session's one rewake waiter (see Wait).
func (st state) waitFile() string { return filepath.Join(st.dir, "wait-"+st.key) }

// reminderTick is the batch the waiter last gave its one reminder for.
func (st state) reminderTick() string { return filepath.Join(st.dir, "remind-"+st.key+".tick") }

// announcedAt is when the batch in the mail tick was announced: the tick is
// written only then.
func (st state) announcedAt() (time.Time, bool) {
	fi, err := os.Stat(st.mailTick())
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// reminded is the batch the last reminder was for; the zero Cursor when none
// was given or the tick cannot be read.
func (st state) reminded() filer.Cursor {
	b, err := os.ReadFile(st.reminderTick())
	if err != nil {
		return filer.Cursor{}
	}
	c, err := filer.ParseCursor(string(b))
	if err != nil {
		return filer.Cursor{}
	}
	return c
}

func (st state) remind(at filer.Cursor) error {
	return st.write(st.reminderTick(), []byte(at.String()+"\n"))
}

// feedbackOpen reports whether a tool fault's episode is open: its block given.
func (st state) feedbackOpen() bool {
	fi, err := os.Stat(st.feedbackFile())
	return err == nil && fi.Size() > 0
}

// feedback adds one block given while a tool fault lasts.
func (st state) feedback(at time.Time, reason string) error {
	line, err := json.Marshal(struct {
		At     string `json:"at"`
		Reason string `json:"reason"`
	}{registry.Stamp(at), reason})
	if err != nil {
		return err
	}
	old, err := st.h.ReadFile(st.feedbackFile(), maxFeedback)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return st.write(st.feedbackFile(), append(old, append(line, '\n')...))
}

// toldLockFault reports whether fault was already told for handle.
func (st state) toldLockFault(handle, fault string) bool {
	p, err := st.lockFaultTick(handle)
	if err != nil {
		return false
	}
	b, err := st.h.ReadFile(p, maxState)
	return err == nil && bytes.Equal(bytes.TrimSuffix(b, []byte("\n")), []byte(oneLine(fault)))
}

func (st state) tellLockFault(handle, fault string) error {
	p, err := st.lockFaultTick(handle)
	if err != nil {
		return err
	}
	return st.write(p, []byte(oneLine(fault)+"\n"))
}

// beatFile is the heartbeat's record (see PostTool).
func (st state) beatFile() string { return filepath.Join(st.dir, "beat-"+st.key) }

// lastBeat is the heartbeat's record; false when there is none that decodes.
func (st state) lastBeat() (beat, bool) {
	var b beat
	raw, err := st.h.ReadFile(st.beatFile(), maxState)
	if err != nil || json.Unmarshal(raw, &b) != nil || b.Handle == "" {
		return beat{}, false
	}
	return b, true
}

// noteBeat records b, best effort and unflushed: a record lost in a crash
// costs the next heartbeat the read it would have spared, and a whole one is
// still true, only older.
func (st state) noteBeat(b beat) {
	raw, err := json.Marshal(b)
	if err != nil || home.MkdirPrivate(st.dir) != nil {
		return
	}
	_ = home.WriteUnflushed(st.beatFile(), raw)
}

// clear ends an episode: the file is removed; one already gone is no error.
func (st state) clear(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (st state) write(path string, b []byte) error {
	if err := home.MkdirPrivate(st.dir); err != nil {
		return err
	}
	return home.WriteAtomic(path, b)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
