package hooks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sotcomm/sotd/registry"
)

// Prompt is `sotd hook prompt`, the UserPromptSubmit hook: a turn starts. A
// prompt that is exactly the wake's notice was typed by the daemon, so its turn
// is the machine's; any other is the user's. A subagent's prompt (the input
// carries agent_id) starts no turn of the session's: the session is mid-turn,
// and its row says so already.
func Prompt(r Run) int {
	in, err := r.read()
	if err != nil {
		r.note("sotd hook prompt: %v; nothing was stamped", err)
		return ExitFailed
	}
	if in.AgentID != "" || r.onSharedServer("prompt", true) {
		return ExitOK
	}
	return r.status(registry.VerbPrompt, registry.PromptOrigin(in.Prompt))
}

// decision is PreToolUse's judgment of one tool call: deny, or allow.
type decision struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// SubagentRefusal is the reason a subagent's comm command is denied.
const SubagentRefusal = "sot-comm: a subagent does not send or read mail; report to your parent session, which sends."

// unreadableRefusal is the reason a subagent's command the guard cannot read is
// denied: what it could not check might run a comm verb. %v says why.
const unreadableRefusal = "sot-comm: a subagent does not send or read mail, and this command could not be checked for a comm verb: %v. Write it as plain bash, or split it into shorter commands."

func (r Run) deny(reason string) { r.decide("deny", reason) }

// MailAllowed is the reason PreTool --allow-mail gives for a session's own
// mail command it lets run.
const MailAllowed = "sot-comm: this session's own mail command, allowed by sotd's Claude Code plugin"

func (r Run) decide(verdict, reason string) {
	var a decision
	a.HookSpecificOutput.HookEventName = "PreToolUse"
	a.HookSpecificOutput.PermissionDecision = verdict
	a.HookSpecificOutput.PermissionDecisionReason = reason
	r.answer(a)
}

// PreTool is `sotd hook pretool`, the PreToolUse hook. Inside a subagent (the
// input carries agent_id) a Bash command that runs a comm verb is denied: a
// subagent shares its session's identity, so its sends and reads would be the
// session's. So is one the guard cannot read, which might, and every call of
// sot-comm's MCP tools. A session's own Bash
// is never refused. AskUserQuestion marks the
// session blocked on its question.
//
// With allowMail (the plugin's hook, `sotd hook pretool --allow-mail`) it
// also answers "allow" for the session's own mail commands, which spares them
// Claude Code's dialog as Install's permission rules do: a plugin cannot carry
// rules. It allows no more than the rules do: a sot-comm MCP tool, or a Bash
// command that is one mail command (mailCommand).
func PreTool(r Run, allowMail bool) int {
	in, err := r.read()
	if err != nil {
		r.note("sotd hook pretool: %v; the tool call was not judged", err)
		return ExitFailed
	}
	commTool := strings.HasPrefix(in.ToolName, mcpTools) || strings.HasPrefix(in.ToolName, pluginTools)
	switch {
	case in.AgentID != "" && commTool:
		r.deny(SubagentRefusal) // sot-comm's MCP tools, installed or the plugin's, are the mail verbs
		return ExitOK
	case commTool:
		if allowMail {
			r.decide("allow", MailAllowed)
		}
		return ExitOK
	case in.ToolName == "Bash":
		if in.AgentID == "" {
			if allowMail && mailCommand(in.ToolInput) {
				r.decide("allow", MailAllowed)
			}
			return ExitOK
		}
		runs, err := bashRunsComm(in.ToolInput)
		switch {
		case err != nil:
			r.deny(fmt.Sprintf(unreadableRefusal, err))
		case runs:
			r.deny(SubagentRefusal)
		}
		return ExitOK
	case in.ToolName == "AskUserQuestion":
		if r.onSharedServer("pretool", false) {
			return ExitOK
		}
		return r.status(registry.VerbBlocked, questions(in.ToolInput))
	}
	return ExitOK
}

// mailCommand reports whether a Bash call's command line is one mail command,
// as a permission rule of Install's would allow it: one simple command, every
// word known before it runs, no redirection, run as `sotd <verb>` or as the
// verb's shim, by the bare name the rules match, the verb one of mailVerbs.
func mailCommand(toolInput json.RawMessage) bool {
	var ti struct {
		Command string `json:"command"`
	}
	json.Unmarshal(toolInput, &ti)
	ws, ok := simpleCommand(ti.Command)
	if !ok || len(ws) == 0 {
		return false
	}
	verb := ""
	if ws[0] == "sotd" && len(ws) > 1 {
		verb = ws[1]
	}
	for _, s := range shimVerbs {
		if ws[0] == s.name {
			verb = s.verb
		}
	}
	return slices.Contains(mailVerbs, verb)
}

// bashRunsComm reads a Bash call's command: a command line (Claude Code), or the
// argv of one (a form a Codex shell call may take), whose words are taken as the
// shell would have split them.
func bashRunsComm(toolInput json.RawMessage) (bool, error) {
	var ti struct {
		Command json.RawMessage `json:"command"`
	}
	json.Unmarshal(toolInput, &ti)
	var line string
	if json.Unmarshal(ti.Command, &line) == nil {
		return RunsCommVerb(line)
	}
	var argv []string
	if json.Unmarshal(ti.Command, &argv) != nil {
		return false, nil
	}
	ws := make([]word, len(argv))
	for i, a := range argv {
		ws[i] = word{name: a}
	}
	return commandRunsComm(ws, nil, 0)
}

