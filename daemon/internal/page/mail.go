package page

import (
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
)

// mailStamp is how a handle's inbox and read cursor looked when its unread
// lines were counted: nothing else moves the count.
type mailStamp struct{ inbox, cursor home.Stamp }

func (m mailStamp) same(o mailStamp) bool { return m.inbox.Same(o.inbox) && m.cursor.Same(o.cursor) }

// mailCount is a handle's count as last published, and the files as they
// looked when it was made.
type mailCount struct {
	stamp mailStamp
	tally filer.Tally
}

// lookMail publishes the unread count of each agent whose inbox or cursor moved
// since it was last counted (counted holds those counts). The files are the
// only witness: a client on this box appends and polls without the daemon (the
// protocol's route 1), so the daemon's own filings are a part of what moves them.
// A count goes on from the last one (filer.Recount), so an inbox that only grew
// costs the reading of what it grew by.
//
// The inbox folder is listed once per look, and only the handles with an
// inbox there have their files looked at: a look then costs a read of the
// folder and two looks per inbox, not two per registry entry (most entries
// of a large registry have never been mailed).
func (v *Page) lookMail(f *filer.Filer, counted map[string]mailCount) {
	hs := v.handles()
	inboxes, listed := inboxSet(f)
	before, kept := len(counted), 0
	for _, h := range hs {
		now, ok := v.mailStampOf(h, inboxes, listed)
		old, seen := counted[h]
		if seen {
			kept++
		}
		if !ok || seen && old.stamp.same(now) {
			continue
		}
		v.convos.touch(h) // a line filed or read: its conversations moved
		var t filer.Tally
		if !now.inbox.Absent() {
			// Reading an inbox that does not exist would leave a lock file
			// behind for a handle that was never mailed.
			var err error
			if t, err = f.Recount(h, old.tally); err != nil {
				v.cfg.Log.Debug("the page's unread count was not updated", "handle", h, "err", err)
				continue // counted again at the next look; the page is a view and the inbox the truth
			}
		}
		v.setUnread(h, t.N)
		counted[h] = mailCount{now, t}
	}
	if kept < before {
		// Some handle counted before has left the registry (a look where none
		// has, the usual one, builds no set of every handle).
		forget(counted, hs)
	}
}

// forget drops from counted each handle hs does not list: a handle that joins
// again is counted again.
func forget(counted map[string]mailCount, hs []string) {
	known := make(map[string]bool, len(hs))
	for _, h := range hs {
		known[h] = true
	}
	for h := range counted {
		if !known[h] {
			delete(counted, h)
		}
	}
}

// mailStampOf is how handle's inbox and cursor look now. With listed, inboxes
// are the inbox folder's names as just listed, and a handle whose inbox is not
// among them has no mail: its stamp is absent, its cursor unlooked at (with no
// inbox, a cursor counts nothing). An inbox made since the listing is seen at
// the next look, as one made just after a look of its own file would be.
func (v *Page) mailStampOf(handle string, inboxes map[string]bool, listed bool) (mailStamp, bool) {
	if listed && !inboxes[handle] {
		return mailStamp{}, home.CheckHandle(handle) == nil
	}
	inbox, err := v.cfg.Home.HandlePath(home.Inbox, handle)
	if err != nil {
		return mailStamp{}, false
	}
	cursor, err := v.cfg.Home.HandlePath(home.Cursor, handle)
	if err != nil {
		return mailStamp{}, false
	}
	return mailStamp{home.StampOf(inbox), home.StampOf(cursor)}, true
}

// inboxSet is the handles whose inbox the inbox folder holds
// (filer.Inboxes); false when it could not be listed (then every handle's
// files are looked at, as if each might hold an inbox).
func inboxSet(f *filer.Filer) (map[string]bool, bool) {
	hs, err := f.Inboxes()
	if err != nil {
		return nil, false
	}
	set := make(map[string]bool, len(hs))
	for _, h := range hs {
		set[h] = true
	}
	return set, true
}
