//go:build !windows

package client

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

// hostileSession is a session of @bob on box "box" whose daemon, on sock,
// answers its requests with payloads in turn, as a hostile box's words relayed by
// an honest daemon would reach it; out is all it prints.
func hostileSession(t *testing.T, payloads ...any) (s *Session, out *bytes.Buffer) {
	t.Helper()
	s, out = joinedSession(t, "bob")
	answer(t, s.Home.Socket("box"), payloads...)
	return s, out
}

// forged is a line that, printed raw, would pass for another row or another
// box's line, set the terminal's title, clear it, and turn text around.
const forged = "x\n@alice (me)\tlive\tga\tidle\tall good\r\x1b]0;pwned\x07\x1b[2J\u202e\u200b\ufeff\u2066"

// wantShownNotObeyed fails unless out holds no control character but newline
// and the table's spaces, no invisible character, and no line that starts as
// one of forged's forged rows.
func wantShownNotObeyed(t *testing.T, out string) {
	t.Helper()
	for i, r := range out {
		if r != '\n' && isControl(r, false) || invisible(r) {
			t.Fatalf("%U at byte %d reached the terminal:\n%s", r, i, out)
		}
	}
	if regexp.MustCompile(`(?m)^@alice`).MatchString(out) {
		t.Fatalf("a forged @alice line was printed:\n%s", out)
	}
}

// Another box's list entry and the reason its link closed are that box's
// words: list shows them escaped, each row on its own line.
func TestListShowsAnotherBoxsWordsEscaped(t *testing.T) {
	s, out := hostileSession(t, wire.NetList{Box: "box", Known: true,
		Entries: []wire.ViewEntry{{Handle: "mallory", Box: "gm" + forged, Live: true, State: "idle" + forged, Summary: forged, Expertise: []string{forged}}},
		Boxes:   []wire.ViewBox{{Box: "box", Up: true}, {Box: "gm" + forged, Reason: forged, Since: forged}}})
	if code := s.List(ListArgs{}); code != ExitOK {
		t.Fatalf("list exit %d: %s", code, out)
	}
	wantShownNotObeyed(t, out.String())
	if lines := strings.Count(out.String(), "\n"); lines != 3 {
		t.Errorf("list printed %d lines, want the header, one row and the down box's:\n%s", lines, out)
	}
}

// A hub's reason for not being reached reaches the terminal escaped too.
func TestListShowsWhyTheHubIsUnknownEscaped(t *testing.T) {
	s, out := hostileSession(t, wire.NetList{Box: "box", Hub: "hb" + forged, Why: forged, AsOf: forged, Entries: []wire.ViewEntry{}})
	if code := s.List(ListArgs{}); code != ExitOK {
		t.Fatalf("list exit %d: %s", code, out)
	}
	wantShownNotObeyed(t, out.String())
}

// A receipt is another box's answer: sent shows each field escaped.
func TestSentShowsReceiptsEscaped(t *testing.T) {
	s, out := hostileSession(t, wire.ReceiptList{
		Receipts:   []wire.Receipt{{To: "amy" + forged, Box: "gm" + forged, TS: forged, Msg: strings.TrimPrefix(forged, "x\n"), Read: true}, {To: "amy", Box: "ga", TS: "T", Msg: "hi"}},
		Unanswered: []string{"gx" + forged}})
	if code := s.Sent("", false); code != ExitOK {
		t.Fatalf("sent exit %d: %s", code, out)
	}
	wantShownNotObeyed(t, out.String())
	if lines := strings.Count(out.String(), "\n"); lines != 4 {
		t.Errorf("sent printed %d lines, want the header, two receipts and the note:\n%s", lines, out)
	}
}

// A view past a frame comes in pages: list shows every page's entries, and
// stops asking a daemon whose next page would not move on.
func TestListJoinsTheViewsPages(t *testing.T) {
	entry := func(h string) wire.ViewEntry { return wire.ViewEntry{Handle: h, Box: "gm", Live: true, State: "idle"} }
	page := func(next string, hs ...string) wire.NetList {
		nl := wire.NetList{Box: "box", Known: true, Boxes: []wire.ViewBox{{Box: "box", Up: true}}, Next: next}
		for _, h := range hs {
			nl.Entries = append(nl.Entries, entry(h))
		}
		return nl
	}
	s, out := hostileSession(t, page("b", "a", "b"), page("d", "c", "d"), page("d", "e"))
	if code := s.List(ListArgs{JSON: true}); code != ExitOK {
		t.Fatalf("list exit %d: %s", code, out)
	}
	var rows []struct{ Handle string }
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("list --json printed %s: %v", out, err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Handle)
	}
	if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("list showed %q; want %q", got, want)
	}
}
