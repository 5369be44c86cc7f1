package client

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// identity is who this invocation acts as, decided once per command: the
// agent-layer check's verdict and the self slot it leads to.
//
// A row's session is pinned by the protocol's self/<host>__<row>.txt, as
// before. A session outside any row is pinned by a private slot (home.Slot),
// keyed by the first of these it has:
//   - the agent process above it (claude, codex: pid and start), which every
//     command the agent runs, its hooks included, shares, and which two agent
//     sessions never share;
//   - the session leader of its controlling terminal (the shell of a terminal
//     window or tmux pane), for a person typing sotd commands;
//   - its project root, for a process with neither (a script, CI).
//
// So two sessions in two terminals, or under two agents, each keep their own
// handle with no flag and no environment variable.
type identity struct {
	verdict ancestry.Verdict
	refused error // the agent-layer check's refusal; nil when admitted
	slot    home.Slot
	// agentPID and agentStart name the agent process the slot is keyed by, 0
	// when it is keyed otherwise: the daemon stamps the session live while it
	// runs.
	agentPID   int
	agentStart string
	// desc names the slot for a person.
	desc string
}

// ident decides this session's identity on first use.
func (s *Session) ident() *identity {
	if s.id != nil {
		return s.id
	}
	id := &identity{}
	id.verdict, id.refused = ancestry.Judge(s.Home, s.Host, s.Row)
	switch {
	case s.Row != "":
		id.slot = home.Slot{Row: s.Row}
		id.desc = "row " + s.Row
	case len(id.verdict.Agents) == 1 && known(id.verdict.Agents[0].Start):
		a := id.verdict.Agents[0]
		id.slot = home.Slot{Key: home.ProcKey(home.KeyAgent, a.PID, a.Start)}
		id.agentPID, id.agentStart = a.PID, a.Start
		id.desc = fmt.Sprintf("the %s session of pid %d", ancestry.AgentOf(a.Argv), a.PID)
	default:
		if pid, start := terminalSession(); pid > 0 {
			id.slot = home.Slot{Key: home.ProcKey(home.KeyTerm, pid, start)}
			id.desc = fmt.Sprintf("the terminal session of pid %d", pid)
		} else {
			root := projectRoot(s.Cwd)
			id.slot = home.Slot{Key: rootKey(root)}
			id.desc = "the sessions with no agent and no terminal in " + root
		}
	}
	s.id = id
	return id
}

func known(start string) bool { return start != "" && start != machine.Unknown }

// terminalSession is the pid and start of this process's terminal session
// leader, 0 for none or one whose start cannot be read.
func terminalSession() (int, string) {
	pid := terminalLeader()
	if pid <= 0 {
		return 0, ""
	}
	t, err := ancestry.OSTable()
	if err != nil {
		return 0, ""
	}
	p, err := t.Proc(pid)
	if err != nil || !known(p.Start) {
		return 0, ""
	}
	return pid, p.Start
}

// rootKey keys the one slot every session in root with no agent and no
// terminal shares.
func rootKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return home.KeyRoot + "-" + hex.EncodeToString(sum[:6])
}

// readSlot reads this session's pin. A private pin written in another boot
// names a process of that boot, one a reused pid and start could only imitate,
// so it pins nothing.
func (s *Session) readSlot() (home.Self, bool, error) {
	self, ok, err := s.Home.ReadSelf(s.Host, s.ident().slot)
	if err != nil || !ok {
		return self, ok, err
	}
	if boot := machine.Boot(); self.Boot != "" && known(boot) && self.Boot != boot {
		return home.Self{}, false, nil
	}
	return self, true, nil
}

// writeSlot pins self in this session's slot.
func (s *Session) writeSlot(self home.Self) error {
	slot := s.ident().slot
	if slot.Key != "" {
		if boot := machine.Boot(); known(boot) {
			self.Boot = boot
		}
	}
	return s.Home.WriteSelf(s.Host, slot, self)
}

// holder is another live session of this box that pins a handle.
type holder struct {
	key  string
	self home.Self
}

func (h holder) String() string {
	kind, pid, _, ok := home.ParseProcKey(h.key)
	switch {
	case ok && kind == home.KeyAgent:
		return fmt.Sprintf("the agent session of pid %d, joined from %s", pid, h.self.Root)
	case ok:
		return fmt.Sprintf("the terminal session of pid %d, joined from %s", pid, h.self.Root)
	}
	return "a session with no agent and no terminal, joined from " + h.self.Root
}

