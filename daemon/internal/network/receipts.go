package network

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sotcomm/sotd/hub"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// maxReceiptAsks bounds the boxes one comm.receipts asks at once.
const maxReceiptAsks = 16

// Receipts answers comm.receipts: a sender's receipts across the boxes this daemon reaches:
// its own home's, then, by role, the hub's (a guest's request that was not
// forwarded) or every other linked box's (on the hub; asker, the box that
// asked over a link, is not asked back). The home's own answer comes first, so
// a refused request (a bad handle, an unreadable registry) asks no one.
func (n *Network) Receipts(ctx context.Context, asker *link.Conn, req wire.CommReceipts) (wire.ReceiptList, error) {
	own, err := mail.Receipts(n.home, n.self, req)
	if err != nil {
		return wire.ReceiptList{}, wire.AsRefusal(err)
	}
	parts := []wire.ReceiptList{{Receipts: own}}
	parts = append(parts, n.askReceipts(ctx, asker, req)...)
	return mergeReceipts(parts, req.PerReceiver()), nil
}

// receipts answers a comm.receipts that came over a link. Like comm.file, it
// arrived forwarded, so a guest asks no one on.
func (n *Network) receipts(ctx context.Context, asker *link.Conn, payload json.RawMessage) (any, error) {
	var req wire.CommReceipts
	if err := wire.DecodePayload(payload, &req); err != nil {
		return nil, &wire.Refusal{Op: wire.OpCommReceipts, Code: wire.CodeBadRequest, Sentence: err.Error()}
	}
	if err := n.mayActFor(ctx, asker, req.From); err != nil {
		return nil, err
	}
	req.Forwarded = true
	res, err := n.Receipts(ctx, asker, req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// askReceipts asks the boxes this daemon's role reaches, one answer each.
func (n *Network) askReceipts(ctx context.Context, asker *link.Conn, req wire.CommReceipts) []wire.ReceiptList {
	switch {
	case asker != nil && !n.serves(asker):
		return nil // a hub asked over this box's link to it: it asks the others itself
	case n.router != nil:
		var skip hub.Peer
		if asker != nil {
			skip = asker
		}
		peers := n.router.Peers(skip)
		slices.SortFunc(peers, func(a, b hub.Peer) int { return strings.Compare(a.Box(), b.Box()) })
		parts := n.askAll(ctx, peers, req, wire.ReceiptsWait)
		var missing []string
		for _, b := range n.router.NotLinked() {
			if asker == nil || b != asker.Box() {
				missing = append(missing, b)
			}
		}
		return append(parts, wire.ReceiptList{Unanswered: missing})
	case len(n.hubs) > 0 && !req.Forwarded:
		order := n.hubOrder("")
		if len(order) == 0 {
			return []wire.ReceiptList{{Unanswered: n.hubNames()}}
		}
		c := order[0].Conn()
		if c == nil {
			return []wire.ReceiptList{{Unanswered: []string{order[0].name}}}
		}
		// The hub's own bound on its boxes, and the hop back.
		return n.askAll(ctx, []hub.Peer{c}, req, wire.ReceiptsWait+forwardGrace)
	}
	return nil
}

// askAll asks every peer, at most maxReceiptAsks at once, all within wait; a
// box that refuses, or has not been asked or answered by then, is named
// unanswered.
func (n *Network) askAll(ctx context.Context, peers []hub.Peer, req wire.CommReceipts, wait time.Duration) []wire.ReceiptList {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	req.Forwarded = true
	out := make([]wire.ReceiptList, len(peers))
	var asks errgroup.Group
	asks.SetLimit(maxReceiptAsks)
	for i, p := range peers {
		asks.Go(func() error {
			if ctx.Err() != nil {
				out[i] = wire.ReceiptList{Unanswered: []string{p.Box()}}
				return nil
			}
			out[i] = n.askOne(ctx, p, req)
			return nil
		})
	}
	asks.Wait()
	return out
}

func (n *Network) askOne(ctx context.Context, p hub.Peer, req wire.CommReceipts) wire.ReceiptList {
	var res wire.ReceiptList
	if err := p.Call(ctx, wire.OpCommReceipts, req, &res); err != nil {
		n.log.Info("a box gave no receipts", "box", p.Box(), "from", req.From, "err", err)
		return wire.ReceiptList{Unanswered: []string{p.Box()}}
	}
	if c, ok := p.(*link.Conn); n.router == nil || ok && n.hubLinkOf(c) != nil { // a box asks a hub, whose answer names each line's box
		for i := range res.Receipts {
			if res.Receipts[i].Box == "" {
				res.Receipts[i].Box = p.Box()
			}
		}
		return res
	}
	if dropped := n.ownReceipts(p, &res); dropped > 0 {
		n.log.Warn("a box answered receipts for lines to handles it does not hold; they were dropped", "box", p.Box(), "from", req.From, "dropped", dropped)
	}
	return res
}

// ownReceipts keeps, of a linked box's answer, only the lines in inboxes that
// box holds now, each under that box's name, and returns how many it dropped.
// A box reads only its own inboxes, so any other receipt is made up: a "read"
// for a line another box holds, or a newer line that pushes a real one out of
// the last max per receiver.
func (n *Network) ownReceipts(p hub.Peer, res *wire.ReceiptList) (dropped int) {
	kept := res.Receipts[:0]
	for _, r := range res.Receipts {
		if n.router.Holder(r.To) != p.Box() {
			dropped++
			continue
		}
		r.Box = p.Box()
		kept = append(kept, r)
	}
	res.Receipts = kept
	return dropped
}

// mergeReceipts joins the boxes' answers, the first part (this home's) first:
// each line once, by its message id in its inbox, or, for a line filed with
// none, by its time and text (boxes sharing a home see one inbox); by receiver
// then time, the last max per receiver; then held to wire.ReceiptsBudget.
func mergeReceipts(parts []wire.ReceiptList, max int) wire.ReceiptList {
	type key struct{ to, id, ts, msg string }
	seen := map[key]bool{}
	var res wire.ReceiptList
	for _, p := range parts {
		for _, r := range p.Receipts {
			k := key{to: r.To, id: r.ID}
			if r.ID == "" {
				k.ts, k.msg = r.TS, r.Msg
			}
			if !seen[k] {
				seen[k] = true
				res.Receipts = append(res.Receipts, r)
			}
		}
		res.Unanswered = append(res.Unanswered, p.Unanswered...)
		res.Omitted += p.Omitted
	}
	slices.Sort(res.Unanswered)
	res.Unanswered = slices.Compact(res.Unanswered)
	slices.SortStableFunc(res.Receipts, func(a, b wire.Receipt) int {
		if c := strings.Compare(a.To, b.To); c != 0 {
			return c
		}
		return strings.Compare(a.TS, b.TS)
	})
	res.Receipts = lastPerReceiver(res.Receipts, max)
	var over int
	res.Receipts, over = fitBudget(res.Receipts, wire.ReceiptsBudget)
	res.Omitted += over
	return res
}

// lastPerReceiver keeps the last max receipts of each receiver, in order.
func lastPerReceiver(rs []wire.Receipt, max int) []wire.Receipt {
	left := map[string]int{} // receipts of each receiver from here on
	for _, r := range rs {
		left[r.To]++
	}
	out := rs[:0]
	for _, r := range rs {
		if left[r.To] <= max {
			out = append(out, r)
		}
		left[r.To]--
	}
	return out
}

// fitBudget keeps, in their order, the newest receipts whose JSON together
// fits within budget bytes, and counts the older ones left out.
func fitBudget(rs []wire.Receipt, budget int) ([]wire.Receipt, int) {
	size := make([]int, len(rs))
	total := 0
	for i, r := range rs {
		b, _ := json.Marshal(r)
		size[i] = len(b) + 1 // its comma
		total += size[i]
	}
	if total <= budget {
		return rs, 0
	}
	byAge := make([]int, len(rs))
	for i := range byAge {
		byAge[i] = i
	}
	slices.SortStableFunc(byAge, func(a, b int) int { return strings.Compare(rs[b].TS, rs[a].TS) })
	keep := make([]bool, len(rs))
	for _, i := range byAge {
		if size[i] > budget {
			break
		}
		keep[i] = true
		budget -= size[i]
	}
	out := make([]wire.Receipt, 0, len(rs))
	for i, r := range rs {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out, len(rs) - len(out)
}
