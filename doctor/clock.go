package doctor

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// Clock bounds.
var (
	// clockFloor is earlier than any clock that ran this code: a clock before
	// it was never set.
	clockFloor = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// aheadBy is how far a stamp may lie in this box's future before this
	// clock reads as behind the box that wrote it: more than a stamp's
	// rounding and a hop's delay, well under liveness's ten minutes.
	aheadBy = time.Minute
)

// checkClock: this box's clock is set, and no other box stamped the registry in
// its future. Liveness, work-state ages and the wake's ten-minute repeat all
// compare stamps from every box with this clock.
func checkClock(e Env, doc *registry.Doc) Check {
	c := Check{Name: "clock"}
	now := e.Now()
	if now.Before(clockFloor) {
		c.Level, c.Detail = Fail, fmt.Sprintf("this box's clock reads %s, before this release was made", now.UTC().Format(time.RFC3339))
		c.Fix = "Set the clock and keep it synced (timedatectl set-ntp true; macOS and Windows: set the time automatically)."
		return c
	}
	var ahead []string
	if doc != nil {
		for name, a := range doc.Agents {
			for _, stamp := range []string{a.LastSeen, a.StatusAt} {
				if t, err := time.Parse(time.RFC3339, stamp); err == nil && t.Sub(now) > aheadBy {
					ahead = append(ahead, fmt.Sprintf("@%s on %s by %s", name, a.Host, t.Sub(now).Round(time.Second)))
					break
				}
			}
		}
	}
	if len(ahead) == 0 {
		c.Level, c.Detail = OK, fmt.Sprintf("%s; no registry stamp is in its future", now.UTC().Format(time.RFC3339))
		return c
	}
	sort.Strings(ahead)
	c.Level = Warn
	c.Detail = fmt.Sprintf("registry stamps lie in this box's future (%s): this clock is behind theirs, or theirs ahead", strings.Join(clipped(ahead), ", "))
	c.Fix = "Sync every box's clock (timedatectl set-ntp true; macOS and Windows: set the time automatically); liveness and the wake misjudge ages until then."
	return c
}
