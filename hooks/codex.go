package hooks

import (
	"fmt"
	"os"
	"slices"

	"github.com/sotcomm/sotd/ancestry"
)

// IsCodexServer reports whether a command line is Codex's shared app-server
// daemon: `codex app-server … --managed-daemon`, which an interactive codex
// without --no-daemon starts in a session of its own and hands its work to.
func IsCodexServer(argv []string) bool {
	return slices.Contains(argv, "app-server") && slices.Contains(argv, "--managed-daemon")
}

// serverAdvice is what a person does about a session on Codex's shared server.
const serverAdvice = "Quit this Codex session, stop the server with `codex app-server daemon stop`, and start Codex again as `codex --no-daemon` (sotd spawn does so for rows)."

// sharedServer is the Codex app-server daemon among this hook's ancestors, ok
// false when there is none. Its hooks run as the server's children, in the
// environment of whichever session started it, so they cannot tell which
// session, and so which comm handle, they serve. A walk that could not read the
// whole ancestry still shows the part it read; the rest is the agent-layer
// check's to refuse.
func (r Run) sharedServer() (ancestry.Proc, bool) {
	walk := r.Ancestry
	if walk == nil {
		walk = func() ([]ancestry.Proc, error) { return ancestry.Walk(os.Getpid()) }
	}
	chain, _ := walk()
	for _, p := range chain {
		if IsCodexServer(p.Argv) {
			return p, true
		}
	}
	return ancestry.Proc{}, false
}

// onSharedServer reports whether this hook runs under Codex's shared server, and
// then says so instead of acting: on stderr always, and to the person (the
// answer's systemMessage) when tell, which the turn's edges (prompt, stop) set
// so that a session hears it twice a turn and not at every tool call.
func (r Run) onSharedServer(hook string, tell bool) bool {
	p, ok := r.sharedServer()
	if !ok {
		return false
	}
	msg := fmt.Sprintf("sotd hook %s: this hook runs under Codex's shared app-server (pid %d), not under this session's own codex, so it cannot tell which comm handle it serves and did nothing: no mail check holds the turn end and no status is stamped. %s", hook, p.PID, serverAdvice)
	r.note("%s", msg)
	if tell {
		r.answer(messageAnswer{SystemMessage: msg})
	}
	return true
}
