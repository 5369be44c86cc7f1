package ancestry

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const cc = "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"
	for _, tc := range []struct {
		name   string
		specs  []string // top first, as line takes them
		other  []string // a second branch, from pid 500, for its runner record
		row    string
		ok     bool
		agents int
		runner string
		reason string // a part of the reason
		err    error
		stale  bool // ws-a's record names pid 2 with another start: the pid was reused
	}{
		{name: "outside any row, no agent", specs: []string{"init", "sshd", "bash", "sotd send"},
			ok: true, reason: "no agent between pid 4 and the top of its process tree"},
		{name: "outside any row, one agent", specs: []string{"init", "bash", "claude", "bash -c sotd send", "sotd send"},
			ok: true, agents: 1, reason: "(claude (pid 3))"},
		{name: "outside any row, claude under claude", specs: []string{"init", "claude", "claude -p hi", "sotd send"},
			agents: 2, reason: "2 agents lie between pid 4 and the top of its process tree (claude -p hi (pid 3) under claude (pid 2))"},
		{name: "in its row, no agent", specs: []string{"init", "tmux", "[ws-a] bash", "sotd send"}, row: "ws-a",
			ok: true, runner: "ws-a", reason: "the runner of row ws-a"},
		{name: "in its row, the runner is the agent", specs: []string{"init", "tmux", "[ws-a] claude", "bash", "sotd send"}, row: "ws-a",
			ok: true, agents: 1, runner: "ws-a"},
		{name: "in its row, claude -p inside the session", specs: []string{"init", "tmux", "[ws-a] claude", "bash", "claude -p hi", "sotd send"}, row: "ws-a",
			agents: 2, runner: "ws-a", reason: "2 agents lie between pid 6 and the runner of row ws-a"},
		{name: "in its row, codex exec inside claude", specs: []string{"init", "tmux", "[ws-a] claude", "codex exec x", "sotd send"}, row: "ws-a",
			agents: 2, runner: "ws-a"},
		{name: "in its row, node host and native child count once", specs: []string{"init", "sotd serve", "[ws-a] node " + cc + " --resume", "claude --resume", "bash", "sotd send"}, row: "ws-a",
			ok: true, agents: 1, runner: "ws-a"},
		{name: "in its row, node host and native child with other arguments count twice", specs: []string{"init", "sotd serve", "[ws-a] node " + cc + " --resume", "claude -p hi", "sotd send"}, row: "ws-a",
			agents: 2, runner: "ws-a"},
		{name: "agents above the runner are not counted", specs: []string{"init", "claude", "claude -p start the daemon", "sotd serve", "[ws-a] claude", "sotd send"}, row: "ws-a",
			ok: true, agents: 1, runner: "ws-a"},
		{name: "naming no row inside a row counts to the runner", specs: []string{"init", "claude", "claude -p x", "sotd serve", "[ws-a] bash", "sotd send"},
			ok: true, runner: "ws-a"},
		{name: "inside another row's runner", specs: []string{"init", "tmux", "[ws-b] claude", "sotd send"}, row: "ws-a",
			other: []string{"init", "tmux", "[ws-a] claude"}, runner: "ws-b",
			reason: "pid 4 names row ws-a but runs inside another row's runner, claude (pid 3) of row ws-b"},
		{name: "reparented away from its row", specs: []string{"init", "bash", "sotd send"}, row: "ws-a",
			other:  []string{"init", "tmux", "[ws-a] claude"},
			reason: "pid 3 names row ws-a, but its ancestry ends at init (pid 1) without reaching the row's runner (pid 502): it was reparented away from row ws-a"},
		{name: "a row this box has no runner for", specs: []string{"init", "bash", "sotd send"}, row: "ws-a",
			reason: "this box has no record of that row's runner"},
		{name: "a reused runner pid is no runner", specs: []string{"init", "bash", "sotd send"}, row: "ws-a",
			stale: true, reason: "reparented away"},
		{name: "a node host whose arguments are unknown is refused", specs: []string{"init", "tmux", "[ws-a] ? node", "bash", "sotd send"}, row: "ws-a",
			runner: "ws-a", err: ErrUnreadable, reason: "node process 3's command line cannot be read"},
		{name: "an unknown node outside any row is refused too", specs: []string{"init", "? node", "sotd send"},
			err: ErrUnreadable, reason: "it is refused, not trusted"},
		{name: "a walk past the cap is refused", specs: append(repeat("bash", MaxWalk), "sotd send"),
			err: ErrUnreadable, reason: "passed 64 processes"},
		{name: "a walk past the cap is refused for a row too", specs: append(append([]string{"init", "[ws-a] claude"}, repeat("bash", MaxWalk)...), "sotd send"), row: "ws-a",
			err: ErrUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, runners, leaf := line(1, tc.specs...)
			if tc.other != nil {
				ot, or, _ := line(500, tc.other...)
				tb = tb.merge(ot)
				for row, r := range or {
					runners[row] = r
				}
			}
			if tc.stale {
				runners["ws-a"] = Runner{PID: 2, Start: "7"}
			}
			v, err := Checker{Table: tb, Runners: runners}.Check(leaf, tc.row)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Check error = %v, want %v", err, tc.err)
			}
			if v.OK != tc.ok || len(v.Agents) != tc.agents || v.Runner != tc.runner || v.Row != tc.row {
				t.Fatalf("Check = ok %v, %d agents, runner %q, row %q (%s); want ok %v, %d agents, runner %q",
					v.OK, len(v.Agents), v.Runner, v.Row, v.Reason, tc.ok, tc.agents, tc.runner)
			}
			if !strings.Contains(v.Reason, tc.reason) {
				t.Fatalf("reason %q does not say %q", v.Reason, tc.reason)
			}
			if v.Chain[0].PID != leaf {
				t.Fatalf("the chain starts at %d, want the checked pid %d", v.Chain[0].PID, leaf)
			}
		})
	}
}
