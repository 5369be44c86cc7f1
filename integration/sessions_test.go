//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// live3 judges liveness over 3 s instead of 600, so "idle for ten minutes" is
// idle for a few seconds.
var live3 = []string{"COMM_LIVE_SECS=3"}

// TestPlainSessionsOnOneBox: two terminals in two projects and a claude session
// in a third each join with no flag and no environment variable, send both ways,
// poll, and list themselves as (me); the agent session stays reachable while it
// idles (its daemon stamps it while its agent runs, across a daemon restart) and
// is refused once its agent has exited, while an idle terminal keeps the
// protocol's rule.
func TestPlainSessionsOnOneBox(t *testing.T) {
	t.Parallel()
	b := newBox(t, "box")
	b.extra = []string{"SOT_STAMP_SECS=1"}
	d := b.serve()
	projects := t.TempDir()
	dir := func(name string) string {
		p := filepath.Join(projects, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	alphaDir, betaDir, gammaDir := dir("Alpha"), dir("Beta"), dir("Gamma")
	alpha := b.startSession(t, "bash", true)
	beta := b.startSession(t, "bash", true)
	claude := b.startSession(t, "claude", false)

	for _, c := range []struct {
		s        *session
		dir, out string
	}{{alpha, alphaDir, "@Alpha-box"}, {beta, betaDir, "@Beta-box"}, {claude, gammaDir, "@Gamma-box"}} {
		r := c.s.run(c.dir, nil, "join")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "joined as "+c.out+" ") || r.stderr != "" {
			t.Fatalf("join in %s: exit %d\nstdout: %s\nstderr: %s", c.dir, r.code, r.stdout, r.stderr)
		}
	}
	names := selfNames(t, b)
	for _, want := range []string{
		fmt.Sprintf(`^box--term-%d-\d+\.txt$`, alpha.pid),
		fmt.Sprintf(`^box--term-%d-\d+\.txt$`, beta.pid),
		fmt.Sprintf(`^box--agent-%d-\d+\.txt$`, claude.pid),
	} {
		if !slicesMatch(names, want) {
			t.Errorf("no self file matches %s in %v", want, names)
		}
	}

	// Send both ways, poll, list: each session acts as its own handle.
	for _, m := range []struct {
		from     *session
		fromDir  string
		to, text string
	}{
		{alpha, alphaDir, "Beta-box", "alpha to beta"},
		{beta, betaDir, "Alpha-box", "beta to alpha"},
		{claude, gammaDir, "Alpha-box", "gamma to alpha"},
		{alpha, alphaDir, "Gamma-box", "alpha to gamma"},
	} {
		if out := m.from.must(m.fromDir, "send", "@"+m.to, m.text); !strings.Contains(out, "filed -> @"+m.to) {
			t.Fatalf("send %q: %s", m.text, out)
		}
	}
	for _, p := range []struct {
		s    *session
		dir  string
		want []string
	}{
		{alpha, alphaDir, []string{"@Beta-box (", "): beta to alpha", "@Gamma-box (", "): gamma to alpha"}},
		{beta, betaDir, []string{"@Alpha-box (", "): alpha to beta"}},
		{claude, gammaDir, []string{"@Alpha-box (", "): alpha to gamma"}},
	} {
		out := p.s.must(p.dir, "poll")
		for _, w := range p.want {
			if !strings.Contains(out, w) {
				t.Errorf("poll in %s: %q not in\n%s", p.dir, w, out)
			}
		}
	}
	for _, l := range []struct {
		s       *session
		dir, me string
	}{{alpha, alphaDir, "Alpha-box"}, {beta, betaDir, "Beta-box"}, {claude, gammaDir, "Gamma-box"}} {
		out := l.s.must(l.dir, "list")
		if n := strings.Count(out, "(me)"); n != 1 || !regexp.MustCompile(`(?m)^@`+l.me+` \(me\) +live`).MatchString(out) {
			t.Errorf("list in %s, want @%s (me) once:\n%s", l.dir, l.me, out)
		}
	}

	// Idle: no command from any session. The claude session's daemon stamps it
	// while its agent runs; the terminals are stamped by nobody.
	h, err := home.At(b.home)
	if err != nil {
		t.Fatal(err)
	}
	lastSeen := func(handle string) string {
		doc, err := registry.Read(h)
		if err != nil {
			t.Fatal(err)
		}
		if e := doc.Agents[handle]; e != nil {
			return e.LastSeen
		}
		return ""
	}
	idleFrom := time.Now()
	testutil.Eventually(t, 20*time.Second, "the idle claude session stamped 4 s after its last command", func() bool {
		return lastSeen("Gamma-box") >= registry.Stamp(idleFrom.Add(4*time.Second))
	})
	if out := alpha.run(alphaDir, live3, "send", "@Gamma-box", "still there?"); !strings.Contains(out.stdout, "filed -> @Gamma-box") {
		t.Fatalf("send to the idle claude session, its agent alive: %+v", out)
	}
	if out := alpha.run(alphaDir, live3, "send", "@Beta-box", "still there?"); !strings.Contains(out.stdout, "no live session holds @Beta-box") {
		t.Fatalf("send to the idle terminal session with no agent, want the protocol's refusal: %+v", out)
	}
	if out := claude.must(gammaDir, "poll"); !strings.Contains(out, "): still there?") {
		t.Errorf("the claude session's poll: %s", out)
	}

	// A daemon started again goes on stamping from the record in the home.
	d.stop(t)
	b.serve()
	restarted := time.Now()
	testutil.Eventually(t, 20*time.Second, "the claude session stamped by the restarted daemon", func() bool {
		return lastSeen("Gamma-box") >= registry.Stamp(restarted.Add(2*time.Second))
	})

	// Its agent exits: within the (shortened) ten minutes mail is refused.
	claude.end()
	testutil.Eventually(t, 20*time.Second, "mail to the claude session refused once its agent exited", func() bool {
		out := alpha.run(alphaDir, live3, "send", "@Gamma-box", "gone?")
		return strings.Contains(out.stdout, "no live session holds @Gamma-box")
	})
	rec, _ := h.SessionRecord("box", "Gamma-box")
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("the ended session's record stays: %v", err)
	}
}

