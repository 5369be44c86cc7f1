//go:build linux

package daemon

import (
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
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
	if _, err := r.m.watchSession(req); err != nil {
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
	if got, want := r.lastSeen(t, "bob"), registry.Stamp(testNow.Add(-time.Minute)); got != want {
		t.Errorf("bob, whom nobody watches, was stamped: %s", got)
	}

	// A daemon started again reads the record from the home.
	again := newStamper(newRowsManager(r.h, "box", r.m.log, r.clk.Now, r.m.b))
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
		_, err := r.m.watchSession(tc.req)
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
	h := newHome(t)
	logs := &testutil.SyncBuffer{}
	m := newRowsManager(h, "box", slog.New(slog.NewTextHandler(logs, nil)), time.Now, nil)
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
