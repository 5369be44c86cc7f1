package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/registry/reglock"
)

// checkRegistry: registry.json reads as the protocol's registry.
func checkRegistry(e Env, doc *registry.Doc, err error) Check {
	c := Check{Name: "registry"}
	path := e.Home.Registry()
	switch {
	case err == nil:
		c.Level, c.Detail = OK, fmt.Sprintf("%s lists %d %s", path, len(doc.Agents), plural(len(doc.Agents), "agent", "agents"))
		if n := staleEntries(doc, e.Now()); n >= manyStale {
			c.Level = Warn
			c.Detail += fmt.Sprintf(", %d of them stale for over %dd: a registry's size is read by every send, poll and hook", n, staleDays)
			c.Fix = fmt.Sprintf("Remove them with sotd leave --stale-for %dd (it prints each one it removes, and keeps those a row holds).", staleDays)
		}
	case errors.Is(err, fs.ErrNotExist):
		c.Level, c.Detail = Warn, fmt.Sprintf("there is no %s yet", path)
		c.Fix = "Start the daemon (sotd serve) or join a session (sotd join): either makes an empty one."
	default:
		// Never rewritten by any client, as that would wipe every row: by hand only.
		c.Level, c.Detail = Fail, err.Error()
		c.Fix = fmt.Sprintf("Move %s aside (mv %s %s.bad): the next sotd command makes an empty one and sessions join again; copy back by hand any row the old file still holds.", path, path, path)
	}
	return c
}

// A registry may keep many entries no one will use again: the protocol never
// reuses a handle that has one, and only a person removes them. Past manyStale
// entries stale for over staleDays, doctor says how.
const (
	manyStale = 100
	staleDays = 30
)

func staleEntries(doc *registry.Doc, now time.Time) int {
	n := 0
	for _, e := range doc.Agents {
		if registry.StaleFor(e.LastSeen, now, staleDays*24*time.Hour) {
			n++
		}
	}
	return n
}

// checkRegistryLock: the registry lock is free or held by a live holder. A lock
// held past the ruled wait by a live process is a writer that is stuck, and
// every other writer fails behind it.
func checkRegistryLock(e Env) Check {
	c := Check{Name: "registry lock"}
	path := e.Home.RegistryLock()
	in := reglock.Inspect(path, e.Host, e.Now())
	holder := ""
	if in.Holder != nil {
		holder = fmt.Sprintf("held by %s pid %d start %s (%s old): ", in.Holder.Name, in.Holder.PID, in.Holder.Start, in.Age)
	}
	c.Detail, c.Fix = holder+in.Why, in.Fix
	switch in.State {
	case reglock.Free:
		c.Level, c.Detail = OK, path+" is free"
	case reglock.HeldLive:
		c.Level = OK
		if in.Age > reglock.RuledDeadline() {
			c.Level = Warn
			c.Fix = fmt.Sprintf("A live process has held it over %s: every registry write waits behind it. Find pid %d on %s and end it if it is stuck.", reglock.RuledDeadline(), in.Holder.PID, in.Holder.Name)
		}
	case reglock.HeldUnsure:
		// Young, it is likely a write in progress on another box; past the
		// ruled wait, every writer fails behind it.
		c.Level = Warn
		if in.Age > reglock.RuledDeadline() {
			c.Level = Fail
		}
	default:
		c.Level = Fail
		if in.Holder == nil {
			c.Detail = fmt.Sprintf("%s is held: %s", path, in.Why)
		}
	}
	return c
}
