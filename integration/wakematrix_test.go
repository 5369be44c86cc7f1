//go:build soak && !windows

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
)

// The wake matrix: every kind of session sotd wakes, with the real agents,
// measured from the filing to the agent's next model request carrying the
// notice. CONTRIBUTING.md (benchmarks) gives the command that prints it.

// matrixRounds is how many batches each cell files and measures.
const matrixRounds = 5

// plainSettle is how long a plain Claude Code session is watched for a second
// notice after a batch's poll: its turn's end, the Stop hook and the waiter
// started there, which looks every 250 ms.
const plainSettle = 3 * time.Second

// codexQueueSettle is the same for a plain Codex session, whose own queue
// takes up to 10 s to pick a notice up.
const codexQueueSettle = 15 * time.Second

// codexPlainNote is why the plain Codex cell is not held to the bound (see
// docs/agents.md, "A plain Codex session's doorbell").
const codexPlainNote = "not held to 4 s: Codex 0.171 takes a queued prompt (codex queue) at its own pace, 4-10 s on an idle machine, and has no hook that can wake the model"

// wakeCell is one cell of the matrix and what it measured.
type wakeCell struct {
	agent, session string
	took           []time.Duration
	note           string // why the cell has no figures, or no bound
}

// TestWakeMatrix (a soak: real agents, minutes) measures the wake of every
// kind of session, five batches each: Claude Code, the pinned version on PATH
// and the newest at $SOTD_CLAUDE_NEWEST, as a plain session on a terminal the
// test owns (hooks by `sotd hooks install --claude`, joined; its doorbell is
// `sotd hook wait`), as a tmux row and as a PTY row (the daemon's typed
// wake); Codex as a tmux row (typed wake) and as a plain session (its doorbell
// queues the notice). Each batch wakes the model once, and the model's poll
// shows its lines (wakeRounds); each figure is at most 4 s, except the plain
// Codex session's (codexPlainNote); a row's draft is left as it is and gets no
// notice. The table is logged at the end.
func TestWakeMatrix(t *testing.T) {
	claude := realClaude(t)
	codex := realCodex(t, "the wake matrix")
	var cells []*wakeCell
	cell := func(agent, session string, run func(t *testing.T, c *wakeCell)) {
		c := &wakeCell{agent: agent, session: session, note: "not run"}
		cells = append(cells, c)
		t.Run(strings.ReplaceAll(agent, " ", "-")+"/"+strings.ReplaceAll(session, " ", "-"), func(t *testing.T) {
			c.note = ""
			defer func() {
				if t.Failed() {
					c.note = "failed"
				}
			}()
			run(t, c)
		})
	}
	for _, bin := range []string{claude, os.Getenv(newestClaudeEnv)} {
		agent := "claude newest"
		if bin != "" {
			agent = "claude " + agentVersion(t, bin)
		}
		for _, session := range []string{"plain", "tmux row", "pty row"} {
			cell(agent, session, func(t *testing.T, c *wakeCell) {
				if bin == "" {
					c.note = "skipped: " + newestClaudeEnv + " is not set"
					t.Skipf("%s is not set: it names the newest Claude Code's binary", newestClaudeEnv)
				}
				if session == "plain" {
					c.took = claudePlainWake(t, bin)
				} else {
					c.took = claudeRowWake(t, bin, strings.TrimSuffix(session, " row"))
				}
				holdToBound(t, c.took)
			})
		}
	}
	codexAgent := "codex " + agentVersion(t, codex)
	cell(codexAgent, "tmux row", func(t *testing.T, c *wakeCell) {
		c.took = codexRowWake(t, codex)
		holdToBound(t, c.took)
	})
	cell(codexAgent, "plain", func(t *testing.T, c *wakeCell) {
		c.took = codexPlainWake(t, codex)
		c.note = codexPlainNote
		t.Log(codexPlainNote)
	})
	t.Logf("the wake matrix, filing to the model's request carrying the notice:\n%s", matrixTable(cells))
}

// matrixTable is the cells as a table: agent | session | median | worst | n.
func matrixTable(cells []*wakeCell) string {
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(w, "agent\t session\t median\t worst\t n\t note")
	for _, c := range cells {
		median, worst := "-", "-"
		if len(c.took) > 0 {
			m, wst := spread(c.took)
			median, worst = m.Round(10*time.Millisecond).String(), wst.Round(10*time.Millisecond).String()
		}
		fmt.Fprintf(w, "%s\t %s\t %s\t %s\t %d\t %s\n", c.agent, c.session, median, worst, len(c.took), c.note)
	}
	w.Flush()
	return sb.String()
}

// agentVersion is the version an agent's --version prints first.
func agentVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	t.Fatalf("%s --version printed no version: %q", bin, out)
	return ""
}

