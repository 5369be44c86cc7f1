package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
)

// The verbs of comm-status.sh. Events are sent by hooks and the daemon; declarations
// are the session's own word.
const (
	VerbPrompt  = "prompt"  // event: a turn starts; its text is who started it, user or machine
	VerbStop    = "stop"    // event: a turn ends
	VerbDialog  = "dialog"  // event: a dialog waits on a person; its text is the dialog
	VerbResumed = "resumed" // event: the dialog is gone
	VerbJoin    = "join"    // event: comm-join.sh joined the session
	VerbWorking = "working" // declaration
	VerbIdle    = "idle"    // declaration
	VerbBlocked = "blocked" // declaration: a question to the user is open
	VerbWaiting = "waiting" // declaration: the session waits on something
	VerbDone    = "done"    // declaration
)

// Work states, derived from the facts; distinct from the lifecycle Status.
const (
	StateWorking = "working"
	StateIdle    = "idle"
	StateBlocked = "blocked"
	StateWaiting = "waiting"
	StateDone    = "done"
)

// Floors: who started the running turn.
const (
	FloorUser    = "user"
	FloorMachine = "machine"
)

var (
	events       = []string{VerbPrompt, VerbStop, VerbDialog, VerbResumed, VerbJoin}
	declarations = []string{VerbWorking, VerbIdle, VerbBlocked, VerbWaiting, VerbDone}
	states       = []string{StateWorking, StateIdle, StateBlocked, StateWaiting, StateDone}
)

// The text a fact holds when its verb came with none: an empty fact is unset, and
// a blocked, waiting or dialog row must read as such.
const (
	noDialog   = "a dialog is open"
	noQuestion = "a question is open"
	noWaiting  = "waiting"
)

// ErrNoRow is wrapped when a declaration finds no row to land on.
var ErrNoRow = errors.New("no registry row")

// IsEvent reports whether verb is one of the five events.
func IsEvent(verb string) bool { return slices.Contains(events, verb) }

// IsDeclaration reports whether verb is one of the five declarations.
func IsDeclaration(verb string) bool { return slices.Contains(declarations, verb) }

// IsState reports whether s is one of the protocol's five work states.
func IsState(s string) bool { return slices.Contains(states, s) }

// Status is one comm-status write.
type Status struct {
	Verb string
	// Text is the verb's text: the note of working, idle and done, the question of
	// blocked, what waiting waits for, the dialog of dialog, and for prompt who
	// started the turn (user or machine; empty is machine).
	Text string
	// HasText tells an omitted text, which keeps the prior note, from an explicit
	// "", which clears it.
	HasText bool
}

// ApplyStatus applies verb with text to e; an empty text counts as omitted, so a
// declaration keeps the prior note (Apply with HasText clears it).
func ApplyStatus(e *Entry, verb, text string, now time.Time) error {
	return Apply(e, Status{Verb: verb, Text: text, HasText: text != ""}, now)
}

