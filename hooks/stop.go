package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
)

// blockAnswer holds the turn: the agent goes on with Reason as its instruction.
type blockAnswer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// messageAnswer tells the person something without holding the turn.
type messageAnswer struct {
	SystemMessage string `json:"systemMessage"`
}

// errForeign stops the stop_at mark of a handle another row holds.
var errForeign = errors.New("another row holds the handle")

// Stop is `sotd hook stop`, the end-of-turn check of Claude Code and Codex. It
// stamps stop_at as it starts, so the wake types nothing while it runs, then
// counts this session's unread mail by the one rule. Unread mail holds the turn
// end with a block, once per batch: a turn end that finds the batch it already
// held for passes, so an agent that ignores a block is never held in a loop, and
// new mail holds it again. A turn end that passes writes `status stop`.
//
// A busy inbox is told to the person and holds nothing: the count is "try
// again", never 0 and never a reason to hold. A lock fault is named in every
// block. A tool fault, anything that keeps the check from knowing about the mail
// (the comm home, the self file, the registry or the inbox cannot be read),
// blocks once per episode with its reason, prefixes every later block, and ends
// at the first turn end without it. stop_hook_active, set when this stop
// follows a block, is honoured as the agents' docs ask: no fault blocks twice in
// one turn even where its episode could not be recorded. Only new mail can hold
// such a continuation, which the mail tick makes finite. Under Claude Code it
// gives no more blocks in a row than Claude Code's cap obeys (atBlockCap): past
// it the mail is left to the doorbell.
func Stop(r Run) int {
	in, err := r.read()
	if err != nil {
		r.note("sotd hook stop: %v; the turn was not held", err)
		return ExitFailed
	}
	if in.AgentID != "" {
		return ExitOK // a subagent neither reads mail nor is held for it
	}
	if r.onSharedServer("stop", true) {
		return ExitOK
	}
	if r.Session == nil {
		// No comm home, so no state to keep the episode in: stop_hook_active alone
		// keeps this to one block a turn.
		if !in.StopHookActive {
			r.answer(blockAnswer{"block", fmt.Sprintf("sotd: this session's mail cannot be read: %v. Then run comm-poll.sh (or sotd poll).", r.NoSession)})
		}
		return ExitOK
	}
	c := &stopCheck{Run: r, in: in, st: newState(r.Session.Home, in.SessionID), now: r.Session.Now()}
	if !c.look() {
		return ExitOK
	}
	c.decide()
	return ExitOK
}

// stopCheck is one run of the end-of-turn check.
type stopCheck struct {
	Run
	in     input
	st     state
	now    time.Time
	me     string
	faults []string // tool faults, in the order found
	lock   string   // an inbox lock fault: the count ran unlocked
	notes  []string // for the person: a busy inbox
	unread int
	last   filer.Cursor // the position of the last unread line
}

// look gathers the facts; false means this session acts as nobody, so nothing
// is held and nothing is written.
func (c *stopCheck) look() bool {
	s := c.Session
	me, err := s.Me()
	switch {
	case errors.Is(err, client.ErrNotJoined):
		return false
	case err != nil:
		c.faults = append(c.faults, fmt.Sprintf("sotd: this session's identity could not be read (%v), so its mail cannot be counted. Fix or remove the self file, then run sotd join.", err))
		return true
	}
	c.me = me
	err = registry.Mark(s.Home, me, registry.TouchWait, func(e *registry.Entry) error {
		if e.BoundElsewhere(s.Row) {
			return errForeign
		}
		e.StopAt = registry.Stamp(c.now)
		return nil
	})
	switch {
	case errors.Is(err, registry.ErrNoRow), errors.Is(err, errForeign):
		return false
	case errors.Is(err, registry.ErrUnreadable):
		c.faults = append(c.faults, fmt.Sprintf("sotd: %v, so @%s's turn ends are not stamped and its sends fail. If it stays unreadable, move registry.json aside by hand (the next sotd command makes an empty one), then run sotd join --name %s.", cause(err), me, me))
	case err != nil:
		c.note("sotd hook stop: stop_at for @%s not stamped: %v", me, err)
	}

	// Counted as read, keeping no line: an inbox may be large.
	u, err := filer.New(s.Home).LastUnread(me)
	switch {
	case errors.Is(err, filer.ErrBusy):
		c.notes = append(c.notes, fmt.Sprintf("sotd: the inbox for @%s was being written, so its mail was not counted (no turn is held for it); run comm-poll.sh (or sotd poll) to read it.", me))
	case err != nil:
		c.faults = append(c.faults, fmt.Sprintf("WARNING: the unread count for @%s failed (%v) — run comm-poll.sh (or sotd poll) to read your mail", me, err))
	default:
		c.lock = u.Fault
		c.unread, c.last = u.N, u.Last
	}
	return true
}

