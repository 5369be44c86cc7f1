// Package hooks is sotd's side of the coding agents' hooks: the commands Claude
// Code and Codex run at a turn's edges (`sotd hook stop|prompt|pretool|posttool|
// permission`), the doorbells of a plain session (`sotd hook wait`, Claude
// Code's background hook; `sotd hook wait --codex`, a Codex session's detached
// waiter), and `sotd hooks install`, which writes them into the agent's
// settings. Claude Code also takes them as sotd's plugin (plugins/sot-comm in
// the repository, rendered by PluginFiles), whose SessionStart hook
// `sotd hook watch` names the re-arm file its FileChanged matcher cannot.
//
// The hooks carry the protocol's waking and work-state to a session that is busy:
// a turn does not end while unread mail waits (Stop, once per batch of mail), a
// session's row says what it is doing (prompt, blocked, dialog, the heartbeat),
// and a subagent, which shares its session's identity, neither sends nor reads
// mail (the PreToolUse guard) nor stamps its session's row (its prompt and
// heartbeat hooks do nothing).
//
// # What sotd reads and writes of the agents' hook JSON
//
// Both agents send one JSON object on stdin and read the hook's stdout and exit
// code. sotd relies on these input fields, which Claude Code and Codex name alike:
//
//	session_id         every event; keys this session's files in state/
//	stop_hook_active   Stop: true when this stop follows a Stop hook's block in
//	                   the same turn (the continuation a block started)
//	agent_id           present only when the hook fires inside a subagent
//	tool_name          PreToolUse, PostToolUse, PermissionRequest
//	tool_input         Bash: .command, a command line (or an argv);
//	                   AskUserQuestion: .questions[].question (or .question);
//	                   a Codex PermissionRequest: .description, its
//	                   justification, else .command
//	prompt             UserPromptSubmit: the text submitted
//
// and answers with these, both agents reading them the same way:
//
//	{"decision":"block","reason":R}   Stop: the turn goes on; R is the agent's
//	                                  next instruction
//	{"systemMessage":M}               any event: M is shown to the person
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse",
//	  "permissionDecision":"deny","permissionDecisionReason":R}}
//	                                  PreToolUse: the tool does not run; R is
//	                                  shown to the agent
//
// Every hook exits 0, or 1 when it could not do its job (a non-blocking error
// the agent shows and moves past). None exits 2, which blocks the prompt or the
// tool: a broken comm home must never stop an agent's work. The one exception
// is `sotd hook wait`, Claude Code's asyncRewake waiter, which runs in the
// background and exits 2 only to wake the model for unread mail (see Wait).
//
// # The rewake waiter (Claude Code 2.1.197 and later)
//
// A hook with "asyncRewake": true runs in the background; when it exits 2
// Claude Code queues what it printed (stderr, else stdout) after the prefix
// `Stop hook blocking error from command "<event>":` as the model's next input,
// and starts a turn at once when the session is idle. Any other exit, and the
// kill at the hook's "timeout" (in seconds; exit 143), wakes nothing. The
// timeout is the only bound on its life, so sotd sets it above the waiter's
// own (WaitFor). A FileChanged hook runs the same way when a file its matcher
// names changes: the waiter's re-arm.
//
// Claude Code obeys at most CLAUDE_CODE_STOP_HOOK_BLOCK_CAP (default 8) Stop-hook
// blocks in a row, counted from the turn's first Stop and again after a tool
// call (2.1.197 and 2.1.332): the next block is overridden, the turn ends with a
// warning, and the model never sees the block's reason. The Stop hook counts its
// blocks since the turn's first Stop (stop-blocks-<key>) and, at the cap, gives
// no block and leaves the batch to the waiter (atBlockCap).
//
// # The Codex waiter (Codex 0.171)
//
// Codex runs every hook to its end before it goes on and has no background
// hook, but `codex queue --thread <id> --message <text>` puts a message in a
// session's queue, which a `codex --no-daemon` session takes as its next prompt
// once idle (in 4-10 s in 0.171), leaving a draft in the composer as it is.
// Its SessionStart and Stop hooks run `sotd hook wait --codex`, which starts
// `sotd hook wait --codex --detached` in a process session of its own and
// returns; that waiter takes the session's identity from the agent it was
// given (its own ancestry no longer reaches it), waits as Claude Code's does,
// and rings with `codex queue`. Codex starts a session's thread, and so its
// SessionStart hooks, with its first prompt: a session that has never had a
// turn has no thread to queue to, and no waiter.
//
// # Codex's shared app-server
//
// An interactive codex started without --no-daemon hands its session to a
// shared `codex app-server --managed-daemon` in a process session of its own,
// and the hooks run as that server's children: outside the session's row, with
// the environment of whichever session started the server, and under pid 1
// once that session has ended. Such a hook cannot tell whose it is, so every
// hook that acts as the session's handle first looks for the server among its
// ancestors and, finding it, does nothing but say so: in a systemMessage at the
// turn's edges (prompt, stop) and on stderr always. The subagent guard, which
// judges the tool input alone, still denies.
//
// # State
//
// The Stop hook keeps three files per session in the comm home's state/ folder,
// keyed by the session id reduced to file-name bytes:
//
//	mail-<key>.tick                 `<count> <crc>-<len>` of the last unread line
//	                                a block was given for (the cursor's form), so
//	                                one batch holds one turn end only. Nothing
//	                                removes it.
//	lock-fault-<handle>.<key>.tick  the inbox lock fault already told to the
//	                                person at a turn end with no mail to block on;
//	                                removed when a turn end reads without a fault
//	stop-feedback-<key>.jsonl       the blocks given while a tool fault lasts (an
//	                                unreadable registry, self file or inbox), one
//	                                {"at","reason"} a line: the fault blocks once,
//	                                then only prefixes later blocks; removed at
//	                                the first turn end with no fault
//
// The mail tick is also the rewake waiter's record of the batch announced: a
// Stop hook and a waiter read and write it under mail-<key>.tick.lock, so one
// batch is announced once between them. The waiter adds:
//
//	wait-<key>                      the token of the session's current waiter;
//	                                an older waiter that finds another gives way
//	remind-<key>.tick               the batch its one reminder was given for
//	sotd-rewake.arm                 touched at a waiter's end of life; every
//	                                Claude Code session's FileChanged hook on it
//	                                starts that session's next waiter
//	codex-wait-<key>.log            a Codex waiter's notes (a failed queue),
//	                                started anew by each waiter
//	stop-blocks-<key>               the Stop hook's blocks since the turn's
//	                                first Stop, for Claude Code's cap
//
// and a Claude Code session's heartbeat (PostTool):
//
//	beat-<key>                      {"handle","row","status_at","last_seen"}: its
//	                                row's stamps as its last read or write left
//	                                them; while they are fresh a tool call reads
//	                                no registry. Nothing removes it.
package hooks
