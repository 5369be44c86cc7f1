package rows

import (
	"fmt"
	"time"
)

// killWait bounds the wait for a process group after SIGKILL; only a process
// stuck in the kernel outlives it.
const killWait = 5 * time.Second

// group is a row's process group as Stop ends it.
type group interface {
	terminate() error                   // ask it to end (SIGTERM)
	kill() error                        // end it (SIGKILL)
	wait(d time.Duration) (bool, error) // whether its leader is gone within d
}

// stopGroup asks the group to end, forces it after grace, and waits for the
// leader. Once the leader is gone, the rest of the group (children the agent
// left in it) is killed too, so Stop leaves nothing of the row running.
func stopGroup(g group, grace time.Duration) error {
	if gone, err := g.wait(0); err != nil || gone {
		return err
	}
	if err := g.terminate(); err != nil {
		return err
	}
	gone, err := g.wait(grace)
	if err != nil {
		return err
	}
	if !gone {
		if err := g.kill(); err != nil {
			return err
		}
		if gone, err = g.wait(killWait); err != nil {
			return err
		}
		if !gone {
			return fmt.Errorf("its process did not exit %v after SIGKILL", killWait)
		}
	}
	// The leader was the group's first member; the ones it left are ended too.
	return g.kill()
}