// claudeRowWake runs the real Claude Code in a row of the given backend
// ("tmux" or "pty") of a real daemon, installed as a person would (`sotd hooks
// install --claude`), measures five batches (wakeRounds), and then holds a
// draft in its prompt untouched (draftKept).
func claudeRowWake(t *testing.T, claude, backend string) []time.Duration {
	api := startClaudeAPI(t)
	b := newBox(t, "box")
	proj := offlineClaude(t, b, api.Server)
	b.must("", "hooks", "install", "--claude")
	argv := []string{claude}
	client := b.extra
	if backend == "pty" {
		// The daemon finds no tmux; the row gets the full PATH (node).
		b.extra = append(b.extra[:len(b.extra):len(b.extra)], "PATH="+binsOf(t, "sh", "sleep"))
		env, err := exec.LookPath("env")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(b.home, "bin") + string(os.PathListSeparator) + strings.TrimPrefix(pathOf(client), "PATH=")
		argv = []string{env, "PATH=" + path, claude}
	}
	d := b.serve()
	b.extra = client
	row := agentRow{t: t, b: b, id: spawnRow(t, b, "Claude-box", "claude", proj, argv...)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the row shows:\n%s\nthe daemon's log:\n%s\nthe poll outputs: %q", row.screen(), d.logs, api.ToolResults())
		}
	})
	if got := b.must("", "rows", "--json"); !strings.Contains(got, `"backend": "`+backend+`"`) {
		t.Fatalf("the row is not on the %s backend:\n%s", backend, got)
	}
	b.must("Tester", "join")
	took := wakeRounds(t, b, "Claude-box", api, matrixRounds, func() { row.idle(claudeGlyph) }, rowSettle)
	row.idle(claudeGlyph)
	draftKept(t, b, row, claudeGlyph, "Claude-box", api)
	return took
}

// pathOf is the PATH=… entry of env, the last one as a process would see it.
func pathOf(env []string) string {
	path := "PATH=" + os.Getenv("PATH")
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv
		}
	}
	return path
}

// plainClaude is a plain Claude Code session on a terminal the test owns,
// acting as @alice, with a daemon on its box.
type plainClaude struct {
	b    *box
	api  claudeAPI
	term *terminal
}

// startPlainClaude sets a box up as a person does (`sotd hooks install
// --claude`, the comm home's bin/ on PATH, `sotd join`), starts the daemon,
// and runs claude in proj on a pty as @alice, with env added; @Tester joins to
// send. It returns once the session's first waiter is armed.
func startPlainClaude(t *testing.T, claude string, env ...string) *plainClaude {
	p := &plainClaude{b: newBox(t, "box"), api: startClaudeAPI(t)}
	b := p.b
	proj := offlineClaude(t, b, p.api.Server)
	b.must("", "hooks", "install", "--claude")
	b.serve()
	b.must("alice", "join")
	b.must("Tester", "join")
	cmd := exec.Command(claude)
	cmd.Dir = proj
	cmd.Env = append(append(b.env("alice"), "TERM=xterm-256color",
		"PATH="+filepath.Join(b.home, "bin")+string(os.PathListSeparator)+strings.TrimPrefix(pathOf(b.extra), "PATH=")), env...)
	p.term, _ = startTerminal(t, cmd)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the session showed:\n%s\nthe poll outputs: %q", p.term.String(), p.api.ToolResults())
		}
	})
	testutil.Eventually(t, agentStep, "Claude Code's first waiter", func() bool { return waiterOf(b) != "" })
	return p
}

// waiterOf is the token of the current waiter of the one plain session on
// box b, "" for none yet.
func waiterOf(b *box) string {
	m, _ := filepath.Glob(filepath.Join(b.home, "state", "wait-*"))
	if len(m) != 1 {
		return ""
	}
	tok, _ := os.ReadFile(m[0])
	return string(tok)
}

// waiterIdle is wakeRounds' idle for the plain session on b: the session is
// idle for the next batch once a new waiter has replaced the one that woke it.
func waiterIdle(t *testing.T, b *box) func() {
	var woke string
	return func() {
		testutil.Eventually(t, agentStep, "a waiter armed at the turn's end", func() bool {
			w := waiterOf(b)
			return w != "" && w != woke
		})
		woke = waiterOf(b)
	}
}

// rounds measures n batches to @alice (wakeRounds).
func (p *plainClaude) rounds(t *testing.T, n int) []time.Duration {
	return wakeRounds(t, p.b, "alice", p.api, n, waiterIdle(t, p.b), plainSettle)
}

// claudePlainWake measures five batches to a plain Claude Code session.
func claudePlainWake(t *testing.T, claude string) []time.Duration {
	return startPlainClaude(t, claude).rounds(t, matrixRounds)
}

