package client

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

// TestUnknownLinesNameAHubDown: with several hubs, sotd list names a hub whose
// link is down, and says mail goes through the others.
func TestUnknownLinesNameAHubDown(t *testing.T) {
	nl := wire.NetList{Box: "ga", Hub: "hb", Known: true, HubLinks: []wire.LinkState{
		{Box: "ha", Since: "2030-01-01T00:00:00Z", LastError: "no recent network activity"},
		{Box: "hb", Up: true},
	}}
	got := unknownLines(nl)
	want := "hub ha: this box's link to it is down since 2030-01-01T00:00:00Z (no recent network activity); mail goes through the other hubs"
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Fatalf("unknownLines = %q, want one line %q", got, want)
	}
}
