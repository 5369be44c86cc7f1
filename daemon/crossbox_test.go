package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/wire"
)

func TestAGuestForwardsAnUnlistedHandleAtOnce(t *testing.T) {
	_, ga, _ := threeBoxes(t)
	if res, err := call(t, ga.dial(t), wire.CommFile{From: "alice", To: "bob", Text: "hi", ID: "ID-AT-ONCE"}); err != nil || !res.OK {
		t.Fatalf("comm.file to @bob from ga = %+v, %v; want ok", res, err)
	}
	// ga's registry does not list bob: its batcher never saw the line.
	if log := ga.logs.String(); strings.Contains(log, `msg="filing a batch" to=bob`) {
		t.Fatalf("ga queued @bob's line in its own batcher before forwarding it:\n%s", log)
	}
}

// batchOf is a comm.file.batch payload of reqs.
func batchOf(t *testing.T, reqs ...any) json.RawMessage {
	t.Helper()
	var b wire.CommFileBatch
	for _, r := range reqs {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Requests = append(b.Requests, raw)
	}
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// answers is each item's answer: "ok", "dup", or its refusal's code.
func answers(t *testing.T, got any, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("comm.file.batch = %v; want an answer per item", err)
	}
	var codes []string
	for _, it := range got.(wire.CommFiledBatch).Results {
		res, err := it.Result()
		switch {
		case err != nil:
			codes = append(codes, wire.AsRefusal(err).Code)
		case res.Dup:
			codes = append(codes, "dup")
		default:
			codes = append(codes, "ok")
		}
	}
	return strings.Join(codes, ",")
}

func TestAnOfferedBatchFilesEachInboxInOneCommit(t *testing.T) {
	_, _, gb := threeBoxes(t)
	batch := batchOf(t,
		wire.CommFile{From: "hank", To: "bob", Text: "one", ID: "ID-B1"},
		wire.CommFile{From: "hank", To: "nobody", Text: "two", ID: "ID-B2"},
		wire.CommFile{From: "hank", To: "bob", Text: "three", ID: "ID-B3"},
		map[string]any{"from": "hank", "to": 7},
		wire.CommFile{From: "hank", To: "bob", Text: "four", ID: "ID-B4"},
	)
	got, err := gb.d.net.Handle(context.Background(), nil, wire.OpCommFileBatch, batch)
	if a := answers(t, got, err); a != "ok,not_here,ok,bad_request,ok" {
		t.Fatalf("the batch was answered %s; want ok,not_here,ok,bad_request,ok", a)
	}
	if log := gb.logs.String(); !strings.Contains(log, `msg="filing a batch" to=bob lines=3`) {
		t.Fatalf("bob's three lines were not filed in one commit:\n%s", log)
	}
	// The same batch again files nothing more: each line's id is in the inbox.
	got, err = gb.d.net.Handle(context.Background(), nil, wire.OpCommFileBatch, batch)
	if a := answers(t, got, err); a != "dup,not_here,dup,bad_request,dup" {
		t.Fatalf("the batch again was answered %s; want dup,not_here,dup,bad_request,dup", a)
	}
	if n := len(gb.inbox(t, "bob")); n != 3 {
		t.Fatalf("bob's inbox holds %d lines, want 3", n)
	}
}

func TestTheHubAnswersEachItemOfAGuestsBatch(t *testing.T) {
	t.Parallel()
	hb, ga, gb := threeBoxes(t)
	var fromGA *link.Conn
	for _, p := range hb.d.net.Router().Peers(nil) {
		if p.Box() == ga.name {
			fromGA = p.(*link.Conn)
		}
	}
	got, err := hb.d.net.Handle(context.Background(), fromGA, wire.OpCommFileBatch, batchOf(t,
		wire.CommFile{From: "alice", To: "bob", Text: "mine", ID: "ID-H1"},
		wire.CommFile{From: "bob", To: "hank", Text: "not ga's to send", ID: "ID-H2"},
		wire.CommFile{From: "alice", To: "hank", Text: "to the hub", ID: "ID-H3"},
		wire.CommFile{From: "alice", To: "nobody", Text: "to no one", ID: "ID-H4"},
	))
	if a := answers(t, got, err); a != "ok,not_holder,ok,not_here" {
		t.Fatalf("the batch was answered %s; want ok,not_holder,ok,not_here", a)
	}
	if n := len(gb.inbox(t, "bob")); n != 1 {
		t.Fatalf("bob's inbox on gb holds %d lines, want 1", n)
	}
	for _, l := range hb.inbox(t, "hank") {
		if l["id"] == "ID-H2" {
			t.Fatal("the line ga had no right to send was filed")
		}
	}
}
