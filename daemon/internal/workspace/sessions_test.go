//go:build linux

package workspace

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// startProc runs sleep under the name given (a symlink to it), as a session's
// agent, and answers its pid and start as the agent-layer walk reads them.
func startProc(t *testing.T, name string) (*exec.Cmd, wire.SessionWatch) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(sleep, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	tab, err := ancestry.OSTable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := tab.Proc(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, wire.SessionWatch{PID: p.PID, Start: p.Start}
}

// TestSessionWatchStampsWhileTheAgentRuns: a watched session's handle is stamped
// with the rows' at each tick while its agent runs, by a daemon started again
// on the same home too, and no more once the agent has exited, when its record
// goes.
func TestSessionWatchStampsWhileTheAgentRuns(t *testing.T) {
	r := newStampRig(t)
	agent, req := startProc(t, "claude")
	req.Handle = "carol"
	if _, err := r.m.WatchSession(req, req.PID); err != nil {
		t.Fatal(err)
	}
	rec, _ := r.h.SessionRecord("box", "carol")
	if _, err := os.Stat(rec); err != nil {
		t.Fatalf("no session record: %v", err)
	}

	r.clk.Add(20 * time.Minute)
	if err := r.st.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.lastSeen(t, "carol"), registry.Stamp(r.clk.Now()); got != want {
		t.Fatalf("carol last_seen = %s, want %s: an idle session whose agent runs is stamped", got, want)
	}
	if got, want := r.lastSeen(t, "bob"), registry.Stamp(rigtest.Now.Add(-time.Minute)); got != want {
		t.Errorf("bob, whom nobody watches, was stamped: %s", got)
	}

	// A daemon started again reads the record from the home.
	again := newStamper(New(r.h, "box", r.m.log, r.clk.Now, r.m.b))
	r.clk.Add(20 * time.Minute)
	if err := again.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.lastSeen(t, "carol"), registry.Stamp(r.clk.Now()); got != want {
		t.Fatalf("after a restart carol last_seen = %s, want %s", got, want)
	}

	// The agent exits: the next pass stamps nothing and drops the record, so the
	// ten minutes run from the last stamp.
	agent.Process.Kill()
	agent.Wait()
	last := r.lastSeen(t, "carol")
	r.clk.Add(time.Minute)
	if err := again.stampAll(); err != nil {
		t.Fatal(err)
	}
	if got := r.lastSeen(t, "carol"); got != last {
		t.Errorf("carol was stamped after its agent exited: %s, want %s", got, last)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("the ended session's record stays: %v", err)
	}
	if !strings.Contains(r.logs.String(), "a watched session's agent ended") {
		t.Errorf("the end is not logged:\n%s", r.logs)
	}
}

// TestSessionWatchRefusals: the daemon reads the process itself and watches
// only a running agent whose start is the one named, for a handle listed on
// this box outside any row.
func TestSessionWatchRefusals(t *testing.T) {
	r := newStampRig(t)
	_, agent := startProc(t, "claude")
	_, plain := startProc(t, "sleepy")
	gone, ended := startProc(t, "codex")
	gone.Process.Kill()
	gone.Wait()
	with := func(req wire.SessionWatch, handle string) wire.SessionWatch {
		req.Handle = handle
		return req
	}
	reused := agent
	reused.Start += "1"
	for _, tc := range []struct {
		name string
		req  wire.SessionWatch
		want string
	}{
		{"not an agent", with(plain, "carol"), "is not an agent"},
		{"another start", with(reused, "carol"), "it is another process"},
		{"ended", with(ended, "carol"), "is not running"},
		{"not listed", with(agent, "nobody"), "@nobody is not in the registry"},
		{"a row's", with(agent, "Repo-box"), "is bound to row"},
		{"not a handle", with(agent, "../x"), "not a handle"},
	} {
		_, err := r.m.WatchSession(tc.req, tc.req.PID)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a refusal saying %q", tc.name, err, tc.want)
		}
	}
	entries, _ := os.ReadDir(r.h.SessionsDir("box"))
	if len(entries) != 0 {
		t.Errorf("a refused watch left records: %v", entries)
	}
}

// TestSessionRecordThroughASymlinkIsRefused: a record linked in from elsewhere
// is never read through the link (whoever wrote its target would have a handle
// stamped live); it is dropped with a warning that names the link.
func TestSessionRecordThroughASymlinkIsRefused(t *testing.T) {
	h := rigtest.NewHome(t)
	logs := &testutil.SyncBuffer{}
	m := New(h, "box", slog.New(slog.NewTextHandler(logs, nil)), time.Now, nil)
	_, req := startProc(t, "claude")
	elsewhere := filepath.Join(t.TempDir(), "carol.json")
	b, _ := json.Marshal(sessionRecord{Handle: "carol", PID: req.PID, Start: req.Start})
	if err := os.WriteFile(elsewhere, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rec, _ := h.SessionRecord("box", "carol")
	if err := home.MkdirPrivate(filepath.Dir(rec)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, rec); err != nil {
		t.Fatal(err)
	}
	got, err := m.watchedSessions()
	if err != nil || len(got) != 0 {
		t.Fatalf("watchedSessions = %v, %v; want none, the link refused", got, err)
	}
	if !strings.Contains(logs.String(), "carol.json is a symlink, not a regular file") {
		t.Errorf("the refusal is not logged:\n%s", logs)
	}
	if _, err := os.Lstat(rec); !os.IsNotExist(err) {
		t.Errorf("the link stays: %v", err)
	}
}

// TestSessionWatchOnlyOfTheAskersOwnAgent: a session may have the daemon watch
// only its own agent, an ancestor of the process that asks, running as the
// daemon's account. Before, any process named claude or codex, of any account,
// kept any handle live for as long as it ran: a watch from elsewhere, through
// the socket as a join sends it, and one of another account's agent are
// refused and write no record.
func TestSessionWatchOnlyOfTheAskersOwnAgent(t *testing.T) {
	r := newStampRig(t)
	agent, child := rigtest.AgentAbove(t)
	if _, err := r.m.WatchSession(agent, child); err != nil {
		t.Fatalf("the watch of the asker's own agent: %v", err)
	}
	rec, _ := r.h.SessionRecord("box", "carol")
	if err := os.Remove(rec); err != nil {
		t.Fatalf("no record of the watched agent: %v", err)
	}

	// The test is the agent's parent, not its child: asked by it, the watch
	// is refused (over the socket, the daemon takes the asker from the
	// connection: TestSessionWatchAskerIsTheConnectionsPeer).
	_, err := r.m.WatchSession(agent, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d is not an ancestor of the asking process %d", agent.PID, os.Getpid())) {
		t.Errorf("the watch asked by the agent's parent: %v, want it refused", err)
	}

	if os.Getuid() == 0 {
		other := startAs(t, 4242)
		other.Handle = "carol"
		_, err = r.m.WatchSession(other, other.PID)
		if err == nil || !strings.Contains(err.Error(), "runs as uid 4242, not as this daemon's account") {
			t.Errorf("the watch of another account's agent: %v, want it refused", err)
		}
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("a refused watch left a record: %v", err)
	}
}

// startAs runs a process named claude as uid, and answers it as a watch names
// it.
func startAs(t *testing.T, uid uint32) wire.SessionWatch {
	t.Helper()
	dir, err := os.MkdirTemp("", "agent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	link := filepath.Join(dir, "claude")
	if err := os.Symlink(sleep, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a process as uid %d: %v", uid, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	tab, err := ancestry.OSTable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := tab.Proc(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return wire.SessionWatch{PID: p.PID, Start: p.Start}
}
