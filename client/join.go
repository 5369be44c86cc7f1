package client

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sotcomm/sotd/wire"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
)

// JoinArgs is what `sotd join` was asked.
type JoinArgs struct {
	Name      string // --name; "" derives
	Expertise string // --expertise "a, b"
	Repin     bool   // --repin: re-pin a self slot that names another project
}

// errHeld refuses an explicit name a row holds.
type errHeld struct{ handle, row string }

func (e errHeld) Error() string {
	return fmt.Sprintf("REFUSING to join: @%s is held by a row (row %s); a session outside that row cannot join as it", e.handle, e.row)
}

// Join registers this session under its handle and pins it in the self file.
func (s *Session) Join(a JoinArgs) int {
	if !s.admitted() {
		return ExitFailed
	}
	root := projectRoot(s.Cwd)
	repo := filepath.Base(root)
	if err := registry.Ensure(s.Home); err != nil {
		s.out("FAILED: %v; nothing was written", err)
		return ExitFailed
	}
	if err := s.Home.CloseModes(); err != nil {
		s.warn("sotd: could not close the comm home's modes: %v", err)
	}
	// A name from $SOT_COMM_NAME pins the session by its environment: the shared
	// self slot is neither checked nor written, so it cannot clobber the slot of
	// another session outside any row on this box.
	envName := ""
	if a.Name == "" {
		envName = os.Getenv(home.EnvName)
	}
	explicit := a.Name
	if explicit == "" {
		explicit = envName
	}
	if explicit != "" {
		if err := home.CheckHandle(explicit); err != nil {
			s.out("FAILED: %v; nothing was written", err)
			return ExitFailed
		}
	}
	var self home.Self
	pinned := false
	if envName == "" {
		var err error
		if self, pinned, err = s.readSlot(); err != nil {
			s.out("FAILED: %v; nothing was written", err)
			return ExitFailed
		}
	}
	slot := s.ident().slot
	if pinned && self.Root != "" && self.Root != root && !a.Repin {
		s.out("sotd join: REFUSING: the self slot %s names @%s of project %s (%s), not %s; a slot that comes to name another project's session reads that session's mail. Run sotd join --repin to re-pin it.",
			s.Home.SelfPath(s.Host, slot), self.Name, self.Repo, self.Root, root)
		return ExitConflict
	}
	var expertise []string
	for _, x := range strings.Split(a.Expertise, ",") {
		if x = strings.TrimSpace(x); x != "" {
			expertise = append(expertise, x)
		}
	}
	if err := registry.CheckExpertise(expertise); err != nil {
		s.out("FAILED: %v; nothing was written", err)
		return ExitFailed
	}

	candidates := registry.Tiers(root, s.Host)
	asked := append([]string{explicit, self.Name}, candidates[:]...)
	ruling := s.daemonRuling(asked)
	heldBy := func(d *registry.Doc, h string) string { return s.holder(ruling, d, h) }

	var name string
	var notes []string
	var displaced *holder
	mismatch := false
	now := s.Now()
	err := registry.Update(s.Home, registry.Ruled(), func(d *registry.Doc) error {
		mismatch = d.VersionMismatch()
		notes = notes[:0]
		displaced = nil
		// Another live session outside any row on this box that pins a handle
		// keeps it: two sessions with one handle read each other's mail.
		others := map[string]holder{}
		if s.Row == "" && envName == "" {
			others = s.otherSessions(d)
		}
		switch {
		case explicit != "":
			// A join from inside a row takes its handle back from the row that
			// holds it (the protocol's --rebind, honored only with a row id): a
			// respawned row, or one a newer row displaced. The agent-layer check
			// has already proved this process runs in that row.
			if row := heldBy(d, explicit); row != "" && s.Row == "" {
				return errHeld{explicit, row}
			}
			if o, live := others[explicit]; live {
				if !a.Repin {
					return errLiveHolder{explicit, o}
				}
				displaced = &o
			}
			name = explicit
		case pinned && !a.Repin && heldBy(d, self.Name) == "":
			name = self.Name
		default:
			if pinned && !a.Repin {
				notes = append(notes, fmt.Sprintf("comm: @%s (named by this session's self file) is held by a row; joining as this session's own derived handle", self.Name))
			}
			var tier int
			var err error
			if name, tier, err = s.derive(d, root, ruling, others); err != nil {
				return err
			}
			if tier > 1 && heldBy(d, candidates[0]) != "" {
				notes = append(notes, fmt.Sprintf("comm: @%s is held by a row; a session outside any row joins as @%s", candidates[0], name))
			} else if o, live := others[candidates[0]]; tier > 1 && live {
				notes = append(notes, fmt.Sprintf("comm: @%s is held by another live session on this box (%s); this session joins as @%s. A second session on one project is easier to tell apart in a git worktree (git worktree add ../%s-wt-<name>), whose handle names it.", candidates[0], o, name, repo))
			}
		}
		e := d.Agents[name]
		if e == nil {
			e = &registry.Entry{}
			d.Agents[name] = e
		}
		e.Host = s.Host
		e.WorkspaceID = s.Row
		e.Repo = repo
		e.Root = root
		if expertise != nil {
			e.Expertise = expertise
		}
		e.Status = "idle"
		e.Joined = registry.Stamp(now)
		return registry.ApplyStatus(e, "join", "", now)
	})
	var held errHeld
	var live errLiveHolder
	var allLive errAllLive
	switch {
	case errors.As(err, &held):
		s.out("sotd join: %v", held)
		return ExitConflict
	case errors.As(err, &live), errors.As(err, &allLive):
		s.out("sotd join: %v", err)
		return ExitConflict
	case errors.Is(err, registry.ErrUnreadable):
		s.out("FAILED: the registry could not be read, so no handle was derived; nothing was written")
		s.warn("sotd: %v", err)
		return ExitFailed
	case err != nil:
		s.out("FAILED: %v", err)
		return ExitFailed
	}
	for _, n := range notes {
		s.warn("%s", n)
	}
	if mismatch {
		s.warn("WARNING: registry.json is not protocol_version %d; this machine needs an update of its comm clients (no quiet degradation)", registry.ProtocolVersion)
	}
	if envName != "" {
		s.out("joined as @%s (repo %s, root %s; named by $%s)", name, repo, root, home.EnvName)
		s.sayRefusedClaim(name)
		return ExitOK
	}
	if displaced != nil {
		if err := s.displace(*displaced); err != nil {
			s.warn("sotd: %v", err)
		}
		s.warn("comm: --repin: @%s was held by %s; that session has no handle now, and its next comm command says to join", name, *displaced)
	}
	if pinned && self.Name != name {
		s.warn("comm: this session was @%s (project %s); it is @%s now, and @%s stays in the registry until sotd leave --name %s", self.Name, self.Repo, name, self.Name, self.Name)
	}
	if err := s.writeSlot(home.Self{Name: name, Repo: repo, Root: root}); err != nil {
		s.out("FAILED: joined as @%s but the self file could not be written (%v); run sotd join --name %s again", name, err, name)
		return ExitFailed
	}
	s.out("joined as @%s (repo %s, root %s)", name, repo, root)
	s.watch(name)
	s.sayRefusedClaim(name)
	return ExitOK
}

