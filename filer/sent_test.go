package filer

import (
	"testing"
)

func TestReceiptsFollowTheReadersCursor(t *testing.T) {
	f, _ := newTestFiler(t)
	lines := []Line{
		{From: "bob", To: "alice", Msg: "one", TS: "2026-01-01T00:00:01Z", ID: "1"},
		{From: "carol", To: "alice", Msg: "not bob's", TS: "2026-01-01T00:00:02Z", ID: "2"},
		{From: "bob", To: "alice", Msg: "two", TS: "2026-01-01T00:00:03Z", ID: "3"},
	}
	if _, err := f.Append("alice", lines[:2]); err != nil {
		t.Fatal(err)
	}
	// alice reads the first two lines, then bob sends a third.
	readAll(t, f, "alice")
	if _, err := f.Append("alice", lines[2:]); err != nil {
		t.Fatal(err)
	}
	got, err := f.Receipts("alice", "bob", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Msg != "one" || !got[0].Read || got[1].Msg != "two" || got[1].Read {
		t.Fatalf("Receipts = %+v, want one read and two unread", got)
	}
	if got, _ := f.Receipts("alice", "bob", 1); len(got) != 1 || got[0].Msg != "two" {
		t.Fatalf("Receipts with max 1 = %+v, want the newest only", got)
	}
	if got, err := f.Receipts("nobody", "bob", 10); err != nil || len(got) != 0 {
		t.Fatalf("Receipts of a handle with no inbox = %+v, %v", got, err)
	}
}
