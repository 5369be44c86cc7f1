package mail

import (
	"sort"
	"unicode/utf8"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// Receipts is a sender's view of one home, the one the client shows alone and
// every daemon adds to comm.receipts: the last req.PerReceiver() lines req.From
// filed into each inbox h holds (req.To's alone, or that of every handle its
// registry lists but the sender's), as box's receipts, each message cut to
// wire.ReceiptMsg bytes.
func Receipts(h home.Home, box string, req wire.CommReceipts) ([]wire.Receipt, error) {
	from, to := req.From, req.To
	if err := home.CheckHandle(from); err != nil {
		return nil, wire.Refuse(wire.CodeBadHandle, "the sender is %v", err)
	}
	targets := []string{to}
	if to == "" {
		d, err := registry.Read(h)
		if err != nil {
			return nil, wire.Refuse(wire.CodeUnreadable, "the registry could not be read (%v)", err)
		}
		targets = targets[:0]
		for name := range d.Agents {
			if name != from {
				targets = append(targets, name)
			}
		}
		sort.Strings(targets)
	} else if err := home.CheckHandle(to); err != nil {
		return nil, wire.Refuse(wire.CodeBadHandle, "%v", err)
	}
	f := filer.New(h)
	var out []wire.Receipt
	for _, name := range targets {
		rs, err := f.Receipts(name, from, req.PerReceiver())
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			msg, cut := cutText(r.Msg, wire.ReceiptMsg)
			// A broadcast copy is filed with an empty to: the inbox names it.
			out = append(out, wire.Receipt{To: name, Msg: msg, TS: r.TS, ID: r.ID, Read: r.Read, Box: box, Cut: cut})
		}
	}
	return out, nil
}

// cutText is s's first n bytes or fewer, never splitting a character.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