// otherSessions sweeps the private pins of this box whose process has ended,
// and returns the rest but this session's own, by the handle they pin. A pin
// keyed by a process above this one (the terminal an agent was started in) is
// this session's enclosing one, not another. A pin keyed by a project root
// holds its handle while the registry calls that handle live.
func (s *Session) otherSessions(d *registry.Doc) map[string]holder {
	id := s.ident()
	pins, err := s.Home.PrivateSelves(s.Host)
	if err != nil {
		s.warn("sotd: %v", err)
	}
	boot := machine.Boot()
	out := map[string]holder{}
	for _, p := range pins {
		if p.Key == id.slot.Key {
			continue
		}
		kind, pid, start, ok := home.ParseProcKey(p.Key)
		if ok {
			stale := p.Self.Boot != "" && known(boot) && p.Self.Boot != boot
			if stale || ancestry.Still(pid, start) == ancestry.Gone {
				if err := s.Home.RemoveSelf(s.Host, home.Slot{Key: p.Key}); err != nil {
					s.warn("sotd: the ended session's self file stays: %v", err)
				}
				continue
			}
			if kind == home.KeyTerm && slices.ContainsFunc(id.verdict.Chain, func(a ancestry.Proc) bool { return a.PID == pid && a.Start == start }) {
				continue
			}
		} else if e, listed := d.Agents[p.Self.Name]; !listed || !registry.Live(e.LastSeen, s.Now()) {
			continue
		}
		if _, seen := out[p.Self.Name]; !seen {
			out[p.Self.Name] = holder{key: p.Key, self: p.Self}
		}
	}
	return out
}

// displace unpins a live session from a handle this one takes with --repin: its
// next command says it has not joined, rather than acting as a handle another
// session now reads.
func (s *Session) displace(h holder) error {
	return s.Home.RemoveSelf(s.Host, home.Slot{Key: h.key})
}

// watch asks this box's daemon to stamp name live while this session's agent
// runs (session.watch), so an idle agent stays reachable. A session with no
// agent above it keeps the protocol's rule: it is live for ten minutes after
// its last command. With no daemon the join stands and one line says what the
// session gives up.
func (s *Session) watch(name string) {
	if err := s.KeepLive(name); err != nil {
		s.warn("comm: @%s is not stamped live while its agent is idle (%v); it stays reachable for ten minutes after each comm command", name, err)
	}
}

// KeepLive asks this box's daemon to stamp name live while this session's
// agent runs, as a join inside the agent does; nil, and nothing asked, when no
// agent is above this process. The doorbell calls it too: a person who joined
// from the shell before starting the agent would otherwise go stale ten
// minutes into an idle session, and mail to it be refused.
func (s *Session) KeepLive(name string) error {
	id := s.ident()
	if id.agentPID == 0 {
		return nil
	}
	return s.callDaemonWithin(watchWait, wire.OpSessionWatch, wire.SessionWatch{Handle: name, PID: id.agentPID, Start: id.agentStart}, &wire.Done{})
}

// watchWait bounds the watch call: a join never waits long on a daemon.
const watchWait = 3 * time.Second

// sayRefusedClaim warns when the hub has refused this box's claim on handle:
// mail to it from other boxes then goes to the box that holds it, not here.
// The hub tells a box at its next directory update, so a join right now learns
// of a refusal only from an earlier claim (a join again, a restarted daemon);
// sotd doctor says it any time after. No daemon, or an older one, says nothing.
func (s *Session) sayRefusedClaim(handle string) {
	var st wire.LinkStatus
	if s.callDaemonWithin(claimWait, wire.OpLinkStatus, struct{}{}, &st) != nil {
		return
	}
	for _, l := range st.Links {
		for _, r := range l.RefusedClaims {
			if r.Handle != handle {
				continue
			}
			held := ""
			if r.Holder != "" {
				held = ", held by box " + printable(r.Holder, false)
			}
			s.warn("WARNING: the hub %s refused this box's claim on @%s%s (%s): mail to @%s from other boxes does not reach this session; join with another --name (sotd doctor says more)",
				printable(l.Box, false), handle, held, printable(r.Why, false), handle)
		}
	}
}

// claimWait bounds the link.status call a join makes.
const claimWait = time.Second
