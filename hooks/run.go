package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sotcomm/sotd/ancestry"
	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/registry"
)

// Run is one hook invocation: the agent's JSON on In, the answer on Out, notes
// for logs on Err. Session is nil when the comm home could not be opened, and
// NoSession says why.
type Run struct {
	In        io.Reader
	Out       io.Writer
	Err       io.Writer
	Session   *client.Session
	NoSession error
	// Ancestry reads this process and its ancestors, itself first; nil reads
	// them from the OS.
	Ancestry func() ([]ancestry.Proc, error)
}

// Exit codes of a hook: see the package doc for why there is no 2 (but
// ExitRewake, the waiter's).
const (
	ExitOK     = 0
	ExitFailed = 1
)

// input is the part of the hook JSON sotd reads (see the package doc).
type input struct {
	SessionID      string          `json:"session_id"`
	StopHookActive bool            `json:"stop_hook_active"`
	AgentID        string          `json:"agent_id"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Prompt         string          `json:"prompt"`
}

// read decodes the hook JSON. An agent always sends one object; anything else is
// a fault of the caller, named so a person running the hook by hand sees it.
func (r Run) read() (input, error) {
	var in input
	if err := json.NewDecoder(r.In).Decode(&in); err != nil {
		return input{}, fmt.Errorf("the hook input is not the agent's JSON object (%v)", err)
	}
	return in, nil
}

// drain reads stdin to its end for a hook that needs none of it, so the agent's
// write into the pipe never fails.
func (r Run) drain() { io.Copy(io.Discard, r.In) }

// answer writes one JSON answer line.
func (r Run) answer(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(r.Err, "sotd hook: %v\n", err)
		return
	}
	r.Out.Write(append(b, '\n'))
}

func (r Run) note(format string, args ...any) { fmt.Fprintf(r.Err, format+"\n", args...) }

// quiet is the session with every line the client would print sent to Err: a
// hook's stdout is the agent's to parse, and a client's FAILED line there would
// read as hook output.
func (r Run) quiet() *client.Session {
	s := *r.Session
	s.Stdout, s.Stderr = r.Err, r.Err
	return &s
}

// me is the handle this session acts as, or "" when it acts as nobody: it has not
// joined, its row is gone, or another row holds the handle (then its hooks have
// no identity to stamp or block on). A fault reading who it is comes back as err.
func (r Run) me() (string, *registry.Entry, error) {
	me, err := r.handle()
	if me == "" || err != nil {
		return "", nil, err
	}
	return r.rowOf(me)
}

// handle is the handle this session's pin names, "" when it has not joined;
// its row is not read (rowOf reads it).
func (r Run) handle() (string, error) {
	me, err := r.Session.Me()
	if errors.Is(err, client.ErrNotJoined) {
		return "", nil
	}
	return me, err
}

// rowOf is me's row, read as me reads it.
func (r Run) rowOf(me string) (string, *registry.Entry, error) {
	s := r.Session
	e, ok, err := s.Lookup(me)
	switch {
	case err != nil:
		return me, nil, err
	case !ok || e.BoundElsewhere(s.Row):
		return "", nil, nil
	}
	return me, e, nil
}

// status writes a work-state verb for this session, as `sotd status` does, with
// its lines sent to Err. A session that acts as nobody writes nothing.
func (r Run) status(verb, text string) int {
	if r.Session == nil {
		r.note("sotd hook: %v; nothing was stamped", r.NoSession)
		return ExitFailed
	}
	me, _, err := r.me()
	if err == nil && me == "" {
		return ExitOK
	}
	if r.quiet().Status(verb, text, text != "", false) != client.ExitOK {
		return ExitFailed
	}
	return ExitOK
}

// ancestors is this hook's process and its ancestors, itself first, as far as
// they could be read.
func (r Run) ancestors() []ancestry.Proc {
	walk := r.Ancestry
	if walk == nil {
		walk = func() ([]ancestry.Proc, error) { return ancestry.Walk(os.Getpid()) }
	}
	chain, _ := walk()
	return chain
}

// agent is the agent that runs this hook: the nearest agent process above it.
// Claude Code may leave a background hook running when it exits; the waiter
// then ends itself.
func (r Run) agent() (ancestry.Proc, bool) {
	for _, p := range r.ancestors() {
		if ancestry.IsAgent(p) {
			return p, true
		}
	}
	return ancestry.Proc{}, false
}
