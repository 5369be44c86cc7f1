package page

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
)

// The page's conversations are read from this home's inboxes only: a body
// never leaves the box that files it, so a conversation with another box's
// handle shows the lines filed here (to this box's handles), and that box's
// page shows the rest. An inbox is read from its end back, and only its last
// tailLines lines: an inbox may hold a million. An inbox is read again when
// the inbox watch (filer.WatchInboxes) saw an append to it or the page's watch
// saw its inbox or cursor move (lookMail), never on a timer of its own; its
// own service ("page conversations") reads them, so a burst of mail does not
// make the page's watch look at everything else again.

const (
	// tailLines is how many of an inbox's last lines are read for its
	// conversations; a conversation none of whose lines are among them is
	// not shown (sotd log reads whole inboxes).
	tailLines = 500
	// shownText is the most of a body the page is sent: the page is a
	// view, and a conversation's lines must fit one frame.
	shownText = 1 << 10
	// shownConversations is how many of the newest conversations a snapshot
	// carries at most, and snapshotText the most their bodies may take once
	// encoded (an escaped character takes six bytes), so that the snapshot
	// fits one frame (wire.MaxFrame) with the rest of the view.
	shownConversations = 40
	snapshotText       = 512 << 10
)

// convoBook is the conversations of this home's inboxes and the per-minute
// counts of lines filed into them, kept in memory so a snapshot reads no file.
// Lines are counted by sender and summed by box when a rate is published: a
// sender that joined a moment before its first line may not be in the page's
// view yet when the line is counted, and its lines must move to its box's
// chart once it is (regroup).
type convoBook struct {
	bus   *events.Bus
	now   func() time.Time
	boxOf func(handle string) string // takes the page view's lock: never called with mu held

	pub  sync.Mutex    // a look and its events are one step (see Page.pub)
	kick chan struct{} // a touch asks run to look; one pending kick covers every touch before it

	mu     sync.Mutex
	dirty  map[string]bool // inboxes to read again at the next look
	all    bool            // every inbox is to be read again
	inbox  map[string]inboxTail
	convos map[string]web.Conversation // by key, as last published
	rates  map[string]map[int64]int    // sender → Unix minute → lines
	// regroup asks the next look to publish every box's rate: a sender's
	// box as the page knows it changed.
	regroup bool
	shown   map[string]bool // boxes whose last published rate had lines; only look touches it
}

// inboxTail is what one inbox's last lines hold: the last ConversationLines
// from each sender, and where its last line started, so a later read knows
// which lines are new.
type inboxTail struct {
	from   map[string][]filer.Receipt // oldest first
	lastAt int64
}

// newConvoBook is a book whose first look reads every inbox; boxOf names the
// box a sender sits on.
func newConvoBook(bus *events.Bus, now func() time.Time, boxOf func(string) string) *convoBook {
	c := &convoBook{bus: bus, now: now, boxOf: boxOf, kick: make(chan struct{}, 1), dirty: map[string]bool{}, all: true, inbox: map[string]inboxTail{}, convos: map[string]web.Conversation{}, rates: map[string]map[int64]int{}, shown: map[string]bool{}}
	c.kick <- struct{}{}
	return c
}

// touch marks handle's inbox to be read at the next look, and asks run for
// one; "" marks every one.
func (c *convoBook) touch(handle string) {
	c.mu.Lock()
	if handle == "" {
		c.all = true
	} else {
		c.dirty[handle] = true
	}
	c.mu.Unlock()
	c.poke()
}

// regroupRates asks for a look that publishes every box's rate: a sender
// joined, left or moved box in the page's view.
func (c *convoBook) regroupRates() {
	c.mu.Lock()
	c.regroup = true
	c.mu.Unlock()
	c.poke()
}

func (c *convoBook) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// InboxMoved tells the page a line was appended to handle's inbox by any
// process, "" when which is not known: its conversations are read again.
func (v *Page) InboxMoved(handle string) { v.convos.touch(handle) }

// Conversations reads this home's conversations again whenever an inbox
// moved (InboxMoved, or the watch's look at the inboxes), until ctx ends.
func (v *Page) Conversations(ctx context.Context, f *filer.Filer) error {
	return v.convos.run(ctx, f, v.cfg.Log)
}

// lookGap is the least time between two looks: a burst of filings is read
// once, not once per line.
const lookGap = 100 * time.Millisecond

// run looks whenever an inbox was touched, until ctx ends.
func (c *convoBook) run(ctx context.Context, f *filer.Filer, log *slog.Logger) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.kick:
		}
		if err := c.look(f); err != nil {
			log.Debug("the page's conversations were not updated", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(lookGap):
		}
	}
}

