package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// A summary an older writer left a megabyte long in a box's registry does not
// freeze that box's sessions in the others' view: the box publishes it cut to
// the view's bound, so its events still fit a frame. (The rig's clock stands
// still, so the box restarts to publish anew: a new link's first event is its
// whole part of the view.)
func TestAnOverlongSummaryStillLeavesTheViewCurrent(t *testing.T) {
	t.Parallel()
	hb, ga, _ := trustBoxes(t)
	if err := ga.stop(t); err != nil {
		t.Fatal(err)
	}
	err := registry.Update(ga.home, 10*time.Second, func(d *registry.Doc) error {
		e := d.Agents["alice"]
		e.State, e.Summary = registry.StateWorking, strings.Repeat("x", 1200<<10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	startBox(t, ga.home, "ga", ga.d.cfg.HostsPath)
	waitFor(t, "the hub to see alice working", func() bool {
		return hb.d.net.Router().View().Entries(nil, false)["alice"].State == registry.StateWorking
	})
	if n := len(hb.d.net.Router().View().Entries(nil, false)["alice"].Summary); n != registry.MaxText {
		t.Errorf("alice's summary in the hub's view is %d bytes, want cut to %d", n, registry.MaxText)
	}
}
