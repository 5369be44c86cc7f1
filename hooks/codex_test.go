package hooks

import (
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/registry"
)

// underServer is the ancestry of a hook that Codex's shared app-server runs,
// reparented to pid 1 after the session that started it ended.
func underServer() ([]ancestry.Proc, error) {
	return []ancestry.Proc{
		{PID: 300, PPID: 4242, Argv: []string{"sotd", "hook"}},
		{PID: 4242, PPID: 1, Argv: []string{"/home/u/.codex/packages/app-server-daemon/current/bin/codex", "app-server", "--listen", "unix://", "--managed-daemon"}},
	}, nil
}

// A hook under Codex's shared app-server acts as no handle: it stamps nothing
// and holds no turn end even while mail waits, and says why (to the person at
// the turn's edges, on stderr always). Under the session's own codex, the same
// hooks act.
func TestHooksUnderSharedServer(t *testing.T) {
	const dialogAsk = `{"session_id":"s-1","tool_name":"AskUserQuestion","tool_input":{"question":"Which one?"}}`
	const permission = `{"session_id":"s-1","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`
	for _, tc := range []struct {
		name  string
		fn    func(Run) int
		input string
		tell  bool
	}{
		{"stop", Stop, stopInput, true},
		{"prompt", Prompt, `{"session_id":"s-1","prompt":"go on"}`, true},
		{"pretool", func(r Run) int { return PreTool(r, false) }, dialogAsk, false},
		{"permission", Permission, permission, false},
		{"posttool", func(r Run) int { return PostTool(r, true) }, postInput, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			s := joined(t, c)
			mail(t, s, "bob", "alice", "hi")
			if code := s.Status(registry.VerbDialog, "Allow Bash?", true, false); code != 0 {
				t.Fatal(code)
			}
			c.Add(beatFresh * 2)
			before := *entry(t, s)

			var o, e strings.Builder
			if code := tc.fn(Run{In: strings.NewReader(tc.input), Out: &o, Err: &e, Session: s, Ancestry: underServer}); code != ExitOK {
				t.Fatalf("exit %d, want 0: the hook did its one job, saying why it did nothing", code)
			}
			if got := *entry(t, s); !reflect.DeepEqual(got, before) {
				t.Errorf("the registry entry changed under the shared server:\n got %+v\nwant %+v", got, before)
			}
			if !strings.Contains(e.String(), "shared app-server (pid 4242)") || !strings.Contains(e.String(), "codex --no-daemon") {
				t.Errorf("stderr %q, want the server named and the way out", e.String())
			}
			if !tc.tell {
				if o.String() != "" {
					t.Errorf("stdout %q, want nothing: a tool hook tells on stderr only", o.String())
				}
				return
			}
			msg, _ := decode(t, o.String())["systemMessage"].(string)
			if !strings.Contains(msg, "did nothing") || !strings.Contains(msg, "codex app-server daemon stop") {
				t.Errorf("answer %q, want a systemMessage that says what happened and what to do", o.String())
			}
			if _, blocked := decode(t, o.String())["decision"]; blocked {
				t.Errorf("answer %q holds the turn; under the server nothing is held", o.String())
			}

			// The control: under the session's own codex the same hook acts.
			o.Reset()
			tc.fn(Run{In: strings.NewReader(tc.input), Out: &o, Err: &e, Session: s, Ancestry: ownCodex})
			if got := *entry(t, s); reflect.DeepEqual(got, before) {
				t.Errorf("under the session's own codex the %s hook changed nothing", tc.name)
			}
		})
	}
}

// The subagent guard judges the tool input alone, so it still denies a
// subagent's comm command under the shared server.
func TestSubagentGuardUnderSharedServer(t *testing.T) {
	var o, e strings.Builder
	in := `{"session_id":"s-1","agent_id":"a-1","tool_name":"Bash","tool_input":{"command":"sotd send bob hi"}}`
	PreTool(Run{In: strings.NewReader(in), Out: &o, Err: &e, Ancestry: underServer}, false)
	if !strings.Contains(o.String(), `"permissionDecision":"deny"`) {
		t.Errorf("answer %q, want the comm command denied", o.String())
	}
}

// With real processes: a Stop hook whose parent's command line is Codex's
// shared server finds it by reading the OS's process table, names its pid and
// holds nothing; the same hook under a parent that is not the server does its
// usual job (here: no comm home, so it says it cannot read the mail).
func TestStopFindsTheSharedServerAmongItsAncestors(t *testing.T) {
	run := func(args ...string) (string, int) {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)...)
		cmd.Env = append(os.Environ(), helperEnv+"=server")
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("the server helper: %v", err)
		}
		return out.String(), cmd.Process.Pid
	}
	out, pid := run("app-server", "--listen", "unix://", "--managed-daemon")
	msg, _ := decode(t, out)["systemMessage"].(string)
	if !strings.Contains(msg, "shared app-server (pid "+strconv.Itoa(pid)+")") {
		t.Errorf("under the server the Stop hook answered %q, want it named with pid %d", out, pid)
	}
	out, _ = run("mcp-server")
	if reason, _ := decode(t, out)["reason"].(string); !strings.Contains(reason, "no comm home here") {
		t.Errorf("under another parent the Stop hook answered %q, want its usual block for an unreadable home", out)
	}
}
