package client

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// SentMax is how many recent lines per receiver `sotd sent` shows.
const SentMax = wire.ReceiptsDefault

// sentWait bounds the daemon's answer to comm.receipts: the hub's bound on
// its boxes, a guest's hop to its hub, and a margin, all under the 5 s a
// person waits.
const sentWait = wire.ReceiptsWait + 2*time.Second

// Sent shows the lines this session sent recently (to @to, or to anyone) and
// whether each has been read: the receiver's cursor is past it. This box's
// daemon asks every box it reaches (comm.receipts); with no daemon answering,
// only this home's inboxes are read, and stderr says other boxes were not asked.
func (s *Session) Sent(to string, asJSON bool) int {
	me, err := s.Me()
	if err != nil {
		s.out("FAILED: %v; nothing was listed", err)
		return ExitFailed
	}
	if to != "" {
		if err := home.CheckHandle(to); err != nil {
			s.out("FAILED: %v; nothing was listed", err)
			return ExitFailed
		}
	}
	req := wire.CommReceipts{From: me, To: to, Max: SentMax}
	var list wire.ReceiptList
	asked := "no box holds"
	if err := s.callDaemonWithin(sentWait, wire.OpCommReceipts, req, &list); err != nil {
		own, lerr := mail.Receipts(s.Home, s.Host, req)
		if lerr != nil {
			s.out("FAILED: %v; nothing was listed", lerr)
			return ExitFailed
		}
		s.warn("sotd: %v; only this home's inboxes are shown, and other boxes were not asked", err)
		list = wire.ReceiptList{Receipts: own}
		asked = "no inbox in this home holds"
	}
	if to != "" && len(list.Receipts) == 0 && len(list.Unanswered) == 0 && !s.listed(to) {
		s.out("FAILED: @%s is an unknown handle: this box's registry does not list it and %s a line @%s sent to it; sotd list shows the handles", to, asked, me)
		return ExitFailed
	}
	notes := s.Stdout
	if asJSON {
		notes = s.Stderr
		if list.Receipts == nil {
			list.Receipts = []wire.Receipt{}
		}
		b, _ := json.Marshal(list.Receipts)
		s.out("%s", b)
	} else {
		s.showReceipts(me, list.Receipts)
	}
	sentNotes(notes, list)
	return ExitOK
}

// listed reports whether this home's registry lists handle; an unreadable
// registry counts as listing it, so nothing is called unknown on a guess.
func (s *Session) listed(handle string) bool {
	_, ok, err := s.Lookup(handle)
	return ok || err != nil
}

// showReceipts prints one line per receipt, with a box column only when more
// than one box holds them. Every field is escaped (shown): a receipt is another
// box's answer.
func (s *Session) showReceipts(me string, rs []wire.Receipt) {
	if len(rs) == 0 {
		s.out("@%s has sent nothing that an inbox here still holds", me)
		return
	}
	boxes := map[string]bool{}
	for _, r := range rs {
		boxes[r.Box] = true
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
	boxCol := ""
	if len(boxes) > 1 {
		boxCol = "BOX\t"
	}
	fmt.Fprintf(tw, "TO\t%sFILED\tSTATE\tMESSAGE\n", boxCol)
	for _, r := range rs {
		state := "unread"
		if r.Read {
			state = "read"
		}
		box := ""
		if len(boxes) > 1 {
			box = shown(r.Box) + "\t"
		}
		fmt.Fprintf(tw, "@%s\t%s%s\t%s\t%s\n", shown(r.To), box, shown(r.TS), state, shown(summary(r.Msg)))
	}
	tw.Flush()
}

// sentNotes says what the view lacks: boxes that gave no answer, and old lines
// left out to keep the answer within one frame.
func sentNotes(w io.Writer, list wire.ReceiptList) {
	if len(list.Unanswered) > 0 {
		fmt.Fprintf(w, "note: no answer from %s; lines filed on %s are not shown\n", printable(strings.Join(list.Unanswered, ", "), false), plural(len(list.Unanswered), "that box", "those boxes"))
	}
	if list.Omitted > 0 {
		fmt.Fprintf(w, "note: %d older %s left out to keep the answer within its size; sotd sent @handle shows one receiver's\n", list.Omitted, plural(list.Omitted, "line was", "lines were"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// summary is a message's first line, cut to 60 characters.
func summary(msg string) string {
	line, _, cut := strings.Cut(msg, "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:60]) + "…"
	} else if cut {
		return line + " …"
	}
	return line
}