// Apply writes a verb's facts, merge-only, derives state and summary, and stamps
// status_at and last_seen. What each verb does:
//
//	prompt   floor = origin; a user prompt clears question and done; clears dialog.
//	         It also clears stop_at: a turn starting means no Stop hook is running,
//	         and a mark left by a turn that ended with no Stop would otherwise stay.
//	stop     done when floor is user and neither question nor waiting is set; then
//	         clears floor, stop_at and dialog.
//	dialog   dialog = text.
//	resumed  clears dialog.
//	join     no fact changes: the row gets a derived state and fresh stamps. A join
//	         may run mid-turn (an agent's tool call), so it must not drop the floor.
//	working, idle  note = text when given; clear question, waiting and done.
//	blocked  question = text, else note; keeps waiting (red outranks it, and the
//	         wait returns once the question is answered). Leaves note alone.
//	waiting  waiting = text, else note; keeps question. Leaves note alone.
//	done     note = text when given; done; clears question and waiting.
//
// Declarations leave dialog alone: only the screen (resumed) or a turn boundary
// knows it is gone. A declaration's text past MaxText is refused (CheckText)
// and e is left as it was.
func Apply(e *Entry, s Status, now time.Time) error {
	if IsDeclaration(s.Verb) {
		if err := CheckText(s.Text); err != nil {
			return err
		}
	}
	switch s.Verb {
	case VerbPrompt:
		origin := s.Text
		if origin == "" {
			origin = FloorMachine
		}
		if origin != FloorUser && origin != FloorMachine {
			return fmt.Errorf("prompt takes who started the turn, %s or %s, not %q", FloorUser, FloorMachine, origin)
		}
		e.Floor, e.Dialog, e.StopAt = origin, "", ""
		if origin == FloorUser {
			e.Question, e.Done = "", false
		}
	case VerbStop:
		if e.Floor == FloorUser && e.Question == "" && e.Waiting == "" {
			e.Done = true
		}
		e.Floor, e.StopAt, e.Dialog = "", "", ""
	case VerbDialog:
		e.Dialog = firstSet(s.Text, noDialog)
	case VerbResumed:
		e.Dialog = ""
	case VerbJoin:
	case VerbWorking, VerbIdle:
		e.setNote(s)
		e.Question, e.Waiting, e.Done = "", "", false
	case VerbBlocked:
		e.Question = firstSet(s.Text, e.Note, noQuestion)
	case VerbWaiting:
		e.Waiting = firstSet(s.Text, e.Note, noWaiting)
	case VerbDone:
		e.setNote(s)
		e.Done, e.Question, e.Waiting = true, "", ""
	default:
		return badVerb(s.Verb)
	}
	e.reduce()
	e.StatusAt = Stamp(now)
	e.LastSeen = e.StatusAt
	return nil
}

func badVerb(verb string) error {
	return fmt.Errorf("invalid verb %q (want %s)", verb, strings.Join(append(append([]string{}, events...), declarations...), "|"))
}

func (e *Entry) setNote(s Status) {
	if s.HasText {
		e.Note = s.Text
	}
}

// derivedKeys are written on every status write, "" included: the protocol's
// summary is "" when there is none, not absent.
var derivedKeys = keepBits("state", "summary")

// reduce derives state and summary from the facts by the protocol's priority.
// The summary is one line: line breaks and tabs in a fact read as spaces. It
// is cut to MaxText: a dialog's text is a hook's, and an older writer's fact
// may be longer.
func (e *Entry) reduce() {
	e.keep |= derivedKeys
	var sum string
	switch {
	case e.Dialog != "":
		e.State, sum = StateBlocked, e.Dialog
	case e.Question != "" && e.Floor == "":
		e.State, sum = StateBlocked, e.Question
	case e.Floor != "":
		e.State, sum = StateWorking, e.Note
	case e.Waiting != "":
		e.State, sum = StateWaiting, e.Waiting
	case e.Done:
		e.State, sum = StateDone, e.Note
	default:
		e.State, sum = StateIdle, e.Note
	}
	e.Summary = Cut(strings.Join(strings.Fields(sum), " "), MaxText)
}

func firstSet(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// WriteStatus is comm-status.sh: Apply to name's row as one read-decide-write under
// the registry lock. With no row, an event is a silent no-op (a session that is not
// a joined comm agent) and a declaration fails with ErrNoRow, since the session
// meant it.
func WriteStatus(h home.Home, name string, s Status, now time.Time, wait time.Duration) error {
	_, err := WriteStatusIf(h, name, s, now, wait, nil)
	return err
}

// WriteStatusIf is WriteStatus whose writer may refuse the row as it is under
// the lock: a check of who holds the row sees what the write would replace,
// with no read of its own before it. An error from may writes nothing and is
// returned as it is. It answers the row as the write left it, nil when no row
// was written (an event's no-op).
func WriteStatusIf(h home.Home, name string, s Status, now time.Time, wait time.Duration, may func(*Entry) error) (*Entry, error) {
	if !IsEvent(s.Verb) && !IsDeclaration(s.Verb) {
		return nil, badVerb(s.Verb) // before any lock is taken
	}
	var left *Entry
	err := Mark(h, name, wait, func(e *Entry) error {
		if may != nil {
			if err := may(e); err != nil {
				return err
			}
		}
		left = e
		return Apply(e, s, now)
	})
	switch {
	case err == nil:
		return left, nil
	case !errors.Is(err, ErrNoRow):
		return nil, err
	case IsEvent(s.Verb):
		return nil, nil
	}
	return nil, fmt.Errorf("%w for '%s' -- stamp discarded; run it from the session's project root, or join first", ErrNoRow, name)
}
