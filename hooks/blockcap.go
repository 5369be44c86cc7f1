package hooks

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/ancestry"
)

// EnvStopBlockCap is Claude Code's cap on the Stop-hook blocks in a row that
// it obeys: past it (StopBlockCap unless this sets another; 0 or less, none)
// it overrides the block, ends the turn with a warning and never gives the
// model the block's reason (seen in 2.1.197 and 2.1.332). The blocks count
// from the turn's first Stop and start again after a tool call.
const EnvStopBlockCap = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"

// StopBlockCap is Claude Code's default cap.
const StopBlockCap = 8

// stopBlockCap is the cap of the Claude Code this hook runs under, 0 for none:
// $CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, read as Claude Code reads it (a number
// that does not parse is the default).
func stopBlockCap() int {
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(EnvStopBlockCap)))
	switch {
	case err != nil:
		return StopBlockCap
	case n <= 0:
		return 0
	}
	return n
}

// blocksFile counts the blocks the Stop hook gave since the turn's first Stop:
// more than Claude Code counts, as sotd cannot see the tool calls that start
// Claude Code's count again, so the hook gives way no later than Claude Code
// would override it.
func (st state) blocksFile() string { return filepath.Join(st.dir, "stop-blocks-"+st.key) }

// blocks is the count; a missing or unreadable file is none.
func (st state) blocks() int {
	b, err := st.h.ReadFile(st.blocksFile(), maxState)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func (st state) setBlocks(n int) error {
	return st.write(st.blocksFile(), []byte(strconv.Itoa(n)+"\n"))
}

// atBlockCap reports whether a block now could be one Claude Code overrides:
// the hook runs under Claude Code, inside a continuation that already has cap
// blocks. Then the mail is left unannounced, so the doorbell (sotd hook wait,
// or a row's typed wake) announces it once the turn has ended, in a fresh turn
// whose first Stop counts from zero: a block Claude Code overrode would record
// the batch announced while the model never saw it.
func (c *stopCheck) atBlockCap() bool {
	if !c.in.StopHookActive {
		return false
	}
	p, ok := c.agent()
	if !ok || ancestry.AgentOf(p.Argv) != ancestry.Claude {
		return false // Codex has no such cap
	}
	limit := stopBlockCap()
	return limit > 0 && c.st.blocks() >= limit
}

// countBlock records one more block in this continuation; the turn's first Stop
// starts the count again (see Stop).
func (c *stopCheck) countBlock(block bool) {
	var err error
	switch {
	case block && c.in.StopHookActive:
		err = c.st.setBlocks(c.st.blocks() + 1)
	case block:
		err = c.st.setBlocks(1)
	case !c.in.StopHookActive:
		err = c.st.clear(c.st.blocksFile())
	}
	if err != nil {
		c.note("sotd hook stop: the count of blocks in this turn was not recorded: %v", err)
	}
}
