package registry

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// TestFromRowsIsReadRows: the rows RowsJSON writes, read back by FromRows,
// are the rows ReadRows reads from the same bytes, every field another
// client wrote and a row that is not an object included; a row that is not
// JSON is unreadable.
func TestFromRowsIsReadRows(t *testing.T) {
	body := []byte(`{"protocol_version": 1, "x": true, "agents": {
	  "bob": {"host": "box", "repo": "", "last_seen": "2026-01-01T00:00:00Z", "state": "working", "floor": "x", "done": true, "host2": [1, {"b": 2}], "expertise": ["go"]},
	  "odd": [1, 2],
	  "carol": {"host": 5}
	}}`)
	names := []string{"bob", "odd", "carol", "nobody"}
	full, why := parse(body)
	if why != "" {
		t.Fatal(why)
	}
	rows, err := full.RowsJSON(names)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromRows(full.ProtocolVersion, rows)
	if err != nil {
		t.Fatal(err)
	}
	want, why := parseRows(body, names)
	if why != "" {
		t.Fatal(why)
	}
	if got.ProtocolVersion != want.ProtocolVersion || len(got.Agents) != 3 {
		t.Fatalf("version %d, %d rows; want %d, 3", got.ProtocolVersion, len(got.Agents), want.ProtocolVersion)
	}
	for _, n := range names[:3] {
		if !reflect.DeepEqual(got.Agents[n], want.Agents[n]) {
			t.Errorf("%s: from rows %+v, read %+v", n, got.Agents[n], want.Agents[n])
		}
	}
	h := rowsHome(t, 0)
	if err := home.WriteAtomic(h.Registry(), body); err != nil {
		t.Fatal(err)
	}
	x, err := ReadIndex(h)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := x.Rows(names)
	if err != nil {
		t.Fatal(err)
	}
	fromIndex, err := FromRows(x.Version(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if x.Version() != 1 || !reflect.DeepEqual(fromIndex.Agents, want.Agents) {
		t.Errorf("from the index: version %d, %+v; want 1, %+v", x.Version(), fromIndex.Agents, want.Agents)
	}
	if err := home.WriteAtomic(h.Registry(), body[:len(body)-1]); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIndex(h); !errors.Is(err, ErrUnreadable) {
		t.Errorf("a torn registry indexed: %v; want ErrUnreadable", err)
	}
	if _, err := got.Marshal(); err == nil {
		t.Error("a Doc of some rows was marshalled; it would drop the others")
	}
	if _, err := FromRows(1, map[string]json.RawMessage{"bob": json.RawMessage(`{"host":`)}); !errors.Is(err, ErrUnreadable) {
		t.Errorf("a row that is not JSON: %v; want ErrUnreadable", err)
	}
}
