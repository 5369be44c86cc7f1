package hooks

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/registry"
)

// ownClaude is the ancestry of a hook that a session's own Claude Code runs.
func ownClaude() ([]ancestry.Proc, error) {
	return []ancestry.Proc{
		{PID: 300, PPID: 200, Argv: []string{"sotd", "hook"}},
		{PID: 200, PPID: 1, Argv: []string{"claude"}},
	}, nil
}

// A burst of mail inside one continuation never meets Claude Code's cap on
// Stop-hook blocks in a row: the hook gives at most the cap's blocks, then
// leaves the next batch unannounced for the doorbell, which wakes the session
// with it once the turn has ended; the turn's next first Stop counts from zero.
// Codex has no such cap, and a cap of 0 is none.
func TestStopGivesWayAtClaudesBlockCap(t *testing.T) {
	tests := []struct {
		name   string
		env    string // $CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
		agent  func() ([]ancestry.Proc, error)
		blocks int // the blocks in a row before the hook gives way; -1 none
	}{
		{"Claude Code's default", "", ownClaude, StopBlockCap},
		{"a cap set by hand", "3", ownClaude, 3},
		{"a cap that does not parse is the default", "many", ownClaude, StopBlockCap},
		{"a cap of 0 is none", "0", ownClaude, -1},
		{"Codex has no cap", "3", ownCodex, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvStopBlockCap, tt.env)
			c := newClock()
			s := joined(t, c)
			stop := func(input string) string {
				t.Helper()
				var o, e bytes.Buffer
				if code := Stop(Run{In: strings.NewReader(input), Out: &o, Err: &e, Session: s, Ancestry: tt.agent}); code != ExitOK {
					t.Fatalf("stop exit %d: %s", code, e.String())
				}
				return o.String()
			}
			s.Status(registry.VerbPrompt, registry.FloorUser, true, false)
			rounds := StopBlockCap + 2
			for i := 1; i <= rounds; i++ {
				c.Add(time.Second)
				mail(t, s, "bob", "alice", fmt.Sprintf("line %d", i))
				input := stopActive
				if i == 1 {
					input = stopInput
				}
				out := stop(input)
				if tt.blocks >= 0 && i > tt.blocks {
					if out != "" {
						t.Fatalf("block %d past a cap of %d: answered %q, want the turn to end", i, tt.blocks, out)
					}
					if code, done := lookOnce(t, s); !done || code != ExitRewake {
						t.Fatalf("the doorbell after the cap: exit %d done %v, want it to wake the session with the batch the hook left", code, done)
					}
					break
				}
				if a := decode(t, out); a["decision"] != "block" {
					t.Fatalf("block %d (cap %d): answered %q, want a block", i, tt.blocks, out)
				}
			}
			// A new turn counts from zero: its first Stop holds for new mail.
			mail(t, s, "carol", "alice", "a new batch")
			if a := decode(t, stop(stopInput)); a["decision"] != "block" {
				t.Fatalf("a new turn's first Stop with new mail: %v, want a block", a)
			}
		})
	}
}

// lookOnce is one look of alice's rewake waiter, as Wait makes it.
func lookOnce(t *testing.T, s *client.Session) (code int, done bool) {
	t.Helper()
	var errs bytes.Buffer
	w := &waiter{Run: Run{Err: &errs, Session: s, Ancestry: noAgent}, st: newState(s.Home, "s-1"), handle: "alice"}
	code, done = w.look()
	if done && code == ExitRewake && !strings.Contains(errs.String(), registry.WakeNotice) {
		t.Errorf("the waiter woke with %q, want the notice", errs.String())
	}
	return code, done
}
