package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sotcomm/sotd/hooks"
)

// checkCodexHooks: sotd's hooks in Codex's hooks.json are ones Codex runs. It
// runs a hook only once a person has trusted it as it is now, and says nothing
// of one it skips, so an untrusted Stop hook lets turns end over waiting mail
// unnoticed.
func checkCodexHooks(e Env) Check {
	c := Check{Name: "codex hooks", Level: OK}
	if e.CodexHome == "" {
		c.Detail = "not checked: the Codex home is unknown (no CODEX_HOME and no home folder)"
		return c
	}
	ct, err := hooks.ReadCodexTrust(filepath.Join(e.CodexHome, "hooks.json"))
	if err != nil {
		c.Level, c.Detail = Warn, fmt.Sprintf("whether Codex runs sotd's hooks is unknown: %v", err)
		c.Fix = "Fix the file named, then run sotd doctor again."
		return c
	}
	if len(ct.Hooks) == 0 {
		c.Detail = fmt.Sprintf("no sotd hook in %s (sotd hooks install --codex adds them for Codex sessions)", ct.Settings)
		return c
	}
	by := map[hooks.Trust][]string{}
	var edited []string
	for _, h := range ct.Hooks {
		switch {
		case h.Trust != hooks.Trusted && h.Trust != hooks.Disabled && !h.Written:
			edited = append(edited, h.Event)
		default:
			by[h.Trust] = append(by[h.Trust], h.Event)
		}
	}
	var bad, fixes []string
	if evs := by[hooks.Untrusted]; len(evs) > 0 {
		bad = append(bad, "installed but not trusted: "+strings.Join(evs, ", "))
	}
	if evs := by[hooks.Modified]; len(evs) > 0 {
		bad = append(bad, "trust recorded for a different command: "+strings.Join(evs, ", "))
	}
	if len(by[hooks.Untrusted])+len(by[hooks.Modified]) > 0 {
		fixes = append(fixes, "Run sotd hooks install --codex, which records Codex's trust in the hooks it writes; or trust them once yourself: "+hooks.TrustHow+".")
	}
	if len(edited) > 0 {
		bad = append(bad, "changed since sotd wrote them, and not trusted as they are now: "+strings.Join(edited, ", "))
		fixes = append(fixes, "If you meant the change, trust it: "+hooks.TrustHow+"; else sotd hooks uninstall --codex, then sotd hooks install --codex, puts sotd's back, trusted.")
	}
	if evs := by[hooks.Disabled]; len(evs) > 0 {
		bad = append(bad, "turned off: "+strings.Join(evs, ", "))
		fixes = append(fixes, "Turn them on in Codex's /hooks, or remove their enabled = false from "+ct.Config+".")
	}
	if ct.FeatureOff {
		bad = append(bad, "Codex's hooks feature is off, so it runs none")
		fixes = append(fixes, "Set hooks = true under [features] in "+ct.Config+".")
	}
	if len(bad) == 0 {
		c.Detail = fmt.Sprintf("%d sotd hooks in %s, each trusted in %s", len(ct.Hooks), ct.Settings, ct.Config)
		return c
	}
	c.Level = Warn
	c.Detail = fmt.Sprintf("Codex skips sotd's hooks in %s: %s", ct.Settings, strings.Join(bad, "; "))
	c.Fix = strings.Join(fixes, " ")
	return c
}

// checkCodexServer: no shared Codex app-server runs for the Codex home. A
// session started without --no-daemon hands its work to one, and the hooks run
// as its children, in the environment of whichever session started it: sotd's
// hooks there act as no handle.
func checkCodexServer(e Env) Check {
	c := Check{Name: "codex server", Level: OK}
	if e.CodexHome == "" {
		c.Detail = "not checked: the Codex home is unknown (no CODEX_HOME and no home folder)"
		return c
	}
	pid, err := hooks.CodexServer(e.CodexHome)
	switch {
	case err != nil:
		c.Level, c.Detail = Warn, fmt.Sprintf("whether Codex's shared app-server runs for %s is unknown: %v", e.CodexHome, err)
	case pid != 0:
		c.Level = Warn
		c.Detail = fmt.Sprintf("Codex's shared app-server runs for %s (pid %d): a session started without --no-daemon hands its work to it, and sotd's hooks there act as no handle", e.CodexHome, pid)
		c.Fix = fmt.Sprintf("Quit the Codex sessions that use it, run CODEX_HOME=%s codex app-server daemon stop, and start Codex as codex --no-daemon (sotd spawn does so for rows).", e.CodexHome)
	default:
		c.Detail = fmt.Sprintf("no shared Codex app-server runs for %s", e.CodexHome)
	}
	return c
}

// checkCodexRules: sotd's rules file lets Codex run the mail verbs outside its
// sandbox. In the sandbox they fail (the comm home is read-only, and the row
// that names the caller is out of sight), so without it each waits for a
// person's approval to run outside.
func checkCodexRules(e Env) Check {
	c := Check{Name: "codex rules", Level: OK}
	if e.CodexHome == "" {
		c.Detail = "not checked: the Codex home is unknown (no CODEX_HOME and no home folder)"
		return c
	}
	settings := filepath.Join(e.CodexHome, "hooks.json")
	path, p, err := hooks.CodexRules(settings)
	switch {
	case err != nil:
		c.Level, c.Detail = Warn, fmt.Sprintf("whether Codex may run the mail verbs outside its sandbox is unknown: %v", err)
		c.Fix = "Fix the file named, then run sotd doctor again."
	case p == hooks.Current:
		c.Detail = fmt.Sprintf("%s lets Codex run the mail verbs outside its sandbox, with no approval", path)
	case p == hooks.Foreign:
		c.Level = Warn
		c.Detail = fmt.Sprintf("%s is not sotd's rules file, so Codex's mail verbs may wait for approval", path)
		c.Fix = "Move it aside, then run sotd hooks install --codex."
	default:
		ct, err := hooks.ReadCodexTrust(settings)
		if err != nil || len(ct.Hooks) == 0 {
			c.Detail = fmt.Sprintf("no sotd rules at %s (sotd hooks install --codex adds them with the hooks)", path)
			return c
		}
		c.Level = Warn
		c.Detail = fmt.Sprintf("sotd's rules at %s are %s: in Codex's sandbox the mail verbs fail, and each waits for a person's approval to run outside it", path, p)
		c.Fix = "Run sotd hooks install --codex. (An install with --no-permissions leaves them out on purpose.)"
	}
	return c
}
