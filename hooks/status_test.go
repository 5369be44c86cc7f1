package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/registry"
)

const postInput = `{"session_id":"s-1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/x"},"tool_response":{"content":"…"}}`

// The heartbeat re-stamps status_at and last_seen, but not within beatFresh of
// the last stamp; Codex's also clears a dialog at once.
func TestPostToolHeartbeat(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	joinedAt := stamp(c, 0)
	tests := []struct {
		name   string
		after  time.Duration
		codex  bool
		dialog string
		want   string // status_at after the beat
	}{
		{"fresh: not written", 10 * time.Second, false, "", joinedAt},
		{"stale: re-stamped", 30 * time.Second, false, "", stamp(c, 40*time.Second)},
		{"Claude's leaves a dialog", 50 * time.Second, false, "Allow Bash?", stamp(c, 90*time.Second)},
		{"Codex's clears one even when fresh", 5 * time.Second, true, "Allow Bash?", stamp(c, 95*time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dialog != "" {
				if code := s.Status(registry.VerbDialog, tt.dialog, true, false); code != 0 {
					t.Fatal(code)
				}
			}
			c.Add(tt.after)
			var o, e = new(bytes.Buffer), new(bytes.Buffer)
			if code := PostTool(Run{In: strings.NewReader(postInput), Out: o, Err: e, Session: s, Ancestry: ownCodex}, tt.codex); code != ExitOK || o.String() != "" || e.String() != "" {
				t.Fatalf("heartbeat: exit %d stdout %q stderr %q; it is silent", code, o, e)
			}
			got := entry(t, s)
			if got.StatusAt != tt.want || got.LastSeen != tt.want {
				t.Errorf("status_at %q last_seen %q, want both %q", got.StatusAt, got.LastSeen, tt.want)
			}
			if wantDialog := map[bool]string{false: tt.dialog, true: ""}[tt.codex]; got.Dialog != wantDialog {
				t.Errorf("dialog %q, want %q", got.Dialog, wantDialog)
			}
		})
	}
}

// The heartbeat makes one try at a registry lock another process holds, and
// gives up at once, silently.
func TestPostToolGivesUpOnAHeldRegistryLock(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	before := entry(t, s).StatusAt
	holdLock(t, "reglock", s.Home.RegistryLock())

	c.Add(time.Minute)
	start := time.Now()
	o, e := new(bytes.Buffer), new(bytes.Buffer)
	PostTool(Run{In: strings.NewReader(postInput), Out: o, Err: e, Session: s, Ancestry: ownCodex}, false)
	if took := time.Since(start); took > time.Second {
		t.Errorf("the heartbeat waited %v for the lock; it makes one try", took)
	}
	if o.String() != "" || e.String() != "" {
		t.Errorf("the heartbeat said %q %q; it is silent", o, e)
	}
	if got := entry(t, s).StatusAt; got != before {
		t.Errorf("status_at %q; nothing could be written under a held lock", got)
	}
}

func TestQuestions(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"one", `{"questions":[{"question":"Which branch?","header":"B","options":[]}]}`, "Which branch?"},
		{"two", `{"questions":[{"question":"Which branch?"},{"question":" Squash? "}]}`, "Which branch? / Squash?"},
		{"the single form", `{"question":"Which branch?"}`, "Which branch?"},
		{"none", `{"questions":[]}`, ""},
		{"not an object", `"x"`, ""},
		{"absent", ``, ""},
		{"past a status text's bound", `{"question":"` + strings.Repeat("é", registry.MaxText) + `"}`, strings.Repeat("é", registry.MaxText/2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := questions([]byte(tt.input)); got != tt.want {
				t.Errorf("questions(%s) = %q, want %q", tt.input, got, tt.want)
			}
		})
	}
}

func TestBashRunsComm(t *testing.T) {
	tests := []struct {
		name, input string
		want        bool
	}{
		{"a command line", `{"command":"cd x && sotd poll"}`, true},
		{"a line that mentions it", `{"command":"echo 'sotd poll'"}`, false},
		{"an argv", `{"command":["bash","-lc","sotd send @a hi"]}`, true},
		{"an argv that runs sotd", `{"command":["/usr/bin/sotd","poll"]}`, true},
		{"an argv that mentions it", `{"command":["echo","sotd poll"]}`, false},
		{"no command", `{}`, false},
		{"not an object", `[1]`, false},
	}
	for _, tt := range tests {
		if got, err := bashRunsComm([]byte(tt.input)); got != tt.want || err != nil {
			t.Errorf("%s: bashRunsComm(%s) = %v, %v; want %v", tt.name, tt.input, got, err, tt.want)
		}
	}
}

