package page

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// fileAt files a line from to to in f's home as a client does, stamped at.
func fileAt(t testing.TB, f *filer.Filer, from, to, text string, at time.Time) string {
	t.Helper()
	id := mail.NewID()
	if _, err := f.Append(to, []filer.Line{mail.Compose(wire.CommFile{From: from, To: to, Text: text, ID: id}, at)}); err != nil {
		t.Fatal(err)
	}
	return id
}

// bookOf is a conversation book on f's home whose senders sit on the boxes
// boxes names, and its first look.
func bookOf(t *testing.T, f *filer.Filer, boxes map[string]string) *convoBook {
	t.Helper()
	c := newConvoBook(events.New(), func() time.Time { return rigtest.Now }, func(h string) string { return boxes[h] })
	if err := c.look(f); err != nil {
		t.Fatal(err)
	}
	return c
}

func texts(c web.Conversation) []string {
	var out []string
	for _, l := range c.Lines {
		out = append(out, l.From+">"+l.To+":"+l.Msg)
	}
	return out
}

func keys(cs []web.Conversation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key)
	}
	return out
}

// pending is what sub was published, up to the first 200 ms with nothing more.
func pending(sub *events.Sub) []events.Event {
	var out []events.Event
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		ev, err := sub.Next(ctx)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, ev)
	}
}

// TestConversationsGroupByPairNewestFirst files lines among three handles and
// the page sender: each pair is one conversation gathered from both inboxes,
// its lines newest first, and the conversations newest first.
func TestConversationsGroupByPairNewestFirst(t *testing.T) {
	f := filer.New(rigtest.NewHome(t))
	at := rigtest.Now.Add(-10 * time.Minute)
	fileAt(t, f, "alice", "bob", "a1", at)
	fileAt(t, f, "bob", "alice", "b1", at.Add(time.Second))
	fileAt(t, f, "carol", "bob", "c1", at.Add(2*time.Second))
	fileAt(t, f, "alice", "bob", "a2", at.Add(3*time.Second))
	fileAt(t, f, "fe-box", "carol", "page", at.Add(4*time.Second))
	c := bookOf(t, f, map[string]string{"alice": "box", "bob": "box", "carol": "gb", "fe-box": "box"})
	convs, rates := c.snapshot()
	if got, want := keys(convs), []string{"carol fe-box", "alice bob", "bob carol"}; !slices.Equal(got, want) {
		t.Fatalf("conversations %v, want %v (newest first)", got, want)
	}
	if got, want := texts(convs[1]), []string{"alice>bob:a2", "bob>alice:b1", "alice>bob:a1"}; !slices.Equal(got, want) {
		t.Fatalf("alice and bob's lines %v, want %v: both inboxes, newest first", got, want)
	}
	if convs[1].Handles != [2]string{"alice", "bob"} {
		t.Errorf("handles %v, want the pair sorted", convs[1].Handles)
	}
	want := map[string]int{"box": 4, "gb": 1}
	if len(rates) != 2 {
		t.Fatalf("rates %+v, want box and gb", rates)
	}
	for _, r := range rates {
		if len(r.Counts) != 1 || r.Counts[0].N != want[r.Box] || r.Counts[0].Minute != at.Unix()/60 {
			t.Errorf("box %s's rate %+v, want %d lines in minute %d", r.Box, r.Counts, want[r.Box], at.Unix()/60)
		}
	}
}

// TestConversationsFollowReadStateAndNewLines reads bob's mail as a client
// does and files one more line: the next look publishes the conversation with
// the read lines marked and the new line first, and counts the new line once.
func TestConversationsFollowReadStateAndNewLines(t *testing.T) {
	f := filer.New(rigtest.NewHome(t))
	fileAt(t, f, "alice", "bob", "one", rigtest.Now.Add(-time.Minute))
	c := bookOf(t, f, map[string]string{"alice": "box"})
	sub := c.bus.Subscribe(func() any { return nil }, 16)
	defer sub.Close()
	b, err := f.ReadNew("bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit("bob", b); err != nil {
		t.Fatal(err)
	}
	id := fileAt(t, f, "alice", "bob", "two", rigtest.Now)
	c.touch("bob")
	if err := c.look(f); err != nil {
		t.Fatal(err)
	}
	convs, rates := c.snapshot()
	lines := convs[0].Lines
	if len(lines) != 2 || lines[0].Msg != "two" || lines[0].Read || lines[0].ID != id || lines[1].Msg != "one" || !lines[1].Read {
		t.Fatalf("after bob's poll and a new line: %+v; want two unread, one read", lines)
	}
	if n := rates[0].Counts; len(n) != 2 || n[0].N+n[1].N != 2 {
		t.Errorf("rate %+v, want each line counted once", n)
	}
	var kinds []string
	for _, ev := range pending(sub) {
		kinds = append(kinds, ev.Kind)
	}
	if want := []string{events.KindSnapshot, web.EvConversation, web.EvMailRate}; !slices.Equal(kinds, want) {
		t.Errorf("the look published %v, want %v", kinds, want)
	}
}