// questions is the text of an AskUserQuestion call: its questions, one after
// another, or "" when it has none; cut to a status text's bound
// (registry.MaxText), which would refuse a longer one: the agent wrote the
// questions for the person, and blocked must be recorded whatever their length.
func questions(toolInput json.RawMessage) string {
	type q struct {
		Question string `json:"question"`
	}
	var ti struct {
		q
		Questions []q `json:"questions"`
	}
	json.Unmarshal(toolInput, &ti)
	var qs []string
	for _, x := range append(ti.Questions, ti.q) {
		if s := strings.TrimSpace(x.Question); s != "" {
			qs = append(qs, s)
		}
	}
	return registry.Cut(strings.Join(qs, " / "), registry.MaxText)
}

// Permission is `sotd hook permission`, Codex's PermissionRequest hook: the
// agent shows a dialog that waits on a person. It answers nothing, so Codex's
// own approval goes on as it would. (A Claude Code session sends no dialog
// event: the daemon reads its screen.)
func Permission(r Run) int {
	in, err := r.read()
	if err != nil {
		r.note("sotd hook permission: %v; nothing was stamped", err)
		return ExitFailed
	}
	if r.onSharedServer("permission", false) {
		return ExitOK
	}
	var ti struct {
		Description string `json:"description"`
		Command     string `json:"command"`
	}
	json.Unmarshal(in.ToolInput, &ti)
	tool := in.ToolName
	if tool == "" {
		tool = "a tool"
	}
	text := "Allow " + tool + "?"
	if d := strings.Join(strings.Fields(firstOf(ti.Description, ti.Command)), " "); d != "" {
		text += " " + clip(d, dialogMax)
	}
	return r.status(registry.VerbDialog, text)
}

// dialogMax keeps a dialog's summary to a glance.
const dialogMax = 120

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// beatFresh is how old a heartbeat may be and not be written again: status_at
// ages a "working" row in minutes, so a tool call seconds after the last stamp
// need not cost a registry write.
const beatFresh = 30 * time.Second

// PostTool is `sotd hook posttool`, the PostToolUse heartbeat: it re-stamps
// status_at and last_seen with the heartbeat's one try at the registry lock, and
// says nothing, whatever happens. With codex, it is also Codex's "resumed": the
// dialog a PermissionRequest stamped is gone once a tool has run. A subagent's
// tool (the input carries agent_id) stamps nothing: subagents run tools while
// their session waits on a person, and the session's own turn is what its row
// tells. Nor does an input it cannot read, which may be a subagent's.
//
// A Claude Code session's heartbeat reads its row at most about twice each
// beatFresh: the stamps it last read or wrote are kept in its beat record
// (state.lastBeat), and while they are fresh the row's are too, as no writer
// moves a stamp back, so a tool call then reads no registry (of any size) to
// learn that nothing is to be written. Codex's reads its row at every call,
// for the dialog it clears, which other writers set.
func PostTool(r Run, codex bool) int {
	in, err := r.read()
	r.drain()
	if err != nil || in.AgentID != "" || r.Session == nil || r.onSharedServer("posttool", false) {
		return ExitOK
	}
	me, err := r.handle()
	if err != nil || me == "" {
		return ExitOK
	}
	now, row := r.Session.Now(), r.Session.Row
	st, kept := newState(r.Session.Home, in.SessionID), !codex && in.SessionID != ""
	if kept {
		if b, ok := st.lastBeat(); ok && b.Handle == me && b.Row == row && b.fresh(now) {
			return ExitOK
		}
	}
	me, e, err := r.rowOf(me)
	if err != nil || me == "" {
		return ExitOK
	}
	if (!codex || e.Dialog == "") && fresh(e.StatusAt, now) && fresh(e.LastSeen, now) {
		if kept {
			st.noteBeat(beat{Handle: me, Row: row, StatusAt: e.StatusAt, LastSeen: e.LastSeen})
		}
		return ExitOK
	}
	err = registry.Mark(r.Session.Home, me, registry.BeatWait, func(e *registry.Entry) error {
		if e.BoundElsewhere(row) {
			return errForeign
		}
		if codex {
			return registry.Apply(e, registry.Status{Verb: registry.VerbResumed}, now)
		}
		e.StatusAt = registry.Stamp(now)
		e.LastSeen = e.StatusAt
		return nil
	})
	if err == nil && kept {
		st.noteBeat(beat{Handle: me, Row: row, StatusAt: registry.Stamp(now), LastSeen: registry.Stamp(now)})
	}
	return ExitOK
}

// beat is a heartbeat's record of its session's row as its last read or write
// left it: whose row, and the two stamps the heartbeat keeps fresh.
type beat struct {
	Handle   string `json:"handle"`
	Row      string `json:"row"`
	StatusAt string `json:"status_at"`
	LastSeen string `json:"last_seen"`
}

// fresh reports whether both stamps are, at now, too young to be written again.
func (b beat) fresh(now time.Time) bool { return fresh(b.StatusAt, now) && fresh(b.LastSeen, now) }

func fresh(stamp string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return false
	}
	age := now.Sub(t)
	return age >= 0 && age < beatFresh
}