// preToolCall is a PreToolUse hook's input: tool called with a command, by a
// subagent when agent is not "".
func preToolCall(t *testing.T, agent, tool, command string) string {
	in := map[string]any{"session_id": "s-1", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": map[string]any{"command": command}}
	if agent != "" {
		in["agent_id"] = agent
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// judged runs PreTool on input and returns its decision and reason, "" when
// it answered nothing.
func judged(t *testing.T, allowMail bool, input string) (verdict, reason string) {
	t.Helper()
	out, errs := hook(t, nil, func(r Run) int { return PreTool(r, allowMail) }, input)
	if errs != "" {
		t.Errorf("stderr %q", errs)
	}
	if out == "" {
		return "", ""
	}
	a := decode(t, out)["hookSpecificOutput"].(map[string]any)
	if a["hookEventName"] != "PreToolUse" {
		t.Errorf("answered %q, not for PreToolUse", out)
	}
	verdict, _ = a["permissionDecision"].(string)
	reason, _ = a["permissionDecisionReason"].(string)
	return verdict, reason
}

// Inside a subagent a Bash command that runs a comm verb is denied, and so is
// one the guard cannot read; the session's own Bash never is.
func TestPreToolSubagentGuard(t *testing.T) {
	bash := func(agent, command string) string { return preToolCall(t, agent, "Bash", command) }
	tests := []struct {
		name, input string
		reason      string // "" when the call passes
	}{
		{"an ANSI-C quoted sotd", bash("a-1", `$'sotd' send @x hi`), SubagentRefusal},
		{"find -exec", bash("a-1", `find . -exec sotd poll \;`), SubagentRefusal},
		{"a Codex argv", `{"session_id":"s-1","agent_id":"a-1","tool_name":"Bash","tool_input":{"command":["find",".","-exec","sotd","poll",";"]}}`, SubagentRefusal},
		{"echo's arguments", bash("a-1", "echo sotd poll"), ""},
		{"a command that does not parse", bash("a-1", `echo "hi`), "sot-comm: a subagent does not send or read mail, and this command could not be checked for a comm verb: it does not parse as bash (1:6: reached EOF without closing quote `\"`). Write it as plain bash, or split it into shorter commands."},
		{"the session's own, unreadable", bash("", `echo "hi`), ""},
		{"the session's own send", bash("", "sotd send @bob hi"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verdict, reason := judged(t, false, tt.input)
			if want := map[bool]string{true: "deny", false: ""}[tt.reason != ""]; verdict != want || reason != tt.reason {
				t.Errorf("answered %q %q, want %q %q", verdict, reason, want, tt.reason)
			}
		})
	}
}

// With --allow-mail (the plugin's guard) the session's own mail commands are
// allowed, and only what Install's permission rules would allow: one simple
// mail command with its words known before it runs, by sotd's or a shim's bare
// name, or a sot-comm MCP tool. A subagent's are still denied.
func TestPreToolAllowsMail(t *testing.T) {
	call := func(agent, tool, command string) string { return preToolCall(t, agent, tool, command) }
	tests := []struct {
		name, input string
		verdict     string // "" when the hook says nothing and Claude Code's own rules decide
	}{
		{"poll", call("", "Bash", "sotd poll"), "allow"},
		{"send", call("", "Bash", "sotd send @bob 'the tests pass'"), "allow"},
		{"a shim", call("", "Bash", "comm-poll.sh"), "allow"},
		{"the plugin's MCP tool", call("", "mcp__plugin_sot-comm_sot-comm__send", ""), "allow"},
		{"the installed MCP tool", call("", "mcp__sot-comm__poll", ""), "allow"},
		{"a compound command", call("", "Bash", "sotd send @bob hi; rm -rf x"), ""},
		{"a pipeline", call("", "Bash", "sotd poll | sh"), ""},
		{"a redirection", call("", "Bash", "sotd poll > ~/.bashrc"), ""},
		{"a substitution", call("", "Bash", `sotd send @bob "$(cat ~/.ssh/id_ed25519)"`), ""},
		{"a variable", call("", "Bash", "sotd send @bob $HOME"), ""},
		{"an assignment", call("", "Bash", "PATH=/tmp sotd poll"), ""},
		{"in the background", call("", "Bash", "sotd poll &"), ""},
		{"another sotd by path", call("", "Bash", "/tmp/x/sotd poll"), ""},
		{"another verb", call("", "Bash", "sotd lock-clear"), ""},
		{"a shim of another verb", call("", "Bash", "comm-registry-lock-clear.sh"), ""},
		{"sotd alone", call("", "Bash", "sotd"), ""},
		{"another program", call("", "Bash", "ls"), ""},
		{"a subagent's poll", call("a-1", "Bash", "sotd poll"), "deny"},
		{"a subagent's MCP tool", call("a-1", "mcp__plugin_sot-comm_sot-comm__poll", ""), "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if verdict, _ := judged(t, true, tt.input); verdict != tt.verdict {
				t.Errorf("answered %q, want %q", verdict, tt.verdict)
			}
		})
	}
	// Without the flag (an install, whose rules allow these) it says nothing.
	if verdict, _ := judged(t, false, call("", "Bash", "sotd poll")); verdict != "" {
		t.Errorf("without --allow-mail: answered %q", verdict)
	}
}

// A subagent's UserPromptSubmit and PostToolUse (their input carries agent_id)
// leave the session's row as it was, byte for byte, from Claude Code and Codex
// alike; the same event without agent_id stamps it.
func TestSubagentEventsLeaveTheRowAlone(t *testing.T) {
	codexPost := func(r Run) int { return PostTool(r, true) }
	claudePost := func(r Run) int { return PostTool(r, false) }
	tests := []struct {
		name  string
		hook  func(Run) int
		input string // a JSON object whose closing brace takes the agent_id member
	}{
		{"Claude Code's prompt", Prompt, `{"session_id":"s-1","transcript_path":"/home/me/.claude/projects/-repo/s-1.jsonl","cwd":"/repo","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"look for the flaky test's cause"}`},
		{"Codex's prompt", Prompt, `{"session_id":"s-1","turn_id":"t-2","hook_event_name":"UserPromptSubmit","model":"gpt-5","permission_mode":"default","cwd":"/repo","transcript_path":null,"prompt":"look for the flaky test's cause"}`},
		{"Claude Code's heartbeat", claudePost, `{"session_id":"s-1","transcript_path":"/home/me/.claude/projects/-repo/s-1.jsonl","cwd":"/repo","hook_event_name":"PostToolUse","tool_name":"Grep","tool_input":{"pattern":"flaky"},"tool_response":{"numFiles":2}}`},
		{"Codex's heartbeat", codexPost, `{"session_id":"s-1","turn_id":"t-2","hook_event_name":"PostToolUse","model":"gpt-5","permission_mode":"default","cwd":"/repo","transcript_path":null,"tool_name":"Bash","tool_use_id":"call_7","tool_input":{"command":"go test ./..."},"tool_response":"ok"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := joined(t, c)
			// The session waits on a person, stamped a while ago: a prompt, a
			// heartbeat and Codex's "resumed" would each write.
			if code := s.Status(registry.VerbDialog, "Allow Bash? make migrate", true, false); code != 0 {
				t.Fatal(code)
			}
			c.Add(time.Minute)
			registryBytes := func() string {
				b, err := os.ReadFile(s.Home.Registry())
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			before := registryBytes()

			sub := strings.TrimSuffix(tt.input, "}") + `,"agent_id":"a-1","agent_type":"Explore"}`
			if out, errs := hook(t, s, tt.hook, sub); out != "" || errs != "" {
				t.Errorf("the subagent's event answered %q %q; it is silent", out, errs)
			}
			if after := registryBytes(); after != before {
				t.Errorf("the subagent's event changed the registry:\n%s\nwas\n%s", after, before)
			}

			hook(t, s, tt.hook, tt.input)
			if registryBytes() == before {
				t.Errorf("the session's own event did not stamp its row; the test shows nothing")
			}
		})
	}
}
