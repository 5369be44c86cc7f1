//go:build agents && (linux || darwin)

package web

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/chromium"
)

// xss is a body that would run script if the page took it for markup.
const xss = `<img src=x onerror="window.xssRan=1"><script>window.xssRan=2</script>`

// The status page in a real browser: it renders the snapshot, an agent that
// joins, an unread count that changes, and recovers by itself when the daemon
// restarts. The screenshot is kept in $SOTD_ARTIFACTS, else the test's temp
// dir, and its path logged.
func TestStatusPageInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	// The ages below are rendered from the clock, so each is half a minute
	// into its rounding ("2m ago" from 90 s, "3m ago" from 150 s): it reads
	// the same for the test's first minute however slow the machine is.
	now := time.Now().UTC()
	r := startServer(t, 0, View{
		Host:       "box",
		Agents:     []Agent{{Handle: "alice", Host: "box", Live: true, State: "working", Summary: "writing tests", StatusAt: now.Add(-90 * time.Second), Local: true}},
		Rows:       []Row{{ID: "r1", Host: "box", Handle: "alice", Phase: "running"}},
		RemoteRows: []Row{{ID: "r1", Host: "nas", Label: "api", Agent: "claude", Handle: "bob", Phase: "Ready", Since: now.Add(-150 * time.Second)}},
		Links:      []Link{{Peer: "nas", Up: true, RTTMillis: 1.7, Since: now.Add(-time.Hour)}},
		Conversations: []Conversation{{Key: "alice mallory", Handles: [2]string{"alice", "mallory"}, Lines: []MailLine{
			{ID: "M1", From: "mallory", To: "alice", Msg: xss, TS: now.Format(time.RFC3339)},
		}}},
		MailRates: []MailRate{{Box: "nas", Counts: []MinuteCount{{Minute: now.Unix() / 60, N: 4}, {Minute: now.Unix()/60 - 2, N: 1}}}},
	})
	b := chromium.Open(t, pageURL(r.srv.Addr(), r.srv.token))

	b.WaitDOM(`document.getElementById("conn").textContent`, "live")
	// A body is text, never markup: the image is not made and its handler
	// never runs.
	b.WaitDOM(`document.querySelector("#conv-alice--mallory .msg").textContent`, xss)
	b.WaitDOM(`String(document.querySelectorAll("#conversations img").length + " " + window.xssRan)`, "0 undefined")
	b.WaitDOM(`document.querySelector("#conv-alice--mallory .read").textContent`, "unread")
	// nas's chart counts the five lines filed here from it, in two bars.
	b.WaitDOM(`document.querySelector("#box-nas .mail-rate").dataset.total + " " + document.querySelectorAll("#box-nas svg.rate rect").length`, "5 2")
	b.WaitDOM(`document.querySelector("#agent-alice .state").textContent`, "working")
	b.WaitDOM(`document.querySelector("#agent-alice .age").textContent`, "2m ago")
	b.WaitDOM(`document.getElementById("row-box/r1").querySelector(".phase").textContent`, "running")
	b.WaitDOM(`document.querySelector("#link-nas .up").textContent`, "up")
	// Another box's row is listed under that box, with no way to read its
	// screen from here; this box's own row has its preview.
	b.WaitDOM(`document.querySelector("#box-nas").contains(document.getElementById("row-nas/r1"))`, "true")
	b.WaitDOM(`document.getElementById("row-nas/r1").querySelector(".label").textContent`, "api")
	b.WaitDOM(`document.getElementById("row-nas/r1").querySelector(".age").textContent`, "3m ago")
	b.WaitDOM(`document.getElementById("row-nas/r1").querySelector(".screen").textContent`, "preview on nas's own page")
	b.WaitDOM(`document.getElementById("row-box/r1").querySelector(".screen").textContent`, "preview")
	exit := 3
	r.fake.boxRows("nas", []Row{{ID: "r1", Host: "nas", Handle: "bob", Phase: "Stopped", ExitCode: &exit}})
	b.WaitDOM(`document.getElementById("row-nas/r1").querySelector(".exit").textContent`, "3")

	r.fake.join(Agent{Handle: "bob", Host: "nas", Live: true, State: "blocked", Summary: "which schema?", StatusAt: now})
	b.WaitDOM(`document.querySelector("#box-nas #agent-bob .state").textContent`, "blocked")
	// Another box's inbox is not read here: no count, and a dash says so.
	b.WaitDOM(`document.querySelector("#agent-bob .unread").textContent`, "—")
	b.WaitDOM(`document.querySelector("#agent-alice .unread").textContent`, "0")
	r.fake.unread("alice", 3)
	b.WaitDOM(`document.querySelector("#agent-alice .unread").textContent`, "3")

	b.KeepScreenshot("status-page.png")
	r.fake.boxRows("nas", nil)
	b.WaitDOM(`String(document.getElementById("row-nas/r1"))`, "null")

	// The daemon restarts on the same address with a new agent: the page
	// reconnects and starts again from the new daemon's snapshot.
	addr := r.srv.Addr()
	r.stop()
	b.WaitDOM(`document.getElementById("conn").textContent`, "reconnecting")
	again := runServer(t, r.home, addr, newFake(View{Host: "box", Agents: []Agent{{Handle: "carol", Host: "box", Live: true, State: "idle", Local: true}}}), 0)
	b.WaitDOM(`document.querySelector("#agent-carol .state").textContent`, "idle")
	b.WaitDOM(`String(document.getElementById("agent-bob"))`, "null")
	again.fake.unread("carol", 1)
	b.WaitDOM(`document.querySelector("#agent-carol .unread").textContent`, "1")
}
