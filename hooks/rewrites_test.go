package hooks

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

const preInput = `{"session_id":"s-1","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`

// TestToolCallsRewriteTheRegistryPerMinute: the hooks that run on every tool
// call (PreToolUse, PostToolUse) and a session's polls rewrite the registry
// at most twice a minute (beatFresh) however many of them come, here a tool
// call every 2 s and a poll every 10 s for ten minutes, and the session stays
// live all along: the bound costs no liveness (the protocol's LiveFor).
func TestToolCallsRewriteTheRegistryPerMinute(t *testing.T) {
	c := newClock()
	s := joined(t, c)
	renames := testutil.Renames(t, filepath.Dir(s.Home.Registry()), filepath.Base(s.Home.Registry()))
	const minutes = 10
	end := c.Now().Add(minutes * time.Minute)
	calls := 0
	for ; c.Now().Before(end); calls++ {
		c.Add(2 * time.Second)
		for _, h := range []struct {
			run func(Run) int
			in  string
		}{{func(r Run) int { return PreTool(r, false) }, preInput}, {func(r Run) int { return PostTool(r, false) }, postInput}} {
			var o, e bytes.Buffer
			if code := h.run(Run{In: strings.NewReader(h.in), Out: &o, Err: &e, Session: s, Ancestry: ownCodex}); code != ExitOK || o.Len()+e.Len() > 0 {
				t.Fatalf("tool call %d: exit %d stdout %q stderr %q", calls, code, o.String(), e.String())
			}
		}
		if calls%5 == 0 {
			if code := s.Poll(false); code != ExitOK {
				t.Fatalf("poll at call %d: exit %d", calls, code)
			}
		}
		if e := entry(t, s); !registry.Live(e.LastSeen, c.Now()) {
			t.Fatalf("after %d calls alice is not live: last_seen %s at %s", calls, e.LastSeen, registry.Stamp(c.Now()))
		}
	}
	if got := renames(); got > 2*minutes {
		t.Errorf("%d tool calls and %d polls over %d minutes rewrote the registry %d times, want at most %d (twice a minute)", calls, calls/5, minutes, got, 2*minutes)
	}
	t.Logf("%d tool calls and %d polls over %d minutes: %d registry rewrites", calls, calls/5, minutes, renames())
}
