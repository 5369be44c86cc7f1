package main

import (
	"io"
	"slices"
	"strings"
)

// verb is one subcommand: its name, its one-line synopsis, its help (usage
// lines first: completion reads them) and what runs it.
type verb struct {
	name     string
	synopsis string
	help     string
	run      func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// group is a heading of the top-level help and the verbs under it.
type group struct {
	title string
	verbs []verb
}

// verbs is every verb, grouped as the top-level help shows them. It is set in
// init because the verbs' bodies reach it (a usage error prints the verb's
// help, completion reads every verb), and Go refuses a package variable whose
// initializer refers back to itself.
var verbs []group

func init() {
	verbs = []group{
		{"Mail between sessions", []verb{
			{"join", "join the registry under this session's handle", `
usage: sotd join [--name N] [--expertise "a, b"] [--repin]

The handle is derived from the project folder and this box's name unless --name
or $SOT_COMM_NAME gives one. Exit 3 when the self slot names another project
(--repin re-pins it) or a row holds the named handle.`, runJoin},
			{"send", "file a message into another session's inbox", `
usage: sotd send @handle [--reply-to MSGID] 'message'
       sotd send @handle [--reply-to MSGID] --file PATH|-
       sotd send --broadcast [--reply-to MSGID] 'message'

Prints "filed -> @handle" (exit 0) or "FAILED -> @handle: <reason>" (exit 1).
The recipient is only the first positional @arg; the message may itself begin
with @. --file reads the body whole from PATH, or stdin for -; a body is at
most 512 KiB. --reply-to records on the line which line it answers
(in_reply_to): the short id poll shows ("id S9T0VWXY"), which must name
exactly one line of this session's inbox, or a full 26-character id (sotd log
--json shows every id), taken as given. An id that names no line, or more than
one, is refused and nothing is sent.`, runSend},
			{"poll", "show new mail and move the read cursor past it", `
usage: sotd poll [--json]

Shows the inbox lines past this session's cursor, "@sender (time, id SHORT):
text" each, then advances it; SHORT is the line's short id, which sotd send
--reply-to takes, and "re SHORT" marks a line that answers another. --json
prints them as one JSON array, each line as filed, and notes on stderr.
Exit 75 when the inbox is being written: nothing was read; try again.`, runPoll},
			{"log", "show this session's conversation history, read lines included", `
usage: sotd log [@handle] [--since AGE|TIME] [--grep TEXT] [--json]

Shows the lines of this session's inbox and the lines it sent that an inbox in
this home holds, oldest first, read or not: "@from -> @to (time, id SHORT,
read): text", escaped as poll shows it. @handle keeps the conversation with
that handle alone; --since keeps the lines filed since an age (90m, 12h, 30d)
or a time (2026-05-29T18:04:00Z, 2026-05-29); --grep keeps the lines whose
message holds TEXT, in any case. --json prints one JSON array, each line's
fields with its inbox, short_id and read, and notes on stderr. A handle this
home does not list has its mail filed on another box, which log does not read:
a note names it (the @handle asked for, or one that wrote to this session),
and sotd sent asks that box for its last lines. Nothing is marked read.`, runLog},
			{"sent", "show the lines this session sent and whether each was read", `
usage: sotd sent [@handle] [--json]

Lists the last 20 lines this session sent into each inbox (or only @handle's),
with "read" once the receiver's cursor is past the line. This box's daemon
asks every linked box too (a guest its hub, the hub the other boxes), and a
box column appears when more than one box holds the lines; a box that gave no
answer in time is named on a note line. With no daemon answering, only this
home's inboxes are read, and stderr says so. A handle nobody knows is refused
as unknown (exit 1).`, runSent},
			{"list", "list every box's live sessions", `
usage: sotd list [--json] [--all]

Every live agent with its handle, a (me) marker, its box, its work-state and
summary, and its expertise: a table with a header, or --json one array with
the same fields. A registry keeps each handle until it is removed (sotd leave
--stale-for AGE), so the stale ones are counted, not listed: a closing line
says how many (on stderr with --json). --all lists every entry, live or stale.`, runList},
			{"status", "declare or record this session's work-state", `
usage: sotd status [--json] [<verb> ["text"]]

Events: prompt, stop, dialog "T", resumed, join (a silent no-op in a session
that has not joined). Declarations: working ["note"], idle ["note"],
blocked "question", waiting "for what", done ["note"] (exit 1 when not joined);
done with no note clears the note. The state is derived from every fact, so
a declaration the state does not follow (working outside a turn reads as
idle) is recorded and one line says what the state is and why.
With no verb it prints this session's work-state and unread count; --json
prints it as one object (after the write, when a verb is given).`, runStatus},
			{"leave", "remove this session (or an orphan) from the registry", `
usage: sotd leave [--name HANDLE | --stale-for AGE]

Removes this session's entry and self file, or with --name an orphan entry
(registry only). A handle a row holds is refused.
--stale-for AGE (30d, 12h, 90m) removes, in one write, every entry stale for at
least AGE that no row holds, and prints each one. A handle is never reused by
accident while its entry stays (the protocol's rule), so stale entries stay
until a person removes them this way; nothing removes them by itself.`, runLeave},
		}},
		{"Rows (agents the daemon runs)", []verb{
			{"spawn", "run an agent as a row of this box's daemon", `
usage: sotd spawn [--label L] [--handle H] [--agent claude|codex|other] [--cwd DIR] [--env K=V|K]... -- CMD ARGS...

Starts CMD in a row of the daemon (a tmux session on its private socket, or a
built-in PTY) and prints the row's id. The label defaults to the folder's
name, the folder to the current one, the agent to the one CMD names (claude
or codex, also as a node script), else other; the wake types only into claude
rows. With --handle the row declares and joins that handle: the
registry binds it to the row, a row that held it loses it, and the agent runs
with SOT_COMM_NAME and SOT_WORKSPACE_ID set, so mail to it files while the row
runs. Each --env K=V (repeatable) adds K to the row's environment, over the
daemon's (HOME, an API setting); K is a variable name, and the two identity
variables are not taken. --env K alone passes this shell's own K: give a
secret (an API key) so, since every account on the box can read a command
line. The row's environment is never on the tmux server's command line nor in
the spec it keeps.`, runSpawn},
			{"run", "start an agent as a row here and put this terminal on it", `
usage: sotd run -- AGENT [ARGS...]

Starts AGENT as a row of this box's daemon in the current folder and attaches
this terminal to it, so an agent started as "sotd run -- claude" rather than
"claude" is a row, which the daemon wakes when mail comes while it is idle.
The row holds the handle "sotd join" would derive here ($SOT_COMM_NAME when it
is set), runs with this shell's environment (but for TERM and tmux's own
variables) on a terminal of this one's size, and is the agent AGENT names
(claude, codex, else other). Detaching (C-b d on tmux, Ctrl-] on the PTY)
leaves the row running and prints the "sotd attach ID" that comes back. When
AGENT exits the row is removed and sotd run exits with AGENT's exit code (1
when a signal ended it). With no terminal on stdin, or no daemon (start one
with sotd serve), it starts nothing and exits 1; exit 3 when a row holds
$SOT_COMM_NAME or every derived handle is held.`, runRun},
			{"despawn", "end a row and remove it", `
usage: sotd despawn ID

Ends the row's process group (SIGTERM, then SIGKILL) and removes the row; the
handle it held is free again.`, runDespawn},
			{"attach", "attach this terminal to a row", `
usage: sotd attach ID

Puts this terminal on the row: a tmux row through tmux on the rows' private
socket (C-b d detaches), a PTY row through the daemon (Ctrl-] detaches).
Detaching leaves the row running.`, runAttach},
			{"rows", "list the daemon's rows, or save one's screen", `
usage: sotd rows [--json]
       sotd rows screen ID [--out FILE]

Lists every row with its phase (Starting, Ready, Ending, Stopped, with how a
Stopped row's program ended) and the handle the registry binds to it. "rows screen" prints a live row's screen in the
screen text format (or saves it to FILE), which sotd wake check reads.`, runRows},
		}},
		{"The daemon and this box", []verb{
			{"serve", "run the daemon in the foreground", `
usage: sotd serve [--http ADDR]

Runs the daemon on $SOT_COMM_HOME (default ~/.sot-comm). With no hosts.toml it is
a standalone hub, and says where it looked; a hosts.toml that is there but
cannot be read or has an error stops it (exit 1) with the file and line. It listens on run/<host>/sotd.sock in the home ($SOT_SOCKET
overrides) and stops cleanly on SIGTERM or SIGINT. The status page listens on
the loopback address it last did, else a port chosen from the home's path
(--http ADDR picks one, --http off serves none); "sotd url" prints its address.`, runServe},
			{"service", "install sotd serve as this OS's service", `
usage: sotd service install [--dry-run]
       sotd service uninstall [--dry-run]
       sotd service print [--os linux|darwin|windows [--bin PATH]]

install writes the service file that runs "sotd serve" by this binary's full
path, with $SOT_COMM_HOME, $SOT_SOCKET, $SOT_SELF_HOST, $SOT_HOSTS and
$XDG_CONFIG_HOME when they are set, and starts it:
  Linux    ~/.config/systemd/user/sotd.service, then systemctl --user enable --now sotd
           (printed to run by hand where systemctl is not on PATH)
  macOS    ~/Library/LaunchAgents/com.sotcomm.sotd.plist, then launchctl bootstrap
  Windows  the sotd service, registered with the service manager to run as you;
           it reads your account's password on stdin (run it elevated)
uninstall stops the service and removes it. --dry-run prints what would be
written and run and changes nothing. print shows the file for this OS, or for
--os with --bin naming sotd's full path there; for Windows, the sc.exe commands
install's registration amounts to.`, runService},
			{"url", "print the status page's URL with its token", `
usage: sotd url

Prints the address of this box's status page with the token every request
needs. Exit 1 when the daemon is not serving it: start it with "sotd serve".`, runURL},
			{"doctor", "check this box's comm home and say how to fix what is wrong", `
usage: sotd doctor [--json]

Checks, each ok, warn or fail with the sentence that fixes it: the home's
modes (0700 folders, 0600 files), registry.json, the registry lock's holder,
the inbox-lock-manager record against this box's manager, hosts.toml and its
pins, the daemon's answer on this box's socket, the links it should hold, the
tools rows need, the clock, and the skew against each linked box's clock as
measured over its link. It changes nothing. Exit 0 when no check fails, else 1; --json prints
{"healthy", "checks": [{"name", "level", "detail", "fix"}]}.`, runDoctor},
			{"id", "print this box's name and key fingerprint", `
usage: sotd id

Prints this box's name and the fingerprint of its key, making the key at the
first run. The fingerprint is the last field of the last line, exactly as
hosts.toml's key = "..." takes it on every other box.`, runID},
			{"lock-clear", "clear a registry lock whose holder this box proves dead", `
usage: sotd lock-clear

Clears .registry.lock only when its holder is proved dead from this box; a
holder that may be alive is never forced, and the refusal names the recovery.`, runLockClear},
			{"lock-manager", "replace the folder's inbox-lock-manager record", `
usage: sotd lock-manager reset

Replaces inbox-lock-manager with this box's own inbox lock manager. It runs only
on the folder's hub, and only while no daemon runs on the folder (on any box
that shares it): every daemon holds run/daemons.lock shared, and the reset takes
it exclusively without waiting. Use it when the hub logs that another machine
wrote the record.`, runLockManager},
			{"version", "print sotd's version, Go version, OS and protocol", `
usage: sotd version

Prints the module version and the VCS revision it was built from ("devel" for
a build with neither), the Go version, the OS and architecture, and the
sot-comm protocol version it speaks.`, runVersion},
		}},
		{"Agents and shells", []verb{
			{"hook", "answer a coding agent's hook (Claude Code, Codex)", `
usage: sotd hook stop|prompt|pretool [--allow-mail]|posttool [--codex]|permission|wait|watch

Reads the agent's hook JSON on stdin and answers on stdout as the agent expects.
  stop        Stop: holds the turn end with a block while unread mail waits, once
              per batch; stamps stop_at as it starts and "status stop" when the
              turn may end. A busy inbox is told, never held on.
  prompt      UserPromptSubmit: "status prompt user" (machine for the wake's notice);
              a subagent's (agent_id) stamps nothing.
  pretool     PreToolUse: AskUserQuestion marks the session blocked; inside a
              subagent (agent_id), a Bash command that runs a comm verb is denied,
              and so is one that cannot be parsed as bash to tell.
              --allow-mail (sotd's Claude Code plugin, which can carry no
              permission rules) allows the session's own mail commands, as
              the rules "sotd hooks install" adds would.
  posttool    PostToolUse: the heartbeat, re-stamping status_at and last_seen with
              one try at the registry lock, silent. --codex also clears the dialog
              a Codex PermissionRequest set ("resumed"). A subagent's stamps nothing.
  permission  Codex's PermissionRequest: "status dialog" with what it asks.
  wait        Claude Code's background doorbell (an asyncRewake hook at the
              session's start, each turn end and the re-arm file's change): waits
              up to an hour for unread mail in a batch not yet announced, then
              prints the fixed notice and exits 2, which wakes the idle model.
              Ends quietly when the session leaves, its agent exits or a newer
              waiter takes over; at its hour's end it re-arms the next waiter.
  watch       SessionStart, in sotd's Claude Code plugin: names the comm home's
              re-arm file for Claude Code to watch (an install's FileChanged
              matcher names it itself).
Exit 0, or 1 when the hook could not do its job; never 2 (which would block the
agent's prompt or tool) but wait's wake. "sotd hooks install" writes these into
an agent's settings; sotd's Claude Code plugin brings them too.`, runHook},
			{"hooks", "install sotd's hooks and instructions into an agent's settings", `
usage: sotd hooks install [--claude|--codex [--settings PATH]] [--no-permissions] [--no-trust]
       sotd hooks uninstall --claude|--codex [--settings PATH]

install with no agent named installs for each agent whose program (claude,
codex) is on PATH, and says which it found and which not; --claude or --codex
installs for that one alone. It adds sotd's hooks to Claude Code's
settings.json ($CLAUDE_CONFIG_DIR or ~/.claude) or Codex's hooks.json
($CODEX_HOME or ~/.codex), merge-only: every other key and hook stays. Beside it, it writes what teaches the agent sot-comm:
Claude Code's skill, skills/sot-comm/SKILL.md, or a marked section of Codex's
AGENTS.md (the rest of that file stays). Running it twice changes nothing.
Before the first change a settings file or AGENTS.md is kept as
<file>.bak.<time>. Prints what changed.

So that a session runs sotd's mail verbs (sotd poll, send, sent, log, list,
status, join, leave) and their comm-*.sh shims with no approval, it adds rules: for
Claude Code allow rules in the settings' permissions.allow ("Bash(sotd poll *)",
and mcp__sot-comm for the MCP tools), for Codex rules/sot-comm.rules beside
hooks.json (prefix rules that run them outside its sandbox, where they fail).
--no-permissions leaves them out (and takes out those an earlier install added).

Codex runs a hook only once it is trusted as it is. Running the install is
consent to the hooks it writes, so for Codex it records that trust in
config.toml beside hooks.json ([hooks.state."<hooks.json>:<event>:<group>:<hook>"]
trusted_hash, as Codex's own "Trust all" does), for exactly those hooks as
written; a hook changed by hand after is not trusted ("sotd doctor" says so).
--no-trust leaves config.toml alone: trust them in Codex's /hooks yourself.

uninstall removes exactly those: sotd's hooks, rules and trust records (every other hook, rule
and key stays; a file unchanged since but for them gets its old bytes back from
the backup), the skill, or the AGENTS.md section.`, runHooks},
			{"mcp", "serve the mail verbs as MCP tools over stdio", `
usage: sotd mcp

An MCP server on stdin and stdout with the tools send (to or broadcast, text),
poll, list, status (verb, text) and sent (to). Each call runs the verb the CLI
runs, in this process's environment and folder, so it acts as the same handle
and answers with the same lines; a non-zero exit (FAILED, a busy inbox) is a
tool error with those lines. Register it with Claude Code by
  claude mcp add --scope user sot-comm -- sotd mcp
or by "sotd hooks install --claude", which adds it to ~/.claude.json.`, runMCP},
			{"wake", "run the free-prompt test on a saved screen", `
usage: sotd wake check SCREENFILE [--windows] [--codex]

Runs the wake's free-prompt test on a saved screen (text lines as the screen shows
them, then the trailer cols=C rows=R cursor=ROW,COL, and dim=… when cells are dim)
and prints "free", "holds the notice" (exit 0) or "not free: <reason>" (exit 1).
A file that is not a screen exits 2. --windows also accepts Claude Code's ">"
glyph and a bare glyph, as the wake does on Windows. --codex reads the screen as
a Codex row's: its composer "› " between blank rows, not Claude Code's box.`, runWake},
			{"completion", "print a shell completion script", `
usage: sotd completion bash|zsh

Prints a script that completes sotd's verbs, their subcommands and flags, the
@handle of send and sent from "sotd list --json", and a row's ID from
"sotd rows --json". Load it in the shell's rc file:
  bash  source <(sotd completion bash)
  zsh   source <(sotd completion zsh)   (after compinit)`, runCompletion},
		}},
		{"For the reference shell client", []verb{
			{"session-socket-path", "print this box's daemon socket path", `
usage: sotd session-socket-path [LABEL]

Prints the Unix socket this box's daemon listens on: $SOT_SOCKET, else
run/<host>/sotd.sock in the comm home. The reference's newer shell client
passes its session's label; every session on this box shares the one daemon,
so the path is the same for every label.`, runSessionSocketPath},
			{"stdio-bridge", "pipe stdin and stdout to a daemon's socket", `
usage: sotd stdio-bridge [--endpoint SOCKET|unix:SOCKET]

Connects to the daemon's Unix socket (default this box's, as
sotd session-socket-path prints it; the reference's newer client writes it
unix:SOCKET), copies stdin to it and its answers to
stdout. At the end of stdin it stops sending and copies answers until the daemon
closes; when the daemon closes first it stops. Exit 1, with the reason on
stderr, when nothing answers at the endpoint.`, runStdioBridge},
			{"topology", "answer questions about hosts.toml", `
usage: sotd topology relay-endpoint

relay-endpoint prints the hub's link address (its addr in hosts.toml). With no
hosts.toml this box is a standalone hub and there is no relay: it prints
nothing and exits 1, as it does when hosts.toml does not load.`, runTopology},
		}},
	}
}

// lookup finds a verb by name.
func lookup(name string) (verb, bool) {
	for _, g := range verbs {
		for _, v := range g.verbs {
			if v.name == name {
				return v, true
			}
		}
	}
	return verb{}, false
}

// byName is every verb in name order.
func byName() []verb {
	var all []verb
	for _, g := range verbs {
		all = append(all, g.verbs...)
	}
	slices.SortFunc(all, func(a, b verb) int { return strings.Compare(a.name, b.name) })
	return all
}
