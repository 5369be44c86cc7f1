package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sotcomm/sotd/registry"
)

// Status writes a work-state verb (comm-status.sh). In a session that has not
// joined, an event is a silent no-op and a declaration fails. asJSON prints the
// work-state the write left, as ShowStatus does.
func (s *Session) Status(verb string, text string, hasText, asJSON bool) int {
	code, _ := s.writeStatus(verb, text, hasText, asJSON)
	return code
}

// bindingRefused is a status write's refusal of a row another row holds.
type bindingRefused struct{ why string }

func (r bindingRefused) Error() string { return r.why }

// writeStatus is Status, also answering the row as the write left it (nil
// when none was written). The row's binding is checked under the registry
// lock, on the row the write replaces, so the write needs no read before it.
func (s *Session) writeStatus(verb string, text string, hasText, asJSON bool) (int, *registry.Entry) {
	if !registry.IsEvent(verb) && !registry.IsDeclaration(verb) {
		s.warn("sotd status: unknown verb %q; events: prompt, stop, dialog, resumed, join; declarations: working, idle, blocked, waiting, done", verb)
		return ExitUsage, nil
	}
	if !s.admitted() {
		return ExitFailed, nil
	}
	me, err := s.Me()
	if err != nil {
		if registry.IsEvent(verb) {
			if asJSON {
				b, _ := json.Marshal(workState{})
				s.out("%s", b)
			}
			return ExitOK, nil
		}
		s.out("sotd status: no registry row for this session (%v); stamp discarded", err)
		return ExitFailed, nil
	}
	held := func(e *registry.Entry) error {
		if why := s.bindingRefusal(e, me); why != "" {
			return bindingRefused{why}
		}
		return nil
	}
	e, err := registry.WriteStatusIf(s.Home, me, registry.Status{Verb: verb, Text: text, HasText: hasText}, s.Now(), registry.Ruled(), held)
	var refused bindingRefused
	switch {
	case err == nil:
		if asJSON {
			return s.show(me, e, e != nil, true, registry.IsEvent(verb)), e
		}
		return ExitOK, e
	case errors.As(err, &refused):
		s.out("FAILED: %s; stamp discarded", refused.why)
	case errors.Is(err, registry.ErrNoRow):
		s.out("sotd status: %v", err)
	case errors.Is(err, registry.ErrUnreadable):
		s.out("FAILED: the registry could not be read; stamp discarded and nobody was reminded")
		s.warn("sotd: %v", err)
	default:
		s.out("FAILED: %v; stamp discarded", err)
	}
	return ExitFailed, nil
}

// Declare is `sotd status <verb> ["text"]` as a person or a session types it:
// Status, with two rules for a declaration. A bare done clears the note, since
// the work it named is over. And a state is derived from every fact, not
// taken from the verb, so when the state the write left is not the one
// declared, one line says what it is and why; the write stands either way.
func (s *Session) Declare(verb, text string, hasText, asJSON bool) int {
	if verb == registry.VerbDone {
		hasText = true
	}
	code, e := s.writeStatus(verb, text, hasText, asJSON)
	if code != ExitOK || asJSON || !registry.IsDeclaration(verb) || e == nil {
		return code
	}
	if e.State != verb {
		me, _ := s.Me()
		s.out("recorded; @%s reads as %s, not %s: %s", me, e.State, verb, whyState(e))
	}
	return code
}

// whyState says which fact gave an entry its derived state.
func whyState(e *registry.Entry) string {
	switch {
	case e.State == registry.StateBlocked && e.Dialog != "":
		return fmt.Sprintf("a dialog is open (%q), and it reads as blocked until the dialog is gone", e.Dialog)
	case e.State == registry.StateBlocked:
		return fmt.Sprintf("the question %q is open outside a turn; working, idle or done clears it", e.Question)
	case e.State == registry.StateWorking:
		return fmt.Sprintf("a turn started by the %s is running, and it reads as working until the turn stops", e.Floor)
	case e.State == registry.StateWaiting:
		return fmt.Sprintf("it waits %q; working, idle or done clears that", e.Waiting)
	case e.State == registry.StateDone:
		return "it is marked done; working or idle clears that"
	}
	return "no turn is running, and working is a running turn's state (an agent's prompt hook starts one, its stop hook ends it); the note is kept as the summary"
}

