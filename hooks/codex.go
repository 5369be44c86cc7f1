package hooks

import (
	"fmt"
	"slices"
	"strings"

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

// TrustHow is how a person trusts sotd's hooks in Codex (0.171): once after
// the install, and again whenever a hook's command changes.
const TrustHow = `start codex in a terminal and choose "Trust all and continue" when it shows "Hooks need review" (or type /hooks and press t)`

// NoDaemonHow is why and how a person runs Codex for sotd's hooks to work.
const NoDaemonHow = "Run Codex as `codex --no-daemon` (sotd spawn does so for rows): without it Codex hands the session to a shared app-server whose hooks cannot tell which session they serve, and do nothing."

// codexAdvice is what the install tells a person about Codex: whether it trusts
// each sotd hook in settings (and how to trust them once), and --no-daemon.
func codexAdvice(settings string) string {
	var b strings.Builder
	ct, err := ReadCodexTrust(settings)
	var waiting []string
	for _, h := range ct.Hooks {
		if h.Trust != Trusted && !slices.Contains(waiting, h.Event) {
			waiting = append(waiting, h.Event)
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(&b, "Whether Codex trusts the hooks is unknown: %v.\n", err)
	case len(waiting) > 0:
		fmt.Fprintf(&b, "Codex runs a hook only once you trust it, and skips an untrusted one without a word; not trusted yet: %s.\n", strings.Join(waiting, ", "))
		fmt.Fprintf(&b, "Trust them once: %s. A change to a hook's command needs this again; `sotd doctor` shows which are trusted.\n", TrustHow)
	}
	if ct.FeatureOff {
		fmt.Fprintf(&b, "Codex's hooks feature is off ([features] hooks = false in %s), so no hook runs: set it to true.\n", ct.Config)
	}
	b.WriteString(NoDaemonHow + "\n")
	return b.String()
}

// sharedServer is the Codex app-server daemon among this hook's ancestors, ok
// false when there is none. Its hooks run as the server's children, in the
// environment of whichever session started it, so they cannot tell which
// session, and so which comm handle, they serve. A walk that could not read the
// whole ancestry still shows the part it read; the rest is the agent-layer
// check's to refuse.
func (r Run) sharedServer() (ancestry.Proc, bool) {
	for _, p := range r.ancestors() {
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
