//go:build agents && (linux || darwin)

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/chromium"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestStatusPageShowsTheNetwork opens the status pages of real daemons on three
// boxes (a hub hb and guests ga and gb) in headless Chromium: each page shows
// every box's sessions by box, this box's unread counts, its links with their
// transport; a row spawned on gb (as @gbrow) is listed under gb on the hub's page and on
// ga's, with its phase and a pointer to gb's own page for its screen, until it
// is despawned; a message typed into ga's page is filed once on gb from fe-ga; a
// box killed shows as down within the heartbeat window and comes back; with
// the hub gone ga's page says the rest is unknown and why. Screenshots are
// kept in $SOTD_ARTIFACTS.
func TestStatusPageShowsTheNetwork(t *testing.T) {
	chromium.Binary(t)
	t.Parallel()
	n := newNetwork(t, "ga", "gb")
	n.quickBeats() // it watches links die: a 2 s beat, dead after 6 s
	hb, ga, gb := n.hub, n.boxes["ga"], n.boxes["gb"]
	n.linkAll("ga", "gb")
	n.start("ga", "gb")

	hubPage := chromium.Open(t, strings.TrimSpace(hb.must("", "url")))
	hubPage.WaitDOM(`document.getElementById("conn").textContent`, "live")
	hubPage.WaitDOM(`document.querySelector("#box-hb .empty").textContent`, "no session has joined: run sotd join")
	hubPage.KeepScreenshot("network-page-empty.png")

	hb.must("hank", "join")
	ga.must("alice", "join")
	gb.must("bob", "join")
	live := func(box, handle string) string {
		return `String(document.querySelector("#box-` + box + ` #agent-` + handle + ` td:nth-child(2)")?.textContent)`
	}
	for _, p := range []*chromium.Browser{hubPage} {
		p.WaitDOM(live("hb", "hank"), "live")
		p.WaitDOM(live("ga", "alice"), "live")
		p.WaitDOM(live("gb", "bob"), "live")
	}
	page := chromium.Open(t, strings.TrimSpace(ga.must("", "url")))
	page.WaitDOM(`document.getElementById("conn").textContent`, "live")
	page.WaitDOM(live("hb", "hank"), "live")
	page.WaitDOM(live("ga", "alice"), "live")
	page.WaitDOM(live("gb", "bob"), "live")
	page.WaitDOM(`document.querySelector("#agent-alice .unread").textContent`, "0")
	page.WaitDOM(`document.querySelector("#agent-bob .unread").textContent`, "—")
	page.WaitDOM(`document.querySelector("#link-hb .health").textContent`, "up")
	page.WaitDOM(`document.querySelector("#link-hb .transport").textContent`, "quic")
	hubPage.WaitDOM(`document.querySelector("#link-ga .transport").textContent`, "quic")

	// A row on gb is listed on the hub's page and on ga's under gb, with its
	// phase and no way to read its screen there; despawned, it goes.
	rowAt := time.Now()
	rowID := strings.TrimSpace(gb.must("", "spawn", "--label", "X", "--handle", "gbrow", "--", "sleep", "600"))
	despawned := false
	t.Cleanup(func() {
		if !despawned {
			gb.run("", "", "despawn", rowID)
		}
	})
	row := func(field string) string {
		return `String(document.querySelector("#box-gb")?.contains(document.getElementById("row-gb/` + rowID + `")) && document.getElementById("row-gb/` + rowID + `").querySelector(".` + field + `").textContent)`
	}
	for _, p := range []*chromium.Browser{hubPage, page} {
		p.WaitDOM(row("phase"), "Ready")
		p.WaitDOM(row("label"), "X")
		p.WaitDOM(row("agent"), "other")
		p.WaitDOM(row("handle"), "@gbrow")
		p.WaitDOM(row("screen"), "preview on gb's own page")
	}
	hubPage.KeepScreenshot("network-page-remote-row.png")
	gb.must("", "despawn", rowID)
	despawned = true
	for _, p := range []*chromium.Browser{hubPage, page} {
		p.WaitDOM(`String(document.getElementById("row-gb/`+rowID+`"))`, "null")
	}
	t.Logf("gb's row showed on the hub's page and ga's, and went after its despawn, in %s", time.Since(rowAt).Round(100*time.Millisecond))

	// A message from the page goes by the box's own send path, once.
	page.Eval(`(() => { const f = document.getElementById("send"); f.to.value = "@bob"; f.text.value = "hello from ga's page"; f.requestSubmit(); return "" })()`)
	page.WaitDOM(`document.getElementById("send-result").textContent`, "filed -> @bob")
	ids := gb.inboxIDs("bob")
	if len(ids) != 1 {
		t.Fatalf("bob's inbox on gb holds %v after one page send", ids)
	}
	if line := lastLine(t, gb, "bob"); line.From != "fe-ga" || line.Msg != "hello from ga's page" {
		t.Fatalf("the page's line in bob's inbox: %+v; want from fe-ga", line)
	}
	page.Eval(`(() => { const f = document.getElementById("send"); f.to.value = "nobody"; f.text.value = "hi"; f.requestSubmit(); return "" })()`)
	page.WaitDOM(`document.getElementById("send-result").textContent`, "FAILED -> @nobody: no box knows that handle: nobody")
	ga.must("bob-on-ga", "join")
	gb.must("bob", "send", "@alice", "one unread")
	page.WaitDOM(`document.querySelector("#agent-alice .unread").textContent`, "1")
	page.KeepScreenshot("network-page-three-boxes.png")

	n.daemons["gb"].kill()
	killed := time.Now()
	page.WaitDOM(`String(document.getElementById("box-gb")?.dataset.up)`, "false")
	page.WaitDOM(`String(document.getElementById("agent-bob"))`, "null")
	if took := time.Since(killed); took > 20*time.Second {
		t.Fatalf("gb showed as down on ga's page %s after its kill, past the heartbeat window", took)
	}
	t.Logf("gb showed as down on ga's page %s after its kill", time.Since(killed).Round(100*time.Millisecond))
	hubPage.WaitDOM(`document.querySelector("#link-gb .health").textContent`, "down")
	page.KeepScreenshot("network-page-box-down.png")
	n.daemons["gb"] = gb.serve()
	n.waitLinked("gb")
	page.WaitDOM(`String(document.getElementById("box-gb")?.dataset.up)`, "true")
	page.WaitDOM(live("gb", "bob"), "live")

	n.killHub()
	testutil.Eventually(t, 20*time.Second, "ga's page to say the rest is unknown", func() bool {
		return strings.HasPrefix(page.Eval(`document.getElementById("network-note").textContent`), "Other boxes are unknown: the link to the hub hb is down")
	})
	page.WaitDOM(`document.querySelector("#link-hb .health").textContent`, "down")
	if reason := page.Eval(`document.querySelector("#link-hb .reason").textContent`); reason == "" {
		t.Fatal("the link to the hub is down on ga's page with no reason")
	}
	page.WaitDOM(`String(document.getElementById("agent-hank"))`, "null")
	page.KeepScreenshot("network-page-hub-down.png")
	n.startHub()
	n.waitLinked("ga")
	page.WaitDOM(`document.getElementById("network-note").textContent`, "")
	page.WaitDOM(live("hb", "hank"), "live")
	page.WaitDOM(`document.querySelector("#link-hb .health").textContent`, "up")
	page.KeepScreenshot("network-page-hub-back.png")
}

type inboxLine struct {
	From      string `json:"from"`
	Msg       string `json:"msg"`
	ID        string `json:"id"`
	InReplyTo string `json:"in_reply_to"`
}

func lastLine(t *testing.T, b *box, handle string) inboxLine {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.home, "inbox", handle+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var l inboxLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &l); err != nil {
		t.Fatal(err)
	}
	return l
}
