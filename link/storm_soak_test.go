//go:build soak

package link

import "testing"

// TestAStormOf200LinksIsTakenInOneRound is the relink storm the hub must take
// in one round: 200 guests at once, each within the production QUICWait.
//
//	go test -tags soak -run StormOf200 -v ./link/
func TestAStormOf200LinksIsTakenInOneRound(t *testing.T) {
	storm(t, 200, QUICWait)
}
