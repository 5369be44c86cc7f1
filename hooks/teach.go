package hooks

import (
	"bytes"
	"fmt"
	"path/filepath"
)

// An agent learns what sot-comm is from what `sotd hooks install` writes beside
// its settings: Claude Code a skill (skills/sot-comm/SKILL.md, loaded when its
// description matches the work), Codex a section of its global AGENTS.md, which
// it reads at every session's start. Both say the same thing, guide below,
// written from the protocol; every command it names is a verb of this sotd.

// guide is the instructions, one text for both agents.
const guide = `## sot-comm: mail between agent sessions

Every session has a handle, its address: the project folder's name and the
box's, like ` + "`myrepo-laptop`" + `. ` + "`sotd list`" + ` shows every handle, live or stale, with
` + "`(me)`" + ` on yours. Mail to you is kept in a durable inbox until you read it.

Read mail
- ` + "`sotd poll`" + ` (the same as ` + "`comm-poll.sh`" + `) shows the new lines, one
  ` + "`@sender (time, id ID): text`" + ` each, and marks them read. Exit 75: the inbox
  was being written; run it again. ` + "`re ID`" + ` in a line's header means it
  answers the line whose id is ID.
- ` + "`sotd log`" + ` shows your conversation history, read lines included, oldest
  first; ` + "`sotd log @handle`" + ` shows one conversation, and
  ` + "`sotd log --grep 'text'`" + ` searches the messages (` + "`--since 2h`" + ` keeps the
  recent part).
- A prompt that says ` + "`[sot-comm] you have mail: run comm-poll.sh`" + `, or a turn
  end held for unread mail, means: run it, then act on what it shows.

Send
- ` + "`sotd send @handle 'text'`" + ` answers ` + "`filed -> @handle`" + ` (exit 0) or
  ` + "`FAILED -> @handle: reason`" + ` (exit 1: nothing was sent; the reason says why).
- ` + "`sotd send @handle --file PATH`" + ` sends a file's bytes (` + "`--file -`" + ` reads
  stdin): use it for long or multi-line text.
- ` + "`sotd send @handle --reply-to ID 'text'`" + ` answers one line: ID is what poll
  showed after ` + "`id`" + ` on it. Reply so whenever you answer a line.
- ` + "`sotd send --broadcast 'text'`" + ` reaches every other live session; use it rarely.
- ` + "`sotd sent`" + ` shows what you sent and whether each line has been read.

When to send: when you finish a task that came by mail (tell its sender the
result), and when a question is for a named peer (ask ` + "`@that-handle`" + `, not the
user). One message per finished thing, no chatter. Then end your turn: a reply
wakes you.

Declare your status, which ` + "`sotd list`" + ` shows the others:
` + "`sotd status working \"what\"`" + `, ` + "`sotd status waiting \"for what\"`" + `,
` + "`sotd status blocked \"question\"`" + `, ` + "`sotd status done \"result\"`" + `,
` + "`sotd status idle`" + `. ` + "`sotd status`" + ` alone shows yours and your unread count.

A subagent never sends or reads mail: it reports to its parent session, which
sends. If sotd says this session has not joined, run ` + "`sotd join`" + ` once. When the
` + "`sot-comm`" + ` MCP server is connected, its tools (send, poll, log, list, status,
sent) do the same as these commands; send's reply_to is --reply-to.
`

// Guide is the instructions text both agents get.
func Guide() string { return guide }

// skillName is the skill's name and folder; Claude Code requires the two to match.
const skillName = "sot-comm"

// skillHead is the YAML front matter Claude Code reads a skill by: its name, and
// the description it matches the work against to load the skill.
const skillHead = "---\nname: " + skillName + "\ndescription: Mail between coding-agent sessions (sot-comm, sotd). Use when a prompt says \"[sot-comm] you have mail\", when a task that came by mail is finished, or to ask another session (@handle) a question.\n---\n\n"

// skill is SKILL.md's bytes.
func skill() []byte { return []byte(skillHead + guide) }

// The AGENTS.md section sits between these lines, so an install finds and
// replaces it and an uninstall removes it, leaving the rest of the file alone.
const (
	beginMark = "<!-- sot-comm: begin (written by sotd hooks install; sotd hooks uninstall --codex removes it) -->\n"
	endMark   = "<!-- sot-comm: end -->\n"
)

// InstructionsPath is the file that teaches the agent sot-comm: beside the
// agent's settings, in the same config folder, so $CLAUDE_CONFIG_DIR and
// $CODEX_HOME move both. Claude Code: skills/sot-comm/SKILL.md; Codex: AGENTS.md,
// its global instructions.
func InstructionsPath(a Agent, settings string) string {
	if a == Codex {
		return filepath.Join(filepath.Dir(settings), "AGENTS.md")
	}
	return filepath.Join(filepath.Dir(settings), "skills", skillName, "SKILL.md")
}

// taught is the instructions file with sotd's text in place. A skill file is
// sotd's whole; an AGENTS.md keeps everything outside the markers, and gets the
// section appended when it has none.
func taught(a Agent, old []byte, path string) ([]byte, error) {
	if a == Claude {
		return skill(), nil
	}
	section := []byte(beginMark + guide + endMark)
	start, end, err := findSection(old, path)
	if err != nil {
		return nil, err
	}
	if start >= 0 {
		return concat(old[:start], section, old[end:]), nil
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = concat(old, []byte("\n"))
	}
	return concat(old, section), nil
}

// untaught is the instructions file with sotd's text gone, nil when nothing of
// the file is left (the file is then removed), and whether it held any. A skill
// is sotd's when its front matter names it.
func untaught(a Agent, old []byte, path string) ([]byte, bool, error) {
	if a == Claude {
		if !bytes.HasPrefix(old, []byte("---\nname: "+skillName+"\n")) {
			return old, false, nil
		}
		return nil, true, nil
	}
	start, end, err := findSection(old, path)
	if err != nil || start < 0 {
		return old, false, err
	}
	rest := concat(old[:start], old[end:])
	if len(rest) == 0 {
		return nil, true, nil
	}
	return rest, true, nil
}

// findSection is where sotd's section starts and ends in an AGENTS.md, the
// markers' lines included, or -1 when it has none.
func findSection(doc []byte, path string) (start, end int, err error) {
	b := bytes.Index(doc, []byte(beginMark))
	e := bytes.Index(doc, []byte(endMark))
	switch {
	case b < 0 && e < 0:
		return -1, -1, nil
	case b < 0 || e < b || bytes.Count(doc, []byte(beginMark)) > 1:
		return 0, 0, fmt.Errorf("%s holds a broken sot-comm section (one begin line, then one end line, expected); fix it by hand", path)
	}
	return b, e + len(endMark), nil
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
