package daemon

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// An idle daemon's readers (the wake, the dialog watch, the stamper, the rows'
// listing) share one parse of an unchanged registry: before, each parsed it on
// each of its ticks.
func TestAnIdleDaemonParsesAnUnchangedRegistryOnce(t *testing.T) {
	var d *Daemon
	startRig(t, func(x *Daemon) { d = x; x.dialogEvery = 50 * time.Millisecond })
	testutil.Eventually(t, 10*time.Second, "the daemon's readers to ask for the registry a few times", func() bool {
		reads, _ := d.reg.Counts()
		return reads >= 5
	})
	before, _ := d.reg.Counts()
	if _, err := d.rows.List(); err != nil {
		t.Fatal(err)
	}
	if reads, parses := d.reg.Counts(); parses != 1 || reads == before {
		t.Fatalf("an unchanged registry asked for %d times was parsed %d times (the rows share the cache: %v); want once", reads, parses, reads > before)
	}
}
