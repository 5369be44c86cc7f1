package daemon

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

// TestRegistryRows asks registry.rows for present and absent rows, sees a
// replaced registry at once (its cached parse is re-read when the file moved),
// and is refused registry_unreadable, never answered with no rows, when the
// registry is damaged.
func TestRegistryRows(t *testing.T) {
	r := startRig(t)
	c := r.dial(t)
	ask := func(names ...string) (wire.RegistryRowsOK, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var res wire.RegistryRowsOK
		err := c.Call(ctx, wire.OpRegistryRows, wire.RegistryRows{Names: names}, &res)
		return res, err
	}
	res, err := ask("bob", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Rows["nobody"]; ok || len(res.Rows) != 1 || res.ProtocolVersion != registry.ProtocolVersion {
		t.Fatalf("rows %v version %d: want bob alone, version %d", res.Rows, res.ProtocolVersion, registry.ProtocolVersion)
	}
	d, err := registry.FromRows(res.ProtocolVersion, res.Rows)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := registry.Lookup(r.home, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Agents["bob"]; got.LastSeen != want.LastSeen || got.Root != want.Root || got.Status != want.Status {
		t.Fatalf("bob from the daemon %+v, from the file %+v", got, want)
	}

	writeRegistry(t, r.home, map[string]string{"nobody": registry.Stamp(testNow)})
	if res, err := ask("bob", "nobody"); err != nil || len(res.Rows) != 1 || res.Rows["nobody"] == nil {
		t.Fatalf("after the registry was replaced: rows %v, err %v; want nobody alone", res.Rows, err)
	}

	if err := os.WriteFile(r.home.Registry(), []byte(`{"agents": {"bob": {}}`), home.FileMode); err != nil {
		t.Fatal(err)
	}
	_, err = ask("bob")
	if rf, ok := wire.RefusalOf(err); !ok || rf.Code != wire.CodeUnreadable || !strings.Contains(rf.Sentence, "not JSON") {
		t.Fatalf("a torn registry was answered %v; want %s naming why", err, wire.CodeUnreadable)
	}

	many := make([]string, wire.MaxRegistryRows+1)
	for i := range many {
		many[i] = "bob"
	}
	if _, err := ask(many...); err == nil || !strings.Contains(err.Error(), "over the 16 allowed") {
		t.Fatalf("%d names were answered %v; want a bad_request", len(many), err)
	}
}

// TestRegistryRowsKeepUnknownKeys: a row's fields another client wrote cross
// the socket as they are in the file.
func TestRegistryRowsKeepUnknownKeys(t *testing.T) {
	h := newHome(t)
	body := `{"protocol_version": 1, "agents": {"bob": {"host": "box", "last_seen": "2026-01-01T00:00:00Z", "x-theirs": {"a": [1, 2]}}, "odd": 5}}`
	if err := home.WriteAtomic(h.Registry(), []byte(body)); err != nil {
		t.Fatal(err)
	}
	r := startOn(t, h)
	c := r.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var res wire.RegistryRowsOK
	if err := c.Call(ctx, wire.OpRegistryRows, wire.RegistryRows{Names: []string{"bob", "odd"}}, &res); err != nil {
		t.Fatal(err)
	}
	if got := string(res.Rows["odd"]); got != "5" {
		t.Errorf("the row that is not an object came as %s; want 5", got)
	}
	var bob map[string]json.RawMessage
	if err := json.Unmarshal(res.Rows["bob"], &bob); err != nil || string(bob["x-theirs"]) != `{"a":[1,2]}` {
		t.Errorf("bob came as %s; want x-theirs kept", res.Rows["bob"])
	}
}
