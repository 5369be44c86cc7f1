// Package mail holds the rules every route applies before a line is filed, so the
// client's own append (route 1) and the daemon's comm.file refuse the same things
// with the same words: a receiver that is not a handle, one this home does not
// list, and one no live session holds.
package mail

import (
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// MaxText is the largest message body filed; the line around it must stay under
// the wire's 1 MiB frame.
const MaxText = 512 << 10

// CheckRequest refuses what no route may file: bad handles on either side, text
// that is too large, a message id or in_reply_to that is not an id, or a
// broadcast copy addressed to its own sender. A request that came over a
// socket or a link was bounded as it was decoded; route 1's is bounded here.
func CheckRequest(r wire.CommFile) error {
	if err := home.CheckHandle(r.To); err != nil {
		return wire.Refuse(wire.CodeBadHandle, "%v", err)
	}
	if err := home.CheckHandle(r.From); err != nil {
		return wire.Refuse(wire.CodeBadHandle, "the sender is %v", err)
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if len(r.Text) > MaxText {
		return wire.Refuse(wire.CodeBadRequest, "the message is %d bytes, over the %d-byte limit; send a shorter one or split it", len(r.Text), MaxText)
	}
	return nil
}

// CheckReceiver applies the one liveness rule to to's entry in d: a handle this
// home does not list is not_here, one whose last_seen is stale is no_live_session.
func CheckReceiver(d *registry.Doc, to string, now time.Time) error {
	e, ok := d.Agents[to]
	if !ok {
		return wire.NoBoxKnows(to, nil)
	}
	if !registry.Live(e.LastSeen, now) {
		return wire.Refuse(wire.CodeNoLiveSession, "no live session holds @%s", to)
	}
	return nil
}

// Compose turns a request into the inbox line filed for it. A broadcast copy is
// filed with an empty to, so it is read at the next poll and never counted unread.
func Compose(r wire.CommFile, now time.Time) filer.Line {
	to := r.To
	if r.Broadcast {
		to = ""
	}
	return filer.Line{From: r.From, To: to, Repo: r.Repo, Msg: r.Text, TS: registry.Stamp(now), ID: r.ID, InReplyTo: r.InReplyTo}
}
