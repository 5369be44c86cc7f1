package client

import (
	"fmt"

	"github.com/sotcomm/sotd/wire"
)

// RowPhase is a row's phase as a person reads it in a table: a Stopped row says
// how its program ended, the first thing to know about a row that stopped on
// its own.
func RowPhase(w wire.Workspace) string {
	switch {
	case w.ExitCode == nil:
		return w.Phase
	case *w.ExitCode < 0:
		return w.Phase + " (killed by a signal)"
	}
	return fmt.Sprintf("%s (exit %d)", w.Phase, *w.ExitCode)
}
