package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

func receipts(t testing.TB, b *netBox, req wire.CommReceipts) (wire.ReceiptList, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got wire.ReceiptList
	err := b.dial(t).Call(ctx, wire.OpCommReceipts, req, &got)
	return got, err
}

// receiptBoxes starts hub hb (hank), guests ga (alice, ann) and gb (bob), and
// gs, a guest that shares hb's home, so it sees the hub's inboxes as its own.
// hosts.toml also names gx, a frontend box that never links.
func receiptBoxes(t testing.TB) (hb, ga, gb, gs *netBox) {
	live := testNow.Add(-time.Minute)
	hh, hk := boxHome(t, "hb", map[string]time.Time{"hank": live})
	ah, ak := boxHome(t, "ga", map[string]time.Time{"alice": live, "ann": live})
	bh, bk := boxHome(t, "gb", map[string]time.Time{"bob": live})
	sid, err := identity.Load(hh, "gs")
	if err != nil {
		t.Fatal(err)
	}
	hosts := filepath.Join(t.TempDir(), "hosts.toml")
	toml := fmt.Sprintf("hub = \"hb\"\n[host.hb]\ndaemon = true\naddr = %q\nkey = %q\n", testutil.FreeUDP(t), hk)
	for _, g := range [][2]string{{"ga", ak}, {"gb", bk}, {"gs", sid.Fingerprint()}, {"gx", "ed25519:neverlinks"}} {
		toml += fmt.Sprintf("[host.%s]\ndaemon = true\nfrontend = true\nkey = %q\n", g[0], g[1])
	}
	if err := os.WriteFile(hosts, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	hb = startBox(t, hh, "hb", hosts)
	ga = startBox(t, ah, "ga", hosts)
	gb = startBox(t, bh, "gb", hosts)
	gs = startBox(t, hh, "gs", hosts)
	waitFor(t, "every guest to link", func() bool {
		return slices.Equal(hb.d.net.Router().Linked(), []string{"ga", "gb", "gs"}) && guestsLinked(ga, gb, gs)
	})
	return hb, ga, gb, gs
}

func TestReceiptsAcrossBoxes(t *testing.T) {
	t.Parallel()
	hb, ga, gb, gs := receiptBoxes(t)
	send := func(b *netBox, from, to, text string) {
		t.Helper()
		if res, err := call(t, b.dial(t), wire.CommFile{From: from, To: to, Text: text, ID: "ID-" + strings.ReplaceAll(text, " ", "-")}); err != nil || !res.OK {
			t.Fatalf("comm.file to @%s = %+v, %v", to, res, err)
		}
	}
	send(ga, "alice", "bob", "to bob")
	send(ga, "alice", "hank", "to hank")
	send(ga, "alice", "ann", "to ann")
	send(hb, "hank", "bob", "not alice's")
	// A line filed before ids, which hb and gs both see in their one home.
	if _, err := filer.New(hb.home).Append("hank", []filer.Line{{From: "alice", To: "hank", Msg: "legacy", TS: "2026-05-29T18:04:00Z"}}); err != nil {
		t.Fatal(err)
	}
	unread := []string{"@ann ga false to ann", "@bob gb false to bob", "@hank hb false to hank", "@hank hb false legacy"}
	for _, tc := range []struct {
		b          *netBox
		want       []string
		unanswered []string
	}{
		{ga, unread, []string{"gx"}}, // alice's own box
		{hb, unread, []string{"gx"}}, // the hub, asked on its own socket
		// gb does not hold alice: the hub refuses to act for her on its behalf,
		// so gb shows only its own home's inboxes.
		{gb, []string{"@bob gb false to bob"}, []string{"hb"}},
		// gs's own home is hb's: it answers for those inboxes, and no more.
		{gs, []string{"@hank gs false to hank", "@hank gs false legacy"}, []string{"hb"}},
	} {
		got, err := receipts(t, tc.b, wire.CommReceipts{From: "alice"})
		if err != nil {
			t.Fatalf("comm.receipts on %s: %v", tc.b.name, err)
		}
		if !slices.Equal(rigtest.Brief(got.Receipts), tc.want) || !slices.Equal(got.Unanswered, tc.unanswered) {
			t.Fatalf("comm.receipts on %s = %q, unanswered %q; want %q, unanswered %q", tc.b.name, rigtest.Brief(got.Receipts), got.Unanswered, tc.want, tc.unanswered)
		}
	}

	// bob polls on gb: his cursor passes the line.
	f := filer.New(gb.home)
	batch, err := f.ReadNew("bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit("bob", batch); err != nil {
		t.Fatal(err)
	}
	got, err := receipts(t, ga, wire.CommReceipts{From: "alice", To: "bob"})
	if err != nil || !slices.Equal(rigtest.Brief(got.Receipts), []string{"@bob gb true to bob"}) {
		t.Fatalf("comm.receipts for @bob after his poll = %q, %v; want it read", rigtest.Brief(got.Receipts), err)
	}
}

func TestReceiptsRefusals(t *testing.T) {
	t.Parallel()
	_, ga, _, _ := receiptBoxes(t)
	for _, tc := range []struct {
		name string
		req  wire.CommReceipts
		says string
	}{
		{"the sender is not a handle", wire.CommReceipts{From: "../alice"}, "the sender is not a handle"},
		{"the receiver is not a handle", wire.CommReceipts{From: "alice", To: "a/b"}, "not a handle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := receipts(t, ga, tc.req)
			wantRefusal(t, err, wire.CodeBadHandle, tc.says)
		})
	}
}

func TestReceiptsWithoutTheHub(t *testing.T) {
	t.Parallel()
	hb, ga, _, _ := receiptBoxes(t)
	if res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "ann", Text: "kept here"}); err != nil || !res.OK {
		t.Fatalf("comm.file = %+v, %v", res, err)
	}
	if err := hb.stop(t); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ga to see its link end", func() bool { return ga.d.net.HubLinks()[0].Keeper().Current() == nil })
	start := time.Now()
	got, err := receipts(t, ga, wire.CommReceipts{From: "alice"})
	if err != nil || !slices.Equal(rigtest.Brief(got.Receipts), []string{"@ann ga false kept here"}) || !slices.Equal(got.Unanswered, []string{"hb"}) {
		t.Fatalf("comm.receipts with no hub = %q, unanswered %q, %v; want ga's own line and hb unanswered", rigtest.Brief(got.Receipts), got.Unanswered, err)
	}
	// An answer that asked the hub anyway waited ReceiptsWait for it.
	if took := time.Since(start); took >= wire.ReceiptsWait {
		t.Fatalf("with no link, the answer took %s, as long as a wait for the hub (%s)", took, wire.ReceiptsWait)
	}
}
