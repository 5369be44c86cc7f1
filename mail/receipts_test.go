package mail

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/wire"
)

// receiptHome is a home whose registry lists alice, bob and carol, with lines
// filed into bob's and carol's inboxes by alice and others.
func receiptHome(t *testing.T) home.Home {
	t.Helper()
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	reg := `{"protocol_version":1,"agents":{"alice":{"host":"box"},"bob":{"host":"box"},"carol":{"host":"box"}}}`
	if err := home.WriteAtomic(h.Registry(), []byte(reg)); err != nil {
		t.Fatal(err)
	}
	f := filer.New(h)
	file := func(to string, ls ...filer.Line) {
		if _, err := f.Append(to, ls); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("x", wire.ReceiptMsg-1) + "éé"
	file("bob",
		filer.Line{From: "alice", To: "bob", Msg: "one", TS: "2026-05-29T18:00:01Z", ID: "A1"},
		filer.Line{From: "dave", To: "bob", Msg: "not alice's", TS: "2026-05-29T18:00:02Z", ID: "D1"},
		filer.Line{From: "alice", To: "bob", Msg: long, TS: "2026-05-29T18:00:03Z", ID: "A2"},
	)
	// A broadcast copy is filed with an empty to.
	file("carol", filer.Line{From: "alice", Msg: "to all", TS: "2026-05-29T18:00:04Z", ID: "A3"})
	file("alice", filer.Line{From: "alice", To: "alice", Msg: "to myself", TS: "2026-05-29T18:00:05Z", ID: "A4"})
	return h
}

func TestReceipts(t *testing.T) {
	h := receiptHome(t)
	cutMsg := strings.Repeat("x", wire.ReceiptMsg-1) // é is two bytes: it is not split
	for _, tc := range []struct {
		name string
		req  wire.CommReceipts
		want []wire.Receipt
	}{
		{"every inbox but the sender's own, only the sender's lines", wire.CommReceipts{From: "alice"}, []wire.Receipt{
			{To: "bob", Msg: "one", TS: "2026-05-29T18:00:01Z", ID: "A1", Box: "box"},
			{To: "bob", Msg: cutMsg, TS: "2026-05-29T18:00:03Z", ID: "A2", Box: "box", Cut: true},
			{To: "carol", Msg: "to all", TS: "2026-05-29T18:00:04Z", ID: "A3", Box: "box"},
		}},
		{"one receiver, the last max", wire.CommReceipts{From: "alice", To: "bob", Max: 1}, []wire.Receipt{
			{To: "bob", Msg: cutMsg, TS: "2026-05-29T18:00:03Z", ID: "A2", Box: "box", Cut: true},
		}},
		{"a receiver with no inbox", wire.CommReceipts{From: "alice", To: "erin"}, nil},
		{"a sender who sent nothing", wire.CommReceipts{From: "erin"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Receipts(h, "box", tc.req)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("Receipts = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestReceiptsRefused(t *testing.T) {
	h := receiptHome(t)
	broken, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A folder where the registry file should be: unreadable, as a denied file is.
	if err := os.MkdirAll(broken.Registry(), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		h    home.Home
		req  wire.CommReceipts
		code string
		says string
	}{
		{"a sender that is not a handle", h, wire.CommReceipts{From: "../alice"}, wire.CodeBadHandle, "the sender is not a handle"},
		{"a receiver that is not a handle", h, wire.CommReceipts{From: "alice", To: "a/b"}, wire.CodeBadHandle, "not a handle"},
		{"an unreadable registry", broken, wire.CommReceipts{From: "alice"}, wire.CodeUnreadable, "the registry could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Receipts(tc.h, "box", tc.req)
			var r *wire.Refusal
			if !errors.As(err, &r) || r.Code != tc.code || !strings.Contains(r.Sentence, tc.says) {
				t.Fatalf("Receipts = %v; want %s saying %q", err, tc.code, tc.says)
			}
		})
	}
}