// codexPlainWake runs the real Codex as a plain session (`codex --no-daemon`
// on a terminal the test owns, hooks installed and trusted, joined as
// @alice), gives it its first prompt (Codex starts its thread, and so the
// session's doorbell, there), and measures five batches (wakeRounds).
func codexPlainWake(t *testing.T, codex string) []time.Duration {
	api := startCodexAPI(t)
	b := newBox(t, "box")
	proj := filepath.Join(filepath.Dir(b.home), "proj")
	codexInstalled(t, b, api.Server, "", nil, proj)
	b.serve()
	b.must("alice", "join")
	b.must("Tester", "join")
	// No login shell, so the comm home's bin/ stays on the shell tool's PATH,
	// as a person's profile keeps it (docs/agents.md, the comm-*.sh shims).
	cmd := exec.Command(codex, "--no-daemon", "-c", rows.NoLoginShell)
	cmd.Dir = proj
	cmd.Env = append(b.env("alice"), "TERM=xterm-256color",
		"PATH="+filepath.Join(b.home, "bin")+string(os.PathListSeparator)+strings.TrimPrefix(pathOf(b.extra), "PATH="))
	term, _ := startTerminal(t, cmd)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the call outputs: %q", api.Outputs())
			for _, r := range api.Requests() {
				t.Logf("a request at %s: %q", r.At.Format("15:04:05.000"), r.Texts)
			}
			logs, _ := filepath.Glob(filepath.Join(b.home, "state", "codex-wait-*.log"))
			for _, l := range logs {
				text, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, text)
			}
		}
	})
	testutil.Eventually(t, agentStep, "Codex's composer", func() bool { return term.Contains("Ask Codex") })
	if _, err := term.tty.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	// Keys that come with the text are a paste to Codex: Enter waits for it.
	testutil.Eventually(t, agentStep, "the prompt on screen", func() bool { return term.Contains("hello") })
	// The turn has ended when the API has been asked nothing, and the waiter
	// (the Stop hook's, after the SessionStart hook's) not replaced, for a
	// while.
	var token string
	var since time.Time
	testutil.Eventually(t, agentStep, "the first turn's end and its waiter", func() bool {
		reqs := api.Requests()
		if len(reqs) == 0 {
			term.tty.Write([]byte("\r"))
			return false
		}
		if w := waiterOf(b); w != token {
			token, since = w, time.Now()
		}
		const quiet = 3 * time.Second
		return token != "" && time.Since(since) >= quiet && time.Since(reqs[len(reqs)-1].At) >= quiet
	})
	return wakeRounds(t, b, "alice", api, matrixRounds, waiterIdle(t, b), codexQueueSettle)
}

// idleFor is how long TestWakeMatrixIdle leaves a plain session idle: past
// the 10 minutes after which Claude Code's default hook timeout would end a
// background hook, and sotd's one-reminder time.
const idleFor = 11 * time.Minute

// TestWakeMatrixIdle (a soak: eleven minutes) leaves plain Claude Code
// sessions idle for idleFor and then mails them: the notice reaches the model
// within the bound, as for a session just started. Each Claude Code (pinned,
// and newest when $SOTD_CLAUDE_NEWEST is set) runs twice at once: with the
// waiter's full life (an hour: the hook Claude Code started at the session's
// start still waits), and with a 4-minute life, whose waiter re-arms twice in
// the idle time without a model request.
func TestWakeMatrixIdle(t *testing.T) {
	claude := realClaude(t)
	for _, bin := range []string{claude, os.Getenv(newestClaudeEnv)} {
		for _, life := range []time.Duration{hooks.WaitFor, 4 * time.Minute} {
			name := "newest"
			if bin != "" {
				name = agentVersion(t, bin)
			}
			t.Run(fmt.Sprintf("%s/life-%v", name, life), func(t *testing.T) {
				if bin == "" {
					t.Skipf("%s is not set: it names the newest Claude Code's binary", newestClaudeEnv)
				}
				t.Parallel()
				p := startPlainClaude(t, bin, hooks.EnvWaitFor+"="+life.String())
				armed, last := 0, waiterOf(p.b)
				for end := time.Now().Add(idleFor); time.Now().Before(end); time.Sleep(time.Second) {
					if n := len(p.api.Prompts()); n != 0 {
						t.Fatalf("the idle session made %d model requests before any mail, want none (a re-arm must not wake the model)", n)
					}
					if w := waiterOf(p.b); w != "" && w != last {
						armed, last = armed+1, w
					}
				}
				if want := int(idleFor / life); armed < want {
					t.Fatalf("the waiter re-armed %d times in %v with a life of %v, want %d", armed, idleFor, life, want)
				}
				took := p.rounds(t, 1)
				t.Logf("idle %v (waiter life %v, re-armed %d times), then filing to the notice: %v", idleFor, life, armed, took[0].Round(10*time.Millisecond))
				holdToBound(t, took)
			})
		}
	}
}
