package page

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/viewdiff"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func seen(at time.Time) string { return at.UTC().Format(time.RFC3339) }

func viewRowsOf(rs ...wire.ViewRow) map[string]wire.ViewRow {
	m := map[string]wire.ViewRow{}
	for _, r := range rs {
		m[r.Key()] = r
	}
	return m
}

// TestPagePublishesRowsByBox: the page hears of another box's rows as one
// box.rows event for each box whose rows moved, with every row it has now,
// and an empty list when they went; its snapshot lists them.
func TestPagePublishesRowsByBox(t *testing.T) {
	v := New(Config{Host: "ga", Now: func() time.Time { return t0 }})
	sub := v.bus.Subscribe(func() any { return nil }, 64)
	defer sub.Close()
	boxes := web.Boxes{Known: true, List: []web.BoxState{}}
	hb1 := wire.ViewRow{ID: "w1", Box: "hb", Phase: "Ready", Handle: "hank", Since: seen(t0)}
	gb1 := wire.ViewRow{ID: "w1", Box: "gb", Phase: "Ready"}
	gb2 := wire.ViewRow{ID: "w2", Box: "gb", Phase: "Starting"}
	v.setRemote(nil, viewRowsOf(hb1, gb1, gb2), boxes)
	gb2.Phase = "Ready"
	v.setRemote(nil, viewRowsOf(hb1, gb1, gb2), boxes)
	v.setRemote(nil, viewRowsOf(hb1, gb1, gb2), boxes) // nothing moved
	v.setRemote(nil, viewRowsOf(gb1, gb2), boxes)

	var got []string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for len(got) < 4 {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		br, ok := ev.Payload.(web.BoxRows)
		if ev.Kind != web.EvBoxRows || !ok {
			continue
		}
		s := br.Box + ":"
		for _, r := range br.Rows {
			s += " " + r.ID + "=" + r.Phase
		}
		got = append(got, s)
	}
	want := []string{"gb: w1=Ready w2=Starting", "hb: w1=Ready", "gb: w1=Ready w2=Ready", "hb:"}
	if !slices.Equal(got, want) {
		t.Fatalf("box.rows events %q, want %q", got, want)
	}
	v.host = "ga"
	v.rows = []wire.ViewRow{{ID: "w1", Box: "ga", Phase: "Ready"}}
	snap := v.Snapshot()
	if len(snap.RemoteRows) != 2 || snap.RemoteRows[0].Host != "gb" || len(snap.Rows) != 1 {
		t.Fatalf("the snapshot's rows: %+v, remote %+v", snap.Rows, snap.RemoteRows)
	}
}

// rowSource is a daemon whose workspace.list answers rows.
type rowSource struct {
	Source
	rows wire.WorkspaceList
}

func (s rowSource) Rows() (wire.WorkspaceList, error) { return s.rows, nil }

// TestOwnRowsCarryTheirMetadata: this box's part of the view is its rows as
// workspace.list answers them, with their label, agent, handle, phase, exit
// code and start, and the page shows the same rows.
func TestOwnRowsCarryTheirMetadata(t *testing.T) {
	code := 2
	src := rowSource{rows: wire.WorkspaceList{Workspaces: []wire.Workspace{{ID: "w1", Label: "api", Agent: "codex", AgentHandle: "alice", Phase: "Stopped", ExitCode: &code, Started: seen(t0)}}}}
	v := New(Config{Host: "ga", Now: func() time.Time { return t0 }, Src: src})
	v.lookRows()
	got := v.OwnRows()
	want := wire.ViewRow{ID: "w1", Box: "ga", Label: "api", Agent: "codex", Handle: "alice", Phase: "Stopped", ExitCode: &code, Since: seen(t0)}
	if len(got) != 1 || !viewdiff.SameViewRow(got["ga/w1"], want) {
		t.Fatalf("own rows: %+v", got)
	}
	rs := v.Snapshot().Rows
	if len(rs) != 1 || rs[0].Host != "ga" || rs[0].Handle != "alice" || *rs[0].ExitCode != 2 || !rs[0].Since.Equal(t0) {
		t.Fatalf("the page shows the row as %+v", rs)
	}
}