// decide holds the turn or lets it end.
func (c *stopCheck) decide() {
	c.endEpisodes()
	toolBlock := len(c.faults) > 0 && !c.st.feedbackOpen() && !c.in.StopHookActive
	mailBlock := false
	capped := c.unread > 0 && c.atBlockCap()
	if capped {
		c.note("sotd hook stop: this turn end was held %d times in a row, Claude Code's cap: the mail for @%s is left to the doorbell, which announces it once the turn has ended", c.st.blocks(), c.me)
	}
	if c.unread > 0 && !capped {
		var err error
		if mailBlock, err = c.st.announce(c.last); err != nil {
			// Unrecorded, the same batch would hold the next turn end too: inside a
			// continuation that could repeat, so there the mail is only told.
			c.note("sotd hook stop: the mail tick for @%s was not written: %v", c.me, err)
			if c.in.StopHookActive {
				mailBlock = false
				c.notes = append(c.notes, c.mailLine())
			}
		}
	}
	c.countBlock(toolBlock || mailBlock)
	if toolBlock || mailBlock {
		reason := c.reason()
		if len(c.faults) > 0 {
			if err := c.st.feedback(c.now, reason); err != nil {
				c.note("sotd hook stop: the fault's episode was not recorded: %v", err)
			}
		}
		c.answer(blockAnswer{"block", reason})
		return
	}
	c.pass()
}

// reason is a block's text: every tool fault, the lock fault, then the mail.
func (c *stopCheck) reason() string {
	lines := append([]string{}, c.faults...)
	if c.lock != "" {
		lines = append(lines, c.lockLine())
	}
	lines = append(lines, c.notes...)
	if c.unread > 0 {
		lines = append(lines, c.mailLine())
	}
	return strings.Join(lines, "\n")
}

func (c *stopCheck) mailLine() string {
	if c.unread == 1 {
		return fmt.Sprintf("[sot-comm] @%s has 1 unread message: run comm-poll.sh (or sotd poll) to read it before ending the turn.", c.me)
	}
	return fmt.Sprintf("[sot-comm] @%s has %d unread messages: run comm-poll.sh (or sotd poll) to read them before ending the turn.", c.me, c.unread)
}

func (c *stopCheck) lockLine() string {
	return fmt.Sprintf("WARNING: %s, so @%s's mail was counted unlocked; run comm-poll.sh (or sotd poll) to read your mail", c.lock, c.me)
}

// pass lets the turn end: a lock fault not yet told is told, and the turn end is
// stamped.
func (c *stopCheck) pass() {
	if c.me != "" {
		c.passLockFault()
		c.quiet().Status(registry.VerbStop, "", false, false)
	}
	if len(c.notes) > 0 {
		c.answer(messageAnswer{strings.Join(c.notes, "\n")})
	}
}

// endEpisodes closes the episodes this turn end found over: the tool faults'
// when there is none, the lock fault's when the count took the lock.
func (c *stopCheck) endEpisodes() {
	var errs []error
	if len(c.faults) == 0 {
		errs = append(errs, c.st.clear(c.st.feedbackFile()))
	}
	if c.me != "" && c.lock == "" {
		if p, err := c.st.lockFaultTick(c.me); err == nil {
			errs = append(errs, c.st.clear(p))
		}
	}
	if err := errors.Join(errs...); err != nil {
		c.note("sotd hook stop: %v", err)
	}
}

// passLockFault tells a lock fault once per episode when no block carried it.
func (c *stopCheck) passLockFault() {
	if c.lock == "" || c.st.toldLockFault(c.me, c.lock) {
		return
	}
	c.notes = append(c.notes, c.lockLine())
	if err := c.st.tellLockFault(c.me, c.lock); err != nil {
		c.note("sotd hook stop: %v", err)
	}
}

// cause is what an update that wrote nothing ran into, without the writer's
// "nothing was written", which a hook that only stamps need not say.
func cause(err error) error {
	var ue *registry.UpdateError
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}
