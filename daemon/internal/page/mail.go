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
func (v *Page) lookMail(f *filer.Filer, counted map[string]mailCount) {
	hs := v.handles()
	listed := make(map[string]bool, len(hs))
	for _, h := range hs {
		listed[h] = true
	}
	for h := range counted {
		if !listed[h] {
			delete(counted, h) // a handle that joins again is counted again
		}
	}
	for _, h := range hs {
		now, ok := v.mailStampOf(h)
		old, seen := counted[h]
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
}

func (v *Page) mailStampOf(handle string) (mailStamp, bool) {
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
