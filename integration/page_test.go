//go:build agents && (linux || darwin)

package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/chromium"
)

// TestStatusPageFollowsRealClients opens a real daemon's status page in
// headless Chromium and reads its DOM while real client processes act: an
// agent that joins appears, mail filed to it is counted unread, a poll clears
// the count, and after the daemon is killed with SIGKILL and started again the
// page reconnects by itself and follows the new daemon.
func TestStatusPageFollowsRealClients(t *testing.T) {
	t.Parallel()
	chromium.Binary(t) // skips before building a home when there is no browser
	b := newBox(t, "box")
	d := b.serve()
	waitLog(t, d, `msg="status page serving"`, 20*time.Second)
	url := strings.TrimSpace(b.must("", "url"))
	page := chromium.Open(t, url)

	const (
		conn   = `document.getElementById("conn").textContent`
		unread = `document.querySelector("#agent-alice .unread").textContent`
	)
	page.WaitDOM(conn, "live")
	page.WaitDOM(`document.getElementById("host").textContent`, "@ box")

	b.must("alice", "join")
	b.must("bob", "join")
	page.WaitDOM(`document.querySelector("#box-box #agent-alice td:nth-child(2)").textContent`, "live")
	page.WaitDOM(unread, "0")

	for i := range 3 {
		b.must("bob", "send", "@alice", "line "+strconv.Itoa(i))
	}
	page.WaitDOM(unread, "3")
	page.WaitDOM(`document.querySelector("#agent-alice .unread").dataset.n`, "3")
	page.KeepScreenshot("status-page-daemon.png")

	if out := b.must("alice", "poll"); !strings.Contains(out, "line 2") {
		t.Fatalf("alice's poll printed %q, want the three lines", out)
	}
	page.WaitDOM(unread, "0")

	d.kill()
	page.WaitDOM(conn, "reconnecting")
	again := b.serve()
	waitLog(t, again, `msg="status page serving"`, 20*time.Second)
	if now := strings.TrimSpace(b.must("", "url")); now != url {
		t.Fatalf("after the restart the status page is at %s, not %s, so an open page cannot find it again", now, url)
	}
	page.WaitDOM(conn, "live")
	page.WaitDOM(unread, "0")
	b.must("bob", "send", "@alice", "after the restart")
	page.WaitDOM(unread, "1")
}