// workState is ShowStatus's JSON: the registry's facts for this session and
// what they derive, with its unread count (-1 when the inbox could not be read).
type workState struct {
	Handle   string `json:"handle"`
	Joined   bool   `json:"joined"`
	Live     bool   `json:"live"`
	State    string `json:"state"`
	Summary  string `json:"summary"`
	StatusAt string `json:"status_at"`
	Floor    string `json:"floor,omitempty"`
	Dialog   string `json:"dialog,omitempty"`
	Question string `json:"question,omitempty"`
	Waiting  string `json:"waiting,omitempty"`
	Done     bool   `json:"done,omitempty"`
	Note     string `json:"note,omitempty"`
	StopAt   string `json:"stop_at,omitempty"`
	Unread   int    `json:"unread"`
}

// ShowStatus prints this session's work-state as the registry holds it: one
// line, or with asJSON one object. A session that has not joined is told so
// (exit 1).
func (s *Session) ShowStatus(asJSON bool) int {
	me, err := s.Me()
	if err != nil {
		s.out("sotd status: no registry row for this session (%v)", err)
		return ExitFailed
	}
	e, present, err := s.Lookup(me)
	if err != nil {
		s.out("FAILED: the registry could not be read; nothing was shown")
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	return s.show(me, e, present, asJSON, false)
}

// show prints me's work-state from its row e; absentOK answers joined:false
// for a handle with no entry (after an event, which is a no-op there) where a
// show fails.
func (s *Session) show(me string, e *registry.Entry, present, asJSON, absentOK bool) int {
	switch {
	case !present && absentOK && asJSON:
		b, _ := json.Marshal(workState{Handle: me})
		s.out("%s", b)
		return ExitOK
	case !present:
		s.out("sotd status: no registry row for '%s'; join first (sotd join)", me)
		return ExitFailed
	}
	unread, err := s.filer().Unread(me)
	if err != nil {
		s.warn("sotd status: the inbox of @%s could not be read: %v", me, err)
		unread = -1
	}
	if asJSON {
		b, _ := json.Marshal(workState{
			Handle: me, Joined: true, Live: registry.Live(e.LastSeen, s.Now()),
			State: e.State, Summary: e.Summary, StatusAt: e.StatusAt,
			Floor: e.Floor, Dialog: e.Dialog, Question: e.Question, Waiting: e.Waiting,
			Done: e.Done, Note: e.Note, StopAt: e.StopAt, Unread: unread,
		})
		s.out("%s", b)
		return ExitOK
	}
	line := fmt.Sprintf("@%s %s", me, e.State)
	if e.Summary != "" {
		line += fmt.Sprintf(" %q", e.Summary)
	}
	if e.StatusAt != "" {
		line += " since " + e.StatusAt
	}
	if unread >= 0 {
		line += fmt.Sprintf(", %d unread", unread)
	}
	s.out("%s", line)
	return ExitOK
}

// Leave removes a handle from the registry: this session's own (and its self
// file), or an orphan named with --name.
func (s *Session) Leave(name string) int {
	if !s.admitted() {
		return ExitFailed
	}
	own := name == ""
	if own {
		me, err := s.Me()
		if err != nil {
			s.out("FAILED: %v; nothing was removed", err)
			return ExitFailed
		}
		name = me
	}
	var gone bool
	err := registry.Update(s.Home, registry.Ruled(), func(d *registry.Doc) error {
		if _, ok := d.Agents[name]; !ok {
			return registry.ErrSkip
		}
		if row := s.heldByRow(d, name); row != "" && !own {
			return fmt.Errorf("REFUSING to remove @%s: it is held by a row (row %s); despawn that row instead", name, row)
		}
		delete(d.Agents, name)
		gone = true
		return nil
	})
	if s.removeFailed(err) {
		return ExitFailed
	}
	if self, pinned, _ := s.readSlot(); own && pinned && self.Name == name {
		if err := s.Home.RemoveSelf(s.Host, s.ident().slot); err != nil {
			s.warn("sotd: %v", err)
		}
	}
	if gone {
		s.out("left: @%s removed from the registry", name)
	} else {
		s.out("@%s was not in the registry; nothing to remove", name)
	}
	return ExitOK
}

// removeFailed says a removal's registry write failed, and how, when it did:
// the one FAILED line of leave and of leave --stale-for.
func (s *Session) removeFailed(err error) bool {
	switch {
	case errors.Is(err, registry.ErrUnreadable):
		s.out("FAILED: the registry could not be read; nothing was removed")
		s.warn("sotd: %v", err)
	case err != nil:
		s.out("FAILED: %v", err)
	default:
		return false
	}
	return true
}
