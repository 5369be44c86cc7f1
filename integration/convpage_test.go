//go:build agents && (linux || darwin)

package integration

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/chromium"
	"github.com/sotcomm/sotd/mail"
)

// EnvDocImages, when set to a folder, is where TestStatusPageIsWorkedIn copies
// the screenshots docs/operations.md shows (go test -run TestStatusPageIsWorkedIn
// ./integration with SOTD_DOC_IMAGES=$PWD/docs/img renews them).
const EnvDocImages = "SOTD_DOC_IMAGES"

// TestStatusPageIsWorkedIn works the status page of a real daemon in headless
// Chromium: mail real clients file shows as a conversation of the pair, its
// body as text (a body that is markup runs nothing), unread until the receiver
// polls; a line filed later appears without a reload; a reply typed into the
// conversation's reply box is filed in the receiver's inbox as fe-<box>,
// answering the line; a row's screen opens beside the row and follows what
// the row prints; the box's mail chart counts the lines.
func TestStatusPageIsWorkedIn(t *testing.T) {
	t.Parallel()
	chromium.Binary(t)
	b := newBox(t, "box")
	d := b.serve()
	waitLog(t, d, `msg="status page serving"`, 20*time.Second)
	page := chromium.Open(t, strings.TrimSpace(b.must("", "url")))
	page.WaitDOM(`document.getElementById("conn").textContent`, "live")
	page.WaitDOM(`document.getElementById("conversations-empty").textContent`, "no mail is filed on this box yet: sotd send files it")

	b.must("alice", "join")
	b.must("bob", "join")
	const xss = `<img src=x onerror="window.xssRan=1">`
	b.must("bob", "send", "@alice", "the schema is ready")
	b.must("alice", "send", "@bob", xss)
	conv := `document.getElementById("conv-alice--bob")`
	page.WaitDOM(conv+`.querySelectorAll("li").length`, "2")
	page.WaitDOM(conv+`.querySelector("li .msg").textContent`, xss) // newest first
	page.WaitDOM(`String(document.querySelectorAll("#conversations img").length + " " + window.xssRan)`, "0 undefined")
	page.WaitDOM(conv+`.querySelector("li:nth-child(2) .read").textContent`, "unread")
	if out := b.must("alice", "poll"); !strings.Contains(out, "the schema is ready") {
		t.Fatalf("alice's poll printed %q", out)
	}
	page.WaitDOM(conv+`.querySelector("li:nth-child(2) .read").textContent`, "read")
	page.WaitDOM(`document.querySelector("#box-box .mail-rate").dataset.total`, "2")

	// A line filed while the page is open shows without a reload.
	b.must("bob", "send", "@alice", "can you review it?")
	page.WaitDOM(conv+`.querySelector("li .msg").textContent`, "can you review it?")
	asked := lastLine(t, b, "alice")

	// The reply box answers the newest line not the page's own: bob's.
	page.WaitDOM(conv+`.querySelector("form.reply input").placeholder`, "reply to @bob as fe-box")
	page.Eval(`(() => { const f = document.querySelector("#conv-alice--bob form.reply"); f.text.value = "reviewing now"; f.text.dispatchEvent(new Event("input")); f.requestSubmit(); return "" })()`)
	page.WaitDOM(conv+`.querySelector(".reply-result").textContent`, "filed -> @bob")
	got := lastLine(t, b, "bob")
	if got.From != "fe-box" || got.Msg != "reviewing now" || got.InReplyTo != asked.ID || asked.ID == "" {
		t.Fatalf("the reply was filed in bob's inbox as %+v; want from fe-box answering %q", got, asked.ID)
	}
	page.WaitDOM(`document.querySelector("#conv-bob--fe-box li .msg").textContent`, "reviewing now")
	page.WaitDOM(`document.querySelector("#conv-bob--fe-box li .thread").textContent`, "↳ answers "+mail.ShortID(asked.ID))

	keepForDocs(t, page, "status-page-conversations.png")

	// A row's screen opens beside it and follows what the row prints.
	id := strings.TrimSpace(b.must("", "spawn", "--label", "build", "--", "/bin/sh", "-c", "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 1; done"))
	t.Cleanup(func() { b.run("", "", "despawn", id) })
	page.WaitDOM(`String(document.getElementById("row-box/`+id+`")?.querySelector(".phase").textContent)`, "Ready")
	page.Eval(`document.getElementById("row-box/` + id + `").querySelector("button[data-row]").click(), ""`)
	screen := `String(document.querySelector("#screen-` + id + ` pre")?.textContent)`
	var first string
	chromium.WaitFor(t, chromium.Stuck, "the row's screen beside it", func() bool {
		first = page.Eval(screen)
		return strings.Contains(first, "tick-")
	})
	page.WaitDOM(`String(document.querySelector(".rows-wrap").contains(document.getElementById("row-box/`+id+`")))`, "true")
	chromium.WaitFor(t, chromium.Stuck, "the open screen to follow the row", func() bool {
		now := page.Eval(screen)
		return strings.Contains(now, "tick-") && now != first
	})
	page.Eval(`document.getElementById("box-box").scrollIntoView(), ""`)
	keepForDocs(t, page, "status-page-row-screen.png")
}

// keepForDocs keeps a screenshot as KeepScreenshot does, and copies it into
// $SOTD_DOC_IMAGES when that is set.
func keepForDocs(t *testing.T, page *chromium.Browser, name string) {
	t.Helper()
	shot := page.KeepScreenshot(name)
	if dir := os.Getenv(EnvDocImages); dir != "" {
		copyFile(t, shot, filepath.Join(dir, name))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