// look reads again the inboxes touched since the last look and publishes each
// conversation and rate that moved.
func (c *convoBook) look(f *filer.Filer) error {
	c.pub.Lock()
	defer c.pub.Unlock()
	c.mu.Lock()
	todo := c.dirty
	c.dirty = map[string]bool{}
	all := c.all
	c.all = false
	if all {
		for h := range c.inbox {
			todo[h] = true // an inbox that went is read as empty
		}
	}
	c.mu.Unlock()
	if all {
		hs, err := f.Inboxes()
		if err != nil {
			c.mu.Lock()
			c.all = true // listed again at the next look
			c.mu.Unlock()
			return err
		}
		for _, h := range hs {
			todo[h] = true
		}
	}
	read := make(map[string][]filer.Receipt, len(todo))
	var failed []error
	for h := range todo {
		var lines []filer.Receipt
		if f.Has(h) {
			var err error
			if lines, err = f.Last(h, tailLines, nil); err != nil {
				// Its conversations stay as last read until the inbox or its
				// cursor moves again: the page is a view, the inbox the truth.
				failed = append(failed, err)
				continue
			}
		}
		read[h] = lines
	}
	c.mu.Lock()
	keys := map[string]bool{}
	moved := map[string]bool{} // senders with a line newly counted
	for h, lines := range read {
		old, t := c.inbox[h], tailOf(lines)
		for from := range old.from {
			keys[pairKey(from, h)] = true
		}
		for from := range t.from {
			keys[pairKey(from, h)] = true
		}
		// A line is counted once, when a look first sees it; the first look
		// at an inbox counts its tail's lines of the chart's span.
		for _, l := range lines {
			if old.from == nil || l.At > old.lastAt {
				if c.count(l.From, l.TS) {
					moved[l.From] = true
				}
			}
		}
		if len(t.from) == 0 {
			delete(c.inbox, h)
		} else {
			c.inbox[h] = t
		}
	}
	c.prune()
	var changed []web.Conversation
	for k := range keys {
		conv := c.conversationLocked(k)
		if !sameConversation(conv, c.convos[k]) {
			changed = append(changed, conv)
			if len(conv.Lines) == 0 {
				delete(c.convos, k)
			} else {
				c.convos[k] = conv
			}
		}
	}
	regroup := c.regroup
	c.regroup = false
	c.mu.Unlock()
	slices.SortFunc(changed, func(a, b web.Conversation) int { return -cmp.Compare(newest(a), newest(b)) })
	for _, conv := range changed {
		c.bus.Publish(web.EvConversation, conv)
	}
	c.publishRates(moved, regroup)
	return errors.Join(failed...)
}

// publishRates publishes the rate of each box a sender in moved sits on, or of
// every box when regroup, including a box whose lines all went to another.
func (c *convoBook) publishRates(moved map[string]bool, regroup bool) {
	if len(moved) == 0 && !regroup {
		return // most looks (a read, a cursor move) count no new line
	}
	all := c.boxRates()
	boxes := map[string]bool{}
	for from := range moved {
		boxes[c.boxOf(from)] = true
	}
	if regroup {
		maps.Copy(boxes, c.shown)
		for box := range all {
			boxes[box] = true
		}
	}
	for _, box := range slices.Sorted(maps.Keys(boxes)) {
		r, ok := all[box]
		if !ok {
			r = web.MailRate{Box: box, Counts: []web.MinuteCount{}}
		}
		if ok {
			c.shown[box] = true
		} else {
			delete(c.shown, box)
		}
		c.bus.Publish(web.EvMailRate, r)
	}
}

// tailOf keeps an inbox's last ConversationLines from each sender.
func tailOf(lines []filer.Receipt) inboxTail {
	t := inboxTail{from: map[string][]filer.Receipt{}, lastAt: -1}
	for _, l := range lines {
		t.from[l.From] = append(t.from[l.From], l)
		t.lastAt = max(t.lastAt, l.At)
	}
	for from, ls := range t.from {
		if len(ls) > web.ConversationLines {
			t.from[from] = slices.Clip(ls[len(ls)-web.ConversationLines:])
		}
	}
	if len(t.from) == 0 {
		t.from = nil
	}
	return t
}

// count adds a line from sender filed at ts to its minute, if that minute is
// in the chart's span; true when it was.
func (c *convoBook) count(sender, ts string) bool {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return false
	}
	m := t.Unix() / 60
	if m <= c.now().Unix()/60-web.MailRateMinutes {
		return false
	}
	if c.rates[sender] == nil {
		c.rates[sender] = map[int64]int{}
	}
	c.rates[sender][m]++
	return true
}

// prune drops the minutes that left the chart's span.
func (c *convoBook) prune() {
	oldest := c.now().Unix()/60 - web.MailRateMinutes
	for sender, ms := range c.rates {
		maps.DeleteFunc(ms, func(m int64, _ int) bool { return m <= oldest })
		if len(ms) == 0 {
			delete(c.rates, sender)
		}
	}
}

