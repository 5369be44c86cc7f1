package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// The comm-*.sh shims keep the reference client's script names working: the
// wake's notice says "run comm-poll.sh", and skills and hooks written for the
// reference client call comm-send.sh and the rest. Install writes them into the
// comm home's bin/ (the protocol's folder for installed scripts), which every
// row the daemon starts has first on its PATH (home.RowPath); scripts/ in the
// source tree holds the same files.

// shimVerbs are the shims, each the sotd verb its script name stands for.
var shimVerbs = []struct{ name, verb string }{
	{"comm-join.sh", "join"},
	{"comm-leave.sh", "leave"},
	{"comm-list.sh", "list"},
	{"comm-poll.sh", "poll"},
	{"comm-registry-lock-clear.sh", "lock-clear"},
	{"comm-send.sh", "send"},
	{"comm-status.sh", "status"},
}

const shimHead = "#!/usr/bin/env bash\n# Shim for agent skills and hooks that call the reference client's script name.\n"

// shim is a shim's bytes: it execs sotd's verb, so no shell stays between the
// agent and sotd (the agent-layer check counts the processes in between).
func shim(sotd, verb string) []byte {
	return []byte(shimHead + "exec " + sotd + " " + verb + " \"$@\"\n")
}

// isShim reports whether a file's bytes are a sotd shim for verb, whatever sotd
// it runs: only those are replaced or removed, never a reference client's script.
func isShim(b []byte, verb string) bool {
	rest, ok := bytes.CutPrefix(b, []byte(shimHead+"exec "))
	return ok && bytes.HasSuffix(rest, []byte(" "+verb+" \"$@\"\n")) && bytes.Count(rest, []byte("\n")) == 1
}

// shimsRecord names, one a line, the agents whose install asked for the shims,
// so uninstalling one agent keeps the shims the other still uses.
const shimsRecord = ".sotd-shims"

// binMode is bin/'s and each shim's mode: the installer's, readable and
// runnable by all, as the protocol leaves bin/ (home.KeepsOwnMode).
const binMode fs.FileMode = 0o755

// installShims writes the shims into h's bin/, and records the agent.
func installShims(h home.Home, a Agent, sotd string) (say string, changed bool, err error) {
	bin := h.BinDir()
	if err := home.MkdirPrivate(h.Dir); err != nil {
		return "", false, fmt.Errorf("the comm home %s could not be made (%v)", h.Dir, err)
	}
	if err := os.MkdirAll(bin, binMode); err != nil {
		return "", false, fmt.Errorf("%s could not be made (%v)", bin, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", bin)
	defer func() { say = b.String() }()
	for _, s := range shimVerbs {
		p := filepath.Join(bin, s.name)
		want := shim(sotd, s.verb)
		old, err := os.ReadFile(p)
		did := added
		switch {
		case err == nil && bytes.Equal(old, want):
			did = unchanged
		case err == nil && !isShim(old, s.verb):
			fmt.Fprintf(&b, "  %-10s %s: it is not sotd's shim, so it is left as it is\n", "kept", s.name)
			continue
		case err == nil:
			did = updated
		case !errors.Is(err, fs.ErrNotExist):
			return "", changed, fmt.Errorf("%s could not be read (%v)", p, err)
		}
		if did != unchanged {
			changed = true
			if err := home.WriteAtomic(p, want); err != nil {
				return "", changed, fmt.Errorf("%s could not be written (%v)", p, err)
			}
			if err := os.Chmod(p, binMode); err != nil {
				return "", changed, fmt.Errorf("%s could not be made runnable (%v)", p, err)
			}
		}
		fmt.Fprintf(&b, "  %-10s %s: %s %s\n", did, s.name, sotd, s.verb)
	}
	agents := recordedAgents(bin)
	if !slices.Contains(agents, string(a)) {
		changed = true
		if err := writeRecord(bin, append(agents, string(a))); err != nil {
			return "", changed, err
		}
	}
	return "", changed, nil
}

// uninstallShims takes the agent off the record and, when no agent is left on
// it, removes the shims, the record and bin/ if that leaves it empty.
func uninstallShims(h home.Home, a Agent) (string, error) {
	bin := h.BinDir()
	agents := recordedAgents(bin)
	i := slices.Index(agents, string(a))
	if i < 0 {
		return "", nil
	}
	agents = slices.Delete(agents, i, i+1)
	if len(agents) > 0 {
		return fmt.Sprintf("%s:\n  %-10s the shims: %s still uses them\n", bin, "kept", strings.Join(agents, " and ")), writeRecord(bin, agents)
	}
	var say strings.Builder
	fmt.Fprintf(&say, "%s:\n", bin)
	for _, s := range shimVerbs {
		p := filepath.Join(bin, s.name)
		if b, err := os.ReadFile(p); err != nil || !isShim(b, s.verb) {
			continue
		}
		if err := os.Remove(p); err != nil {
			return say.String(), fmt.Errorf("%s could not be removed (%v)", p, err)
		}
		fmt.Fprintf(&say, "  %-10s %s\n", removed, s.name)
	}
	if err := os.Remove(filepath.Join(bin, shimsRecord)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return say.String(), fmt.Errorf("%s could not be removed (%v)", filepath.Join(bin, shimsRecord), err)
	}
	os.Remove(bin) // only when empty: a reference client's scripts may live there
	return say.String(), nil
}

func recordedAgents(bin string) []string {
	b, _ := os.ReadFile(filepath.Join(bin, shimsRecord))
	return strings.Fields(string(b))
}

func writeRecord(bin string, agents []string) error {
	p := filepath.Join(bin, shimsRecord)
	if err := home.WriteAtomic(p, []byte(strings.Join(agents, "\n")+"\n")); err != nil {
		return fmt.Errorf("%s could not be written (%v)", p, err)
	}
	return nil
}

// pathAdvice is the line to add to a shell's profile when bin/ is not on this
// shell's PATH, "" when it is.
func pathAdvice(bin string) string {
	if slices.Contains(filepath.SplitList(os.Getenv("PATH")), bin) {
		return ""
	}
	shown := bin
	if u, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(u, bin); err == nil && !strings.HasPrefix(rel, "..") {
			shown = "$HOME/" + filepath.ToSlash(rel)
		}
	}
	return fmt.Sprintf("Rows find the shims (comm-poll.sh, ...) on their PATH. For a plain session to find them, add this line to your shell's profile (~/.bashrc, ~/.zshrc):\n  export PATH=\"%s:$PATH\"\n", shown)
}
