package workspace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/regcache"
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
	m      *Manager
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time
	period time.Duration

	warned time.Time // when the last warning was logged; zero for none
}

func newStamper(m *Manager) *stamper {
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

// stamp stamps, in one rewrite of the registry, the handles of the running rows
// and of the watched sessions whose agents run: each rewrite is the whole file
// and three fsyncs, so a pass costs one whatever the number of handles, and none
// when every stamp already reads so (a second pass in the same second).
func (s *stamper) stamp() error {
	infos, err := s.m.b.List()
	if err != nil {
		return fmt.Errorf("list the rows: %w", err)
	}
	running := map[string]bool{}
	for _, ri := range infos {
		if ri.Phase.Running() {
			running[ri.Spec.ID] = true
		}
	}
	recs, recErr := s.m.watchedSessions()
	var sessions []sessionRecord
	for _, rec := range recs {
		if !sessionRunning(rec) {
			s.m.log.Info("a watched session's agent ended; its handle is no longer stamped", "handle", rec.Handle, "agent_pid", rec.PID)
			s.m.forgetSession(rec.Handle)
			continue
		}
		sessions = append(sessions, rec)
	}
	v, err := s.m.reg.view()
	if err != nil {
		return errors.Join(recErr, err)
	}
	if len(sessions) == 0 && !s.holdsRunning(v, running) {
		return recErr // nothing to stamp: the registry lock is not taken
	}
	now := s.now()
	var moved []string
	err = registry.Update(s.m.home, registry.TouchWait, func(d *registry.Doc) error {
		moved = moved[:0]
		for _, e := range d.Agents {
			// Read fresh under the lock: a handle moved to another row or
			// box since the last pass is not stamped.
			if e.Host == s.m.host && running[e.WorkspaceID] {
				e.LastSeen = registry.Stamp(now)
			}
		}
		for _, rec := range sessions {
			e, ok := d.Agents[rec.Handle]
			if !ok || e.WorkspaceID != "" || e.Host != s.m.host {
				moved = append(moved, rec.Handle)
				continue
			}
			e.LastSeen = registry.Stamp(now)
		}
		return nil
	})
	if err != nil {
		return errors.Join(recErr, fmt.Errorf("stamp the handles live: %w", err))
	}
	// A session's handle that left the registry or moved ends its stamps, so
	// the protocol's ten minutes then run from the last one.
	for _, h := range moved {
		s.m.log.Info("a watched session's handle left the registry or moved; it is no longer stamped", "handle", h)
		s.m.forgetSession(h)
	}
	return recErr
}

// holdsRunning says whether v binds a handle to one of this box's running
// rows.
func (s *stamper) holdsRunning(v *regcache.View, running map[string]bool) bool {
	for id := range running {
		if len(v.Bound(s.m.host, id)) > 0 {
			return true
		}
	}
	return false
}

// errMoved ends a session's stamp: its handle is a row's now, or another box's.
var errMoved = errors.New("the handle moved")
