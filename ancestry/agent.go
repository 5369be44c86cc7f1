package ancestry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Agents are named, not launchers: the list is the agents comm ships an adapter
// for, and it grows in the commit that adds one.
var agents = []struct{ name, pkg string }{
	{"claude", "/@anthropic-ai/claude-code"},
	{"codex", "/@openai/codex"},
}

// nodeNames are the names a node host's program goes by.
var nodeNames = []string{"node", "nodejs"}

// kind is what a process is to the layer count.
type kind int

const (
	notAgent    kind = iota
	nativeAgent      // claude or codex by its own name
	nodeAgent        // a node host running an agent's script
	unknownNode      // a node whose arguments could not be read: refused
)

// IsAgent reports whether p is an agent layer: claude or codex by the base name
// of argv[0] or of its program file, or a node process one of whose arguments
// names an agent or lies in an agent's npm package. A node whose arguments could
// not be read is not called one here: Check refuses its ancestry instead.
func IsAgent(p Proc) bool {
	k, _ := classify(p)
	return k == nativeAgent || k == nodeAgent
}

// Agent names an agent program by its program's name: the one name the hooks
// sotd installs (hooks.Agent), the rows it runs (rows.Agent) and the layer
// count use.
type Agent string

const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
)

// AgentOf names the agent a command line runs, as the layer count would call
// it: "claude" or "codex" by its program's name, or by a node host's script;
// "" for anything else. A row started without an agent kind takes this one.
func AgentOf(argv []string) Agent {
	if len(argv) == 0 {
		return ""
	}
	p := Proc{Argv: argv}
	k, script := classify(p)
	switch k {
	case nativeAgent:
		return Agent(baseName(argv[0]))
	case nodeAgent:
		return Agent(agentOfArg(argv[script]))
	}
	return ""
}

// classify says what p is; for a node host, script is the index in p.Argv of the
// argument that makes it an agent.
func classify(p Proc) (k kind, script int) {
	if isNode(p) {
		if p.ArgsUnknown {
			return unknownNode, 0
		}
		for i := 1; i < len(p.Argv); i++ {
			if argIsAgent(p.Argv[i]) {
				return nodeAgent, i
			}
		}
	}
	if len(p.Argv) > 0 && agentName(baseName(p.Argv[0])) || agentName(baseName(p.Exe)) {
		return nativeAgent, 0
	}
	return notAgent, 0
}

func isNode(p Proc) bool {
	return len(p.Argv) > 0 && slices.Contains(nodeNames, baseName(p.Argv[0])) ||
		slices.Contains(nodeNames, baseName(p.Exe))
}

// argIsAgent reports whether a node host's argument names an agent or lies in
// an agent's npm package.
func argIsAgent(arg string) bool { return agentOfArg(arg) != "" }

// agentOfArg is the agent a node host's argument names or whose npm package it
// lies in, "" for none.
func agentOfArg(arg string) string {
	if b := baseName(arg); agentName(b) {
		return b
	}
	a := slashed(arg)
	for _, ag := range agents {
		if strings.HasSuffix(a, ag.pkg) || strings.Contains(a, ag.pkg+"/") {
			return ag.name
		}
	}
	return ""
}

func agentName(name string) bool {
	for _, ag := range agents {
		if name == ag.name {
			return true
		}
	}
	return false
}

// baseName is the last element of a path written with either slash, without a
// Windows program suffix, which Windows matches in any case.
func baseName(path string) string {
	b := slashed(path)
	b = b[strings.LastIndexByte(b, '/')+1:]
	if n := len(b) - len(".exe"); n > 0 && strings.EqualFold(b[n:], ".exe") {
		return strings.ToLower(b[:n])
	}
	return b
}

func slashed(s string) string { return strings.ReplaceAll(s, `\`, "/") }

// pairsWithHost reports whether child, a native agent, counts once with host:
// host is its direct parent, a node host running an agent's script, and the
// child's arguments after its binary equal the host's after its script. Unknown
// arguments equal nothing.
func pairsWithHost(child, host Proc) bool {
	if child.PPID != host.PID || child.ArgsUnknown || host.ArgsUnknown {
		return false
	}
	k, script := classify(host)
	return k == nodeAgent && slices.Equal(child.Argv[1:], host.Argv[script+1:])
}

// layers are the agents in chain (the checked process first), a node host and
// its paired native child counted once, as the host. A node whose arguments
// could not be read makes the ancestry unreadable.
func layers(chain []Proc) ([]Proc, error) {
	var found []Proc
	for i, p := range chain {
		switch k, _ := classify(p); k {
		case unknownNode:
			return nil, fmt.Errorf("%w: node process %d's command line cannot be read, so whether it runs an agent is unknown", ErrUnreadable, p.PID)
		case nativeAgent:
			if i+1 < len(chain) && pairsWithHost(p, chain[i+1]) {
				continue
			}
			found = append(found, p)
		case nodeAgent:
			found = append(found, p)
		}
	}
	return found, nil
}

// describe names p for a person: its program's base name and arguments,
// clipped, and its pid.
func describe(p Proc) string {
	if len(p.Argv) == 0 {
		return "pid " + strconv.Itoa(p.PID)
	}
	words := append([]string{baseName(p.Argv[0])}, p.Argv[1:]...)
	s := strings.Join(words, " ")
	if len(s) > 60 {
		s = strings.ToValidUTF8(s[:57], "") + "..."
	}
	if p.ArgsUnknown {
		s += " (arguments unknown)"
	}
	return fmt.Sprintf("%s (pid %d)", s, p.PID)
}