// TestSessionsInOneProject: a second terminal in a project another live session
// holds joins as the project's next tier name and says why; an explicit name a
// live session holds is refused, and --repin takes it saying whose it was; a
// terminal whose session moves to another project is refused until --repin; a
// private self file whose session ended is swept at the next join.
func TestSessionsInOneProject(t *testing.T) {
	t.Parallel()
	b := newBox(t, "box")
	b.serve()
	projects := t.TempDir()
	alphaDir, deltaDir := filepath.Join(projects, "src", "Alpha"), filepath.Join(projects, "Delta")
	for _, p := range []string{alphaDir, deltaDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := b.startSession(t, "bash", true)
	second := b.startSession(t, "bash", true)
	if out := first.must(alphaDir, "join"); !strings.HasPrefix(out, "joined as @Alpha-box ") {
		t.Fatal(out)
	}
	r := second.run(alphaDir, nil, "join")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "joined as @Alpha-src-box ") ||
		!strings.Contains(r.stderr, fmt.Sprintf("@Alpha-box is held by another live session on this box (the terminal session of pid %d, joined from %s); this session joins as @Alpha-src-box", first.pid, alphaDir)) ||
		!strings.Contains(r.stderr, "git worktree") {
		t.Fatalf("a second session in the project: %+v", r)
	}

	r = second.run(alphaDir, nil, "join", "--name", "Alpha-box")
	if r.code != 3 || !strings.Contains(r.stdout, "REFUSING to join: @Alpha-box is held by another live session on this box") {
		t.Fatalf("an explicit name a live session holds: %+v", r)
	}
	r = second.run(alphaDir, nil, "join", "--name", "Alpha-box", "--repin")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "joined as @Alpha-box ") ||
		!strings.Contains(r.stderr, fmt.Sprintf("--repin: @Alpha-box was held by the terminal session of pid %d", first.pid)) ||
		!strings.Contains(r.stderr, "this session was @Alpha-src-box") {
		t.Fatalf("--repin of a live session's handle: %+v", r)
	}
	if r := first.run(alphaDir, nil, "send", "@Alpha-box", "x"); r.code != 1 || !strings.Contains(r.stdout, "has not joined") {
		t.Errorf("the displaced session still acts as a handle: %+v", r)
	}
	if out := second.must(alphaDir, "list"); !strings.Contains(out, "@Alpha-box (me)") {
		t.Errorf("list after --repin: %s", out)
	}

	// One terminal session is one identity: joining from another project would
	// move it, so that is refused until --repin.
	r = second.run(deltaDir, nil, "join")
	if r.code != 3 || !strings.Contains(r.stdout, "names @Alpha-box of project Alpha") || !strings.Contains(r.stdout, "--repin") {
		t.Fatalf("a join from another project: %+v", r)
	}
	r = second.run(deltaDir, nil, "join", "--repin")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "joined as @Delta-box ") || !strings.Contains(r.stderr, "this session was @Alpha-box") {
		t.Fatalf("--repin to another project: %+v", r)
	}

	// A session ends: its self file goes at the next join on the box.
	gone := fmt.Sprintf("box--term-%d-", second.pid)
	if !slicesMatch(selfNames(t, b), "^"+gone) {
		t.Fatalf("no self file %s* in %v", gone, selfNames(t, b))
	}
	second.end()
	first.must(alphaDir, "join")
	if slicesMatch(selfNames(t, b), "^"+gone) {
		t.Errorf("the ended session's self file %s* stays: %v", gone, selfNames(t, b))
	}
}

func slicesMatch(names []string, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, n := range names {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

func selfNames(t *testing.T, b *box) []string {
	t.Helper()
	selfs, err := os.ReadDir(filepath.Join(b.home, "self"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range selfs {
		names = append(names, e.Name())
	}
	return names
}