// boxRates sums the senders' counts by the box each sits on now. It copies
// the counts under mu and names the boxes after: boxOf takes the page view's
// lock, and no lock is taken while mu is held.
func (c *convoBook) boxRates() map[string]web.MailRate {
	c.mu.Lock()
	bySender := make(map[string]map[int64]int, len(c.rates))
	for sender, ms := range c.rates {
		bySender[sender] = maps.Clone(ms)
	}
	c.mu.Unlock()
	byBox := map[string]map[int64]int{}
	for sender, ms := range bySender {
		box := c.boxOf(sender)
		if byBox[box] == nil {
			byBox[box] = map[int64]int{}
		}
		for m, n := range ms {
			byBox[box][m] += n
		}
	}
	out := make(map[string]web.MailRate, len(byBox))
	for box, ms := range byBox {
		r := web.MailRate{Box: box, Counts: []web.MinuteCount{}}
		for _, m := range slices.Sorted(maps.Keys(ms)) {
			r.Counts = append(r.Counts, web.MinuteCount{Minute: m, N: ms[m]})
		}
		out[box] = r
	}
	return out
}

// conversationLocked gathers the pair key names from both handles' inboxes,
// as far as this home holds them: newest first, the last ConversationLines.
func (c *convoBook) conversationLocked(key string) web.Conversation {
	a, b, _ := strings.Cut(key, " ")
	conv := web.Conversation{Key: key, Handles: [2]string{a, b}, Lines: []web.MailLine{}}
	for _, side := range [][2]string{{a, b}, {b, a}} { // {receiver, sender}
		for _, l := range c.inbox[side[0]].from[side[1]] {
			conv.Lines = append(conv.Lines, shownLine(l))
		}
	}
	slices.SortStableFunc(conv.Lines, newerFirst)
	if len(conv.Lines) > web.ConversationLines {
		conv.Lines = conv.Lines[:web.ConversationLines]
	}
	return conv
}

// snapshot is the newest shownConversations conversations, newest first, and
// every box's rate.
func (c *convoBook) snapshot() ([]web.Conversation, []web.MailRate) {
	c.mu.Lock()
	convs := slices.Collect(maps.Values(c.convos))
	slices.SortFunc(convs, func(a, b web.Conversation) int {
		return cmp.Or(-cmp.Compare(newest(a), newest(b)), cmp.Compare(a.Key, b.Key))
	})
	budget, n := snapshotText, 0
	for n < min(len(convs), shownConversations) {
		if budget -= encodedCost(convs[n]); budget < 0 {
			break
		}
		n++
	}
	convs = slices.Clip(convs[:n])
	c.mu.Unlock()
	all := c.boxRates()
	rates := []web.MailRate{}
	for _, box := range slices.Sorted(maps.Keys(all)) {
		rates = append(rates, all[box])
	}
	return convs, rates
}

// encodedCost bounds what a conversation's lines take encoded: six bytes for
// each byte of a body, as if every one were escaped, and a line's worth of
// names, stamps and ids.
func encodedCost(c web.Conversation) int {
	n := 0
	for _, l := range c.Lines {
		n += 6*len(l.Msg) + 512
	}
	return n
}

// pairKey names the conversation of two handles, whichever wrote.
func pairKey(x, y string) string {
	if y < x {
		x, y = y, x
	}
	return x + " " + y
}

// shownLine is a filed line as the page shows it, its body cut to shownText
// on a rune's edge.
func shownLine(l filer.Receipt) web.MailLine {
	msg := l.Msg
	if len(msg) > shownText {
		cut := shownText
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "… (cut; sotd log shows it whole)"
	}
	return web.MailLine{ID: l.ID, From: l.From, To: l.To, Msg: msg, TS: l.TS, InReplyTo: l.InReplyTo, Read: l.Read}
}

// stampOrder sorts filed stamps by time: writers stamp by their own clocks in
// more than one precision, so the text alone does not order them.
func stampOrder(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

// newerFirst orders two lines newest first: by their stamps, which are
// whole seconds, then within a second by their message ids, which sotd mints
// in millisecond order (mail.NewID); an id of another shape, or none, keeps
// the lines in the order they were gathered.
func newerFirst(x, y web.MailLine) int {
	if c := cmp.Compare(stampOrder(y.TS), stampOrder(x.TS)); c != 0 {
		return c
	}
	if mail.IsID(x.ID) && mail.IsID(y.ID) {
		return cmp.Compare(strings.ToUpper(y.ID), strings.ToUpper(x.ID))
	}
	return 0
}

func newest(c web.Conversation) int64 {
	if len(c.Lines) == 0 {
		return 0
	}
	return stampOrder(c.Lines[0].TS)
}

func sameConversation(a, b web.Conversation) bool {
	return len(a.Lines) == 0 && len(b.Lines) == 0 || a.Key == b.Key && slices.Equal(a.Lines, b.Lines)
}

// boxOf names the box handle sits on as the page knows it: this box's
// registry, the network view, a page sender's own box; "" when none knows.
func (v *Page) boxOf(handle string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.entries[handle]; ok {
		return cmp.Or(e.Host, v.host)
	}
	if e, ok := v.remote[handle]; ok {
		return e.Box
	}
	box, _ := strings.CutPrefix(handle, Sender(""))
	if box == handle {
		return ""
	}
	return box
}
