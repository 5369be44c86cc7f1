package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// StampEvery is how often the daemon stamps last_seen of each Starting or
// Ready row's handle, and of each watched session's while its agent runs, so
// an idle one stays live (well inside LiveFor). $SOT_STAMP_SECS overrides it
// (tests shorten it with COMM_LIVE_SECS).
const StampEvery = time.Minute

// EnvStampSecs names StampEvery's override.
const EnvStampSecs = "SOT_STAMP_SECS"

// stamper keeps the handles of running rows and of watched sessions live (see
// sessions.go). It stamps every period and whenever the rows, their handles or
// the watched sessions change. One that cannot take the registry lock, or read
// or write the registry, stamps nothing of what failed and warns, at most once
// per period on its clock: ten minutes after a handle's last stamp, mail to it
// fails as no live session holds it.
type stamper struct {
	m      *rowsManager
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time
	period time.Duration

	warned time.Time // when the last warning was logged; zero for none
}

func newStamper(m *rowsManager) *stamper {
	return &stamper{m: m, now: m.now, after: time.After, period: home.EnvSeconds(EnvStampSecs, StampEvery)}
}

func (s *stamper) run(ctx context.Context) error {
	for {
		s.stampAll()
		select {
		case <-ctx.Done():
			return nil
		case <-s.after(s.period):
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
		if s.warned.IsZero() || now.Sub(s.warned) >= s.period {
			s.warned = now
			s.m.log.Warn("handles were not stamped live; mail to a row or an idle session fails ten minutes after its last stamp (sotd lock-clear clears a lock whose holder this box proves dead)", "err", err)
		}
	}
	return err
}

func (s *stamper) stamp() error {
	infos, err := s.m.b.List()
	if err != nil {
		return fmt.Errorf("list the rows: %w", err)
	}
	doc, err := s.m.reg.read()
	if err != nil {
		return err
	}
	now := s.now()
	errs := []error{s.stampSessions(now)}
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

// stampSessions stamps the handle of each watched session whose agent runs, while
// the registry lists it on this box outside any row; a record whose agent ended
// or whose handle left, moved to a row or to another box is removed, so the
// protocol's ten minutes then run from the last stamp.
func (s *stamper) stampSessions(now time.Time) error {
	recs, err := s.m.watchedSessions()
	if err != nil {
		return err
	}
	var errs []error
	for _, rec := range recs {
		if !sessionRunning(rec) {
			s.m.log.Info("a watched session's agent ended; its handle is no longer stamped", "handle", rec.Handle, "agent_pid", rec.PID)
			s.m.forgetSession(rec.Handle)
			continue
		}
		err := registry.Mark(s.m.home, rec.Handle, registry.TouchWait, func(e *registry.Entry) error {
			if e.WorkspaceID != "" || e.Host != s.m.host {
				return errMoved
			}
			e.LastSeen = registry.Stamp(now)
			return nil
		})
		switch {
		case errors.Is(err, registry.ErrNoRow), errors.Is(err, errMoved):
			s.m.log.Info("a watched session's handle left the registry or moved; it is no longer stamped", "handle", rec.Handle)
			s.m.forgetSession(rec.Handle)
		case err != nil:
			errs = append(errs, fmt.Errorf("@%s of the session of agent pid %d: %w", rec.Handle, rec.PID, err))
		}
	}
	return errors.Join(errs...)
}

// errMoved ends a session's stamp: its handle is a row's now, or another box's.
var errMoved = errors.New("the handle moved")
