package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// StampEvery is how often the daemon stamps last_seen of each Starting or
// Ready row's handle, so an idle row stays live (well inside LiveFor).
const StampEvery = time.Minute

// stamper keeps the handles of running rows live. It stamps every StampEvery
// and whenever the rows or their handles change. One that cannot take the
// registry lock, or read or write the registry, stamps nothing of what failed
// and warns, at most once per StampEvery on its clock: ten minutes after a row's
// last stamp, mail to it fails as no live session holds it.
type stamper struct {
	m     *rowsManager
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	warned time.Time // when the last warning was logged; zero for none
}

func newStamper(m *rowsManager) *stamper {
	return &stamper{m: m, now: m.now, after: time.After}
}

func (s *stamper) run(ctx context.Context) error {
	for {
		s.stampAll()
		select {
		case <-ctx.Done():
			return nil
		case <-s.after(StampEvery):
		case <-s.m.changed:
		}
	}
}

// stampAll stamps each running row's handles once; the error is also what it
// warned.
func (s *stamper) stampAll() error {
	err := s.stamp()
	if err != nil {
		now := s.now()
		if s.warned.IsZero() || now.Sub(s.warned) >= StampEvery {
			s.warned = now
			s.m.log.Warn("row handles were not stamped live; mail to a row fails ten minutes after its last stamp (sotd lock-clear clears a lock whose holder this box proves dead)", "err", err)
		}
	}
	return err
}

func (s *stamper) stamp() error {
	infos, err := s.m.b.List()
	if err != nil {
		return fmt.Errorf("list the rows: %w", err)
	}
	doc, err := registry.Read(s.m.home)
	if err != nil {
		return err
	}
	now := s.now()
	var errs []error
	for _, ri := range infos {
		if !ri.Phase.Running() {
			continue
		}
		row := ri.Spec.ID
		for _, h := range s.m.handlesOf(doc, ri.Spec) {
			err := registry.Mark(s.m.home, h, registry.TouchWait, func(e *registry.Entry) error {
				// The handle may have moved to another row since the read.
				if e.WorkspaceID != row || e.Host != s.m.host {
					return registry.ErrSkip
				}
				e.LastSeen = registry.Stamp(now)
				return nil
			})
			if err != nil && !errors.Is(err, registry.ErrNoRow) {
				errs = append(errs, fmt.Errorf("@%s of row %s: %w", h, row, err))
			}
		}
	}
	return errors.Join(errs...)
}