// TestRatesFollowASenderThePageLearnsLate files a line from a sender the
// page's view does not hold yet (it joined a moment before, and the registry's
// watch has not run): its line counts under no box, and once the view learns
// the sender's box (regroupRates) the next look moves it to that box's chart
// and empties the unknown one. In CI the status page's chart showed 1 line of
// 2 for good when a sender's first line beat its registry entry to the page.
func TestRatesFollowASenderThePageLearnsLate(t *testing.T) {
	f := filer.New(rigtest.NewHome(t))
	boxes := map[string]string{"alice": "box"}
	var mu sync.Mutex
	c := newConvoBook(events.New(), func() time.Time { return rigtest.Now }, func(h string) string {
		mu.Lock()
		defer mu.Unlock()
		return boxes[h]
	})
	fileAt(t, f, "alice", "bob", "one", rigtest.Now)
	fileAt(t, f, "bob", "alice", "two", rigtest.Now)
	if err := c.look(f); err != nil {
		t.Fatal(err)
	}
	total := func(rates []web.MailRate) map[string]int {
		out := map[string]int{}
		for _, r := range rates {
			for _, n := range r.Counts {
				out[r.Box] += n.N
			}
		}
		return out
	}
	if _, rates := c.snapshot(); !maps.Equal(total(rates), map[string]int{"box": 1, "": 1}) {
		t.Fatalf("before the page knows bob: %v, want one line on box and one on no box", total(rates))
	}
	sub := c.bus.Subscribe(func() any { return nil }, 16)
	defer sub.Close()
	mu.Lock()
	boxes["bob"] = "box"
	mu.Unlock()
	c.regroupRates()
	if err := c.look(f); err != nil {
		t.Fatal(err)
	}
	if _, rates := c.snapshot(); !maps.Equal(total(rates), map[string]int{"box": 2}) {
		t.Fatalf("once the page knows bob: %v, want both lines on box", total(rates))
	}
	published := map[string]int{}
	for _, ev := range pending(sub) {
		if r, ok := ev.Payload.(web.MailRate); ok {
			published[r.Box] = total([]web.MailRate{r})[r.Box] // a box published with no lines is emptied on the page
		}
	}
	if !maps.Equal(published, map[string]int{"": 0, "box": 2}) {
		t.Fatalf("the regroup published %v, want box with 2 and no box emptied", published)
	}
}

// TestConversationsAreBounded fills an inbox past the tail a look reads: a
// conversation keeps its last ConversationLines lines, a sender whose lines
// are all before the tail is not read, and a long body is cut.
func TestConversationsAreBounded(t *testing.T) {
	f := filer.New(rigtest.NewHome(t))
	fileAt(t, f, "early", "bob", "before the tail", rigtest.Now.Add(-time.Hour))
	var lines []filer.Line
	for i := range tailLines + 100 {
		lines = append(lines, mail.Compose(wire.CommFile{From: "alice", To: "bob", Text: fmt.Sprint("line ", i), ID: mail.NewID()}, rigtest.Now.Add(time.Duration(i-tailLines-100)*time.Second)))
	}
	if _, err := f.Append("bob", lines); err != nil {
		t.Fatal(err)
	}
	fileAt(t, f, "carol", "bob", strings.Repeat("é", shownText), rigtest.Now)
	convs, _ := bookOf(t, f, nil).snapshot()
	if got := keys(convs); !slices.Equal(got, []string{"bob carol", "alice bob"}) {
		t.Fatalf("conversations %v, want carol's and alice's only: early's line is before the tail", got)
	}
	alice := convs[1].Lines
	if len(alice) != web.ConversationLines || alice[0].Msg != fmt.Sprint("line ", tailLines+99) || alice[len(alice)-1].Msg != fmt.Sprint("line ", tailLines+100-web.ConversationLines) {
		t.Fatalf("alice's conversation holds %d lines from %q to %q, want the last %d", len(alice), alice[0].Msg, alice[len(alice)-1].Msg, web.ConversationLines)
	}
	long := convs[0].Lines[0].Msg
	if !strings.HasSuffix(long, "… (cut; sotd log shows it whole)") || len(long) > shownText+64 || !strings.HasPrefix(long, "éé") {
		t.Fatalf("a %d-byte body was shown as %d bytes ending %q", 2*shownText, len(long), long[len(long)-40:])
	}
}

// TestConversationsSnapshotFitsAFrame files the longest bodies the page shows,
// all of them characters JSON escapes, into more conversations than a snapshot
// carries: the snapshot keeps the newest that fit and encodes as one frame.
func TestConversationsSnapshotFitsAFrame(t *testing.T) {
	f := filer.New(rigtest.NewHome(t))
	body := strings.Repeat("<", shownText)
	for i := range 60 {
		var lines []filer.Line
		for j := range web.ConversationLines {
			at := rigtest.Now.Add(time.Duration(i*web.ConversationLines+j-2000) * time.Second)
			lines = append(lines, mail.Compose(wire.CommFile{From: fmt.Sprintf("s%02d", i), To: "bob", Text: body, ID: mail.NewID()}, at))
		}
		if _, err := f.Append("bob", lines); err != nil {
			t.Fatal(err)
		}
	}
	convs, rates := bookOf(t, f, nil).snapshot()
	// Only the last tailLines lines of bob's inbox are read: 25 senders'.
	if len(convs) == 0 || convs[0].Key != "bob s59" || len(convs) >= tailLines/web.ConversationLines {
		t.Fatalf("the snapshot carries %d conversations, the first %q; want the newest that fit", len(convs), convs[0].Key)
	}
	if _, err := wire.EncodeFrame(0, wire.KindEvt, events.KindSnapshot, web.View{Conversations: convs, MailRates: rates}); err != nil {
		t.Fatalf("the snapshot of %d conversations does not fit a frame: %v", len(convs), err)
	}
}
