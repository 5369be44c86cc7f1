package integration

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/wire"
)

// TestSentAcrossBoxes runs a hub (hb) and two guests (g1, g2) as real daemons:
// @a on g1 sends to @b on g2 and @c on the hub, and `sotd sent` on g1 shows
// both lines, read once @b polls, and still answers, naming g2, when g2 dies.
func TestSentAcrossBoxes(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "g1", "g2")
	hb, g1, g2 := n.hub, n.boxes["g1"], n.boxes["g2"]
	n.linkAll("g1", "g2")
	n.start("g1", "g2")
	g1.must("a", "join")
	g2.must("b", "join")
	hb.must("c", "join")
	for _, to := range []string{"b", "c"} {
		if out := g1.must("a", "send", "@"+to, "hello "+to); out != "filed -> @"+to+"\n" {
			t.Fatalf("send to @%s printed %q", to, out)
		}
	}

	r := g1.run("a", "", "sent", "--json")
	var got []wire.Receipt
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("sent --json: exit %d, %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
	want := []wire.Receipt{{To: "b", Msg: "hello b", Box: "g2"}, {To: "c", Msg: "hello c", Box: "hb"}}
	if len(got) != len(want) {
		t.Fatalf("sent --json = %+v; want @b on g2 and @c on hb, both unread", got)
	}
	for i, w := range want {
		if g := got[i]; g.To != w.To || g.Msg != w.Msg || g.Box != w.Box || g.Read || len(g.ID) != 26 {
			t.Fatalf("sent --json = %+v; want @b on g2 and @c on hb, both unread", got)
		}
	}
	if r.stderr != "" {
		t.Fatalf("sent --json said on stderr %q; every box answered", r.stderr)
	}

	if out := g2.must("b", "poll"); !strings.Contains(out, "hello b") {
		t.Fatalf("@b's poll on g2:\n%s", out)
	}
	out := g1.must("a", "sent")
	for _, re := range []string{`(?m)^@b +g2 +\S+ +read +hello b$`, `(?m)^@c +hb +\S+ +unread +hello c$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Fatalf("sent after @b's poll does not match %s:\n%s", re, out)
		}
	}

	n.daemons["g2"].kill()
	start := time.Now()
	r = g1.run("a", "", "sent")
	took := time.Since(start)
	// g2's link is not yet judged dead (link.DeadAfter), so the answer waits
	// the receipts' own bound for g2 (wire.ReceiptsWait) and no longer; a
	// loaded machine adds seconds, never the dead-link judge's 15.
	if r.code != 0 || took >= link.DeadAfter {
		t.Fatalf("sent with g2 dead: exit %d after %s; want 0 before g2's link is judged dead (%s)\n%s%s", r.code, took, link.DeadAfter, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "hello c") || strings.Contains(r.stdout, "hello b") ||
		!strings.Contains(r.stdout, "note: no answer from g2; lines filed on that box are not shown\n") {
		t.Fatalf("sent with g2 dead, after %s:\n%s", took, r.stdout)
	}
	t.Logf("sent with g2 dead answered in %s", took)

	// With no daemon on g1, only g1's own home is read, and stderr says so.
	n.daemons["g1"].kill()
	r = g1.run("a", "", "sent")
	if r.code != 0 || r.stdout != "@a has sent nothing that an inbox here still holds\n" ||
		!strings.Contains(r.stderr, "only this home's inboxes are shown, and other boxes were not asked") {
		t.Fatalf("sent with no daemon: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
}
