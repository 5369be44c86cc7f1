//go:build unix

package client

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/daemontest"
	"github.com/sotcomm/sotd/wire"
)

// listOut is what s.List(a) printed, stdout and stderr together.
func listOut(t *testing.T, s *Session, a ListArgs) string {
	t.Helper()
	var out strings.Builder
	s.Stdout, s.Stderr = &out, &out
	if code := s.List(a); code != ExitOK {
		t.Fatalf("list %+v: exit %d:\n%s", a, code, out.String())
	}
	return out.String()
}

// wantLines fails unless out has a line matching each pattern, and none
// matching any of not.
func wantLines(t *testing.T, out string, want, not []string) {
	t.Helper()
	for _, p := range want {
		if !regexp.MustCompile(`(?m)` + p).MatchString(out) {
			t.Errorf("no line matches %q in:\n%s", p, out)
		}
	}
	for _, p := range not {
		if regexp.MustCompile(`(?m)` + p).MatchString(out) {
			t.Errorf("a line matches %q in:\n%s", p, out)
		}
	}
}

// A list shows the live sessions and one closing line counting the stale
// entries it left out; --all shows every entry. This account's daemon leaves
// the stale out of its answer itself, counted, so the list's cost follows what
// is live; with no daemon the file gives the same list.
func TestListLeavesTheStaleOut(t *testing.T) {
	s := listHome(t, 2, 3)
	t.Setenv(home.EnvSocket, "")
	daemontest.Start(t, s.Home, s.Host)
	nl, own, err := s.netPages(true)
	if err != nil || !own {
		t.Fatalf("net.list: own %v, err %v; want this account's daemon's answer", own, err)
	}
	if len(nl.Entries) != 2 || nl.Stale != 3 {
		t.Fatalf("net.list of the live: %d entries and %d stale; want the 2 live, 3 stale counted", len(nl.Entries), nl.Stale)
	}
	live := []string{`^@alice +live `, `^@live000 +live `, `^3 stale entries not shown; sotd list --all shows them$`}
	stale := []string{`^@s0000\d`}
	wantLines(t, listOut(t, s, ListArgs{}), live, append(stale, `stale +box`))
	wantLines(t, listOut(t, s, ListArgs{All: true}), []string{`^@alice +live `, `^@s00000 +stale `, `^@s00002 +stale `}, []string{`not shown`})
	wantLines(t, listOut(t, s, ListArgs{JSON: true}), []string{`^sotd: 3 stale entries not shown; sotd list --all shows them$`}, []string{`"s0000`})

	t.Setenv(home.EnvSocket, filepath.Join(t.TempDir(), "none.sock"))
	wantLines(t, listOut(t, s, ListArgs{}), live, stale)
}

// A daemon older than NetListPage.Live answers every entry: the list leaves
// the stale ones out itself, and counts them with the ones the daemon did.
func TestListLeavesOutWhatAnOlderDaemonSends(t *testing.T) {
	s, out := hostileSession(t, wire.NetList{Box: "box", Known: true, Stale: 2, Boxes: []wire.ViewBox{{Box: "box", Up: true}},
		Entries: []wire.ViewEntry{{Handle: "amy", Box: "ga", Live: true, State: "idle"}, {Handle: "zed", Box: "gb", State: "idle"}}})
	if code := s.List(ListArgs{}); code != ExitOK {
		t.Fatalf("list exit %d: %s", code, out)
	}
	wantLines(t, out.String(), []string{`^@amy +live +ga `, `^3 stale entries not shown; sotd list --all shows them$`}, []string{`@zed`})
}
