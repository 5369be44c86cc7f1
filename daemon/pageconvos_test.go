package daemon

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// TestPageConversationsAreThisBoxsOwn files across real linked daemons: a line
// alice on ga sends bob on gb is filed on gb and shows on gb's page only, and
// bob's answer to alice on ga's only; neither page carries a body filed on
// the other box. The page sends a reply with in_reply_to set.
func TestPageConversationsAreThisBoxsOwn(t *testing.T) {
	t.Parallel()
	_, ga, gb := threeBoxes(t)
	gaPage, gbPage := pageOf(t, ga.rig, "ga"), pageOf(t, gb.rig, "gb")
	gaWS, _ := gaPage.subscribe(t)
	gbWS, _ := gbPage.subscribe(t)
	toBob := wire.CommFile{From: "alice", To: "bob", Text: "filed on gb", ID: mail.NewID()}
	if res, err := call(t, ga.dial(t), toBob); err != nil || !res.OK {
		t.Fatalf("alice to bob: %+v, %v", res, err)
	}
	toAlice := wire.CommFile{From: "bob", To: "alice", Text: "filed on ga", ID: mail.NewID(), InReplyTo: toBob.ID}
	if res, err := call(t, gb.dial(t), toAlice); err != nil || !res.OK {
		t.Fatalf("bob to alice: %+v, %v", res, err)
	}
	only := func(ws *websocket.Conn, want string) {
		t.Helper()
		conv := awaitEvent(t, ws, web.EvConversation, func(c web.Conversation) bool { return c.Key == "alice bob" })
		if len(conv.Lines) != 1 || conv.Lines[0].Msg != want {
			t.Fatalf("the page's conversation holds %+v, want only %q (bob to alice on ga, alice to bob on gb)", conv.Lines, want)
		}
	}
	only(gaWS, "filed on ga")
	only(gbWS, "filed on gb")
	for _, p := range []*pageRig{gaPage, gbPage} {
		_, snap := p.subscribe(t)
		if len(snap.Conversations) != 1 || len(snap.Conversations[0].Lines) != 1 {
			t.Fatalf("a snapshot's conversations %+v, want the one line filed on its box", snap.Conversations)
		}
	}

	// The page answers alice's line from ga's page, as fe-ga.
	f, err := wire.EncodeFrame(99, wire.KindReq, web.OpPageSend, web.PageSendReq{To: "alice", Text: "the page answers", ReplyTo: toAlice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := gaWS.Write(context.Background(), websocket.MessageText, f); err != nil {
		t.Fatal(err)
	}
	// The answer and the conversation's event come in either order: the
	// page's watch may publish the filed line before the answer is written.
	var conv *web.Conversation
	deadline := time.Now().Add(awaitWithin)
	for answered := false; !answered || conv == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for the page's answer (%v) and its reply's conversation (%v)", awaitWithin, answered, conv != nil)
		}
		env := readWS(t, gaWS)
		var ev struct {
			Data web.Conversation `json:"data"`
		}
		switch {
		case env.Kind == wire.KindRes && env.ID == 99:
			answered = true
		case env.Op == web.EvConversation && json.Unmarshal(env.Payload, &ev) == nil && ev.Data.Key == "alice fe-ga":
			conv = &ev.Data
		}
	}
	if l := conv.Lines[0]; l.From != "fe-ga" || l.InReplyTo != toAlice.ID || l.Msg != "the page answers" || l.Read {
		t.Fatalf("the page's reply was filed as %+v", l)
	}
}
