package client

import (
	"errors"
	"fmt"

	"github.com/sotcomm/sotd/registry"
)

// Status writes a work-state verb (comm-status.sh). In a session that has not
// joined, an event is a silent no-op and a declaration fails.
func (s *Session) Status(verb string, text string, hasText bool) int {
	if !registry.IsEvent(verb) && !registry.IsDeclaration(verb) {
		s.warn("sotd status: unknown verb %q; events: prompt, stop, dialog, resumed, join; declarations: working, idle, blocked, waiting, done", verb)
		return ExitUsage
	}
	if !s.admitted() {
		return ExitFailed
	}
	me, err := s.Me()
	if err != nil {
		if registry.IsEvent(verb) {
			return ExitOK
		}
		s.out("sotd status: no registry row for this session (%v); stamp discarded", err)
		return ExitFailed
	}
	e, _, err := registry.Lookup(s.Home, me)
	if err == nil {
		if why := s.bindingRefusal(e, me); why != "" {
			s.out("FAILED: %s; stamp discarded", why)
			return ExitFailed
		}
		err = registry.WriteStatus(s.Home, me, registry.Status{Verb: verb, Text: text, HasText: hasText}, s.Now(), registry.Ruled())
	}
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, registry.ErrNoRow):
		s.out("sotd status: %v", err)
	case errors.Is(err, registry.ErrUnreadable):
		s.out("FAILED: the registry could not be read; stamp discarded and nobody was reminded")
		s.warn("sotd: %v", err)
	default:
		s.out("FAILED: %v; stamp discarded", err)
	}
	return ExitFailed
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
	switch {
	case errors.Is(err, registry.ErrUnreadable):
		s.out("FAILED: the registry could not be read; nothing was removed")
		s.warn("sotd: %v", err)
		return ExitFailed
	case err != nil:
		s.out("FAILED: %v", err)
		return ExitFailed
	}
	if own {
		if err := s.Home.RemoveSelf(s.Host, s.Row); err != nil {
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
