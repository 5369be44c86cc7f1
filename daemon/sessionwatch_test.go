//go:build linux

package daemon

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/wire"
)

// TestSessionWatchAskerIsTheConnectionsPeer: over the socket the daemon takes
// the asker of a session.watch from the connection, so the test, the agent's
// parent and not its child, is refused the watch.
func TestSessionWatchAskerIsTheConnectionsPeer(t *testing.T) {
	agent, _ := rigtest.AgentAbove(t)
	r := startRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var done wire.Done
	err := r.dial(t).Call(ctx, wire.OpSessionWatch, agent, &done)
	wantRefusal(t, err, wire.CodeBadRequest, fmt.Sprintf("process %d is not an ancestor of the asking process %d", agent.PID, os.Getpid()))
	rec, _ := r.home.SessionRecord("box", "carol")
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("a refused watch left a record: %v", err)
	}
}