// derive is sot_derive_handle for a session that names no handle: the first
// of root's tiers (1 to 3, returned) that no row holds, by the daemon's ruling
// or the registry's binding, and no other live session on this box pins.
func (s *Session) derive(d *registry.Doc, root string, ruling map[string]string, others map[string]holder) (name string, tier int, err error) {
	ruled := func(h string) registry.Ruling {
		row, answered := ruling[h]
		_, live := others[h]
		switch {
		case row != "" || live:
			return registry.Held
		case answered:
			return registry.Cleared
		}
		return registry.NoRuling
	}
	name, tier = registry.DeriveHandle(root, s.Host, s.Row, d, ruled)
	if tier > 0 {
		return name, tier, nil
	}
	candidates := registry.Tiers(root, s.Host)
	if o, live := others[candidates[0]]; live {
		return "", 0, errAllLive{root, candidates, o}
	}
	return "", 0, fmt.Errorf("every derived handle for %s (%s) is held by another project or row; join with --name", root, strings.Join(candidates[:], ", "))
}

// errLiveHolder refuses an explicit name another live session on this box pins.
type errLiveHolder struct {
	handle string
	by     holder
}

func (e errLiveHolder) Error() string {
	return fmt.Sprintf("REFUSING to join: @%s is held by another live session on this box (%s); two sessions with one handle read each other's mail. Join with another --name, or pass --repin to take @%s from that session.", e.handle, e.by, e.handle)
}

// errAllLive refuses a join whose every derived handle another live session of
// this project holds.
type errAllLive struct {
	root  string
	tiers [3]string
	by    holder
}

func (e errAllLive) Error() string {
	return fmt.Sprintf("REFUSING to join: every derived handle for %s (%s) is held by another live session on this box (@%s: %s). A second session on one project works in a git worktree: git worktree add ../%s-wt-<name>, then join from there; or join with --name.",
		e.root, strings.Join(e.tiers[:], ", "), e.tiers[0], e.by, filepath.Base(e.root))
}

// daemonRuling asks this box's daemon, before the registry lock, which of the
// handles a row holds (agent.join with an empty workspace_id): the daemon knows
// rows the registry may not show yet, and rows that ended though the registry
// still binds them. The answer maps a held handle to its row, a cleared one to
// "". Only a session outside any row asks; a join from inside a row may take its
// handle back. No daemon, or a failed call, gives no ruling on the handles not
// yet asked, and the registry's binding decides them alone.
func (s *Session) daemonRuling(handles []string) map[string]string {
	ruling := map[string]string{}
	if s.Row != "" {
		return ruling
	}
	for _, h := range handles {
		if h == "" {
			continue
		}
		var res wire.AgentJoined
		if err := s.CallDaemon(wire.OpAgentJoin, wire.AgentJoin{Handle: h}, &res); err != nil {
			return ruling
		}
		switch res.Answer {
		case wire.JoinHeld:
			ruling[h] = cmp.Or(res.Row, "unknown")
		case wire.JoinOK:
			ruling[h] = ""
		}
	}
	return ruling
}

// holder names the row that holds h, "" for none: the daemon's ruling, else
// the registry's binding.
func (s *Session) holder(ruling map[string]string, d *registry.Doc, h string) string {
	if row, ok := ruling[h]; ok {
		return row
	}
	return s.heldByRow(d, h)
}

// heldByRow names the row that holds name when it is not this session's own.
func (s *Session) heldByRow(d *registry.Doc, name string) string {
	if e, ok := d.Agents[name]; ok && e.BoundElsewhere(s.Row) {
		return e.WorkspaceID
	}
	return ""
}

// projectRoot is the top of the git work tree holding dir, else dir itself.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}
