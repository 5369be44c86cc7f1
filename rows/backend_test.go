//go:build !windows

package rows_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
	"github.com/sotcomm/sotd/screen"
)

const (
	glyph = "❯"
	nbsp  = "\u00a0"
	wait  = 5 * time.Second
)

// promptRow is the row of the fake agent's input line, which sits between
// the two rules three rows from the bottom.
func promptRow(s *screen.Screen) int { return s.Rows - 3 }

// atPrompt reports whether the cursor sits in the input box right after box.
func atPrompt(box string) func(*screen.Screen) bool {
	return func(s *screen.Screen) bool {
		r := promptRow(s)
		return s.CursorRow == r && strings.TrimRight(s.Line(r), " ") == glyph+nbsp+box
	}
}

func isRule(line string) bool {
	return line != "" && strings.Trim(line, "─") == ""
}

func TestFakeAgentRow(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		spec, log := agentSpec(t)
		info, err := b.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		id := info.Spec.ID
		if !strings.HasPrefix(id, "ws-") || info.Backend != b.Name() || info.Pid <= 0 {
			t.Fatalf("Start = %+v, want a ws- id, backend %s and a pid", info, b.Name())
		}
		if info.Phase != rows.Starting && info.Phase != rows.Ready {
			t.Fatalf("a row just started is %s", info.Phase)
		}
		rowstest.WaitPhase(t, b, id, wait, rows.Ready)

		s := rowstest.WaitScreen(t, b, id, wait, "empty prompt", atPrompt(""))
		r := promptRow(s)
		if s.Cols != 120 || s.Rows != 40 {
			t.Errorf("screen is %dx%d, want the default 120x40", s.Cols, s.Rows)
		}
		if s.Lines[r][0].Text != glyph || s.Lines[r][1].Text != nbsp {
			t.Errorf("prompt row starts %q %q, want the glyph and a no-break space", s.Lines[r][0].Text, s.Lines[r][1].Text)
		}
		if s.CursorCol != 2 {
			t.Errorf("cursor column %d, want 2: right after the glyph and its no-break space", s.CursorCol)
		}
		if !isRule(s.Line(r-1)) || !isRule(s.Line(r+1)) {
			t.Errorf("rows around the prompt are %q and %q, want rules", s.Line(r-1), s.Line(r+1))
		}
		if !strings.Contains(s.Line(0), "row="+id+" name=Repo-box") {
			t.Errorf("top line %q does not show the row's SOT_WORKSPACE_ID and SOT_COMM_NAME", s.Line(0))
		}

		// A trailing ';' is tmux's command separator; it must arrive as typed.
		typed := "héllo wörld;"
		if err := b.Input(id, []byte(typed)); err != nil {
			t.Fatal(err)
		}
		rowstest.WaitFile(t, log, typed, wait)
		s = rowstest.WaitScreen(t, b, id, wait, "the typed draft", atPrompt(typed))
		if s.CursorCol != 2+len([]rune(typed)) {
			t.Errorf("cursor column %d after typing %q, want %d", s.CursorCol, typed, 2+len([]rune(typed)))
		}

		if err := b.Input(id, []byte("\r")); err != nil {
			t.Fatal(err)
		}
		rowstest.WaitFile(t, log, typed+"\r", wait)
		s = rowstest.WaitScreen(t, b, id, wait, "the box cleared after Enter", atPrompt(""))
		if !slices.ContainsFunc(lines(s), func(l string) bool { return strings.TrimRight(l, " ") == "> "+typed }) {
			t.Errorf("the submitted line is not shown above the box:\n%s", rowstest.Text(s))
		}
		// Texts shows the same words and cursor, without attributes, and leaves
		// out a row that is not there.
		texts, err := b.Texts([]string{"ws-none", id})
		if err != nil {
			t.Fatal(err)
		}
		txt, ok := texts[id]
		if len(texts) != 1 || !ok {
			t.Fatalf("Texts = %v, want only %s", texts, id)
		}
		if !slices.Equal(lines(txt), lines(s)) || txt.CursorRow != s.CursorRow || txt.CursorCol != s.CursorCol {
			t.Errorf("Texts, cursor %d,%d:\n%s\nwant Screen's, cursor %d,%d:\n%s", txt.CursorRow, txt.CursorCol, rowstest.Text(txt), s.CursorRow, s.CursorCol, rowstest.Text(s))
		}

		if err := b.Stop(id); err != nil {
			t.Fatal(err)
		}
		info, err = b.Info(id)
		if err != nil || info.Phase != rows.Stopped {
			t.Fatalf("after Stop: %+v, %v; want Stopped", info, err)
		}
		if !processGone(info.Pid) || !groupGone(info.Pid) {
			t.Errorf("process %d or its group is still there after Stop", info.Pid)
		}
		if err := b.Input(id, []byte("x")); !errors.Is(err, rows.ErrNotRunning) {
			t.Errorf("Input into a Stopped row = %v, want ErrNotRunning", err)
		}
		if _, err := b.Screen(id); err != nil {
			t.Errorf("a Stopped row's last screen cannot be read: %v", err)
		}

		if err := b.Remove(id); err != nil {
			t.Fatal(err)
		}
		if info, err := b.Info(id); err != nil || info.Phase != rows.Terminal {
			t.Errorf("after Remove: %+v, %v; want Terminal", info, err)
		}
		if list, err := b.List(); err != nil || len(list) != 0 {
			t.Errorf("List after Remove = %+v, %v; want none", list, err)
		}
		if _, err := b.Screen(id); !errors.Is(err, rows.ErrNoRow) {
			t.Errorf("Screen of a removed row = %v, want ErrNoRow", err)
		}
	})
}

func lines(s *screen.Screen) []string {
	out := make([]string, s.Rows)
	for r := range out {
		out[r] = s.Line(r)
	}
	return out
}

func TestDimSuggestionReadsAsDim(t *testing.T) {
	const suggestion = "fix the tests"
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		spec, _ := agentSpec(t, rowstest.EnvSuggest+"="+suggestion)
		info, err := b.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		id := info.Spec.ID
		s := rowstest.WaitScreen(t, b, id, wait, "the dim suggestion", atPrompt(suggestion))
		line := s.Lines[promptRow(s)]
		for c, cell := range line[:2+len(suggestion)] {
			if want := c >= 2; cell.Dim != want {
				t.Errorf("cell %d (%q) Dim=%v, want %v", c, cell.Text, cell.Dim, want)
			}
		}
		if s.CursorCol != 2 {
			t.Errorf("cursor column %d, want 2: a suggestion is drawn after the cursor", s.CursorCol)
		}

		if err := b.Input(id, []byte("a")); err != nil {
			t.Fatal(err)
		}
		s = rowstest.WaitScreen(t, b, id, wait, "the typed character", atPrompt("a"))
		for c, cell := range s.Lines[promptRow(s)] {
			if cell.Dim {
				t.Errorf("cell %d (%q) is still dim after typing replaced the suggestion", c, cell.Text)
			}
		}
	})
}

func TestWideDraft(t *testing.T) {
	const draft = "漢字 draft"
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		spec, _ := agentSpec(t, rowstest.EnvDraft+"="+draft)
		info, err := b.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		s := rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the draft", atPrompt(draft))
		line := s.Lines[promptRow(s)]
		want := []screen.Cell{{Text: "漢", Width: 2}, {Text: "", Width: 0}, {Text: "字", Width: 2}, {Text: "", Width: 0}, {Text: " ", Width: 1}}
		if !slices.Equal(line[2:7], want) {
			t.Errorf("cells after the prompt = %+v, want %+v", line[2:7], want)
		}
		if s.CursorCol != 2+4+len(" draft") {
			t.Errorf("cursor column %d, want %d (two wide characters count two cells each)", s.CursorCol, 2+4+len(" draft"))
		}
	})
}

func TestAgentExitsOnItsOwn(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		info, _ := startAtPrompt(t, b)
		id := info.Spec.ID
		if err := b.Input(id, []byte("/exit 3\r")); err != nil {
			t.Fatal(err)
		}
		got := rowstest.WaitPhase(t, b, id, wait, rows.Stopped)
		if got.ExitCode != 3 {
			t.Errorf("exit code %d, want 3", got.ExitCode)
		}
		if err := b.Stop(id); err != nil {
			t.Errorf("Stop of a row already Stopped = %v, want nil", err)
		}
	})
}

// A row started with a size of its own (sotd run's terminal) has a screen of
// that size, and the backend's size fills a side the spec leaves at 0.
func TestRowOfItsOwnSize(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		info, err := b.Start(rows.Spec{Label: "sized", Cols: 97, Argv: []string{"/bin/sh", "-c", "stty size; exec sleep 30"}})
		if err != nil {
			t.Fatal(err)
		}
		s := rowstest.WaitScreen(t, b, info.Spec.ID, wait, "stty's answer", func(s *screen.Screen) bool { return strings.TrimSpace(s.Line(0)) != "" })
		if got := strings.TrimSpace(s.Line(0)); got != "40 97" || s.Cols != 97 || s.Rows != 40 {
			t.Errorf("stty size says %q on a %dx%d screen, want \"40 97\" on 97x40", got, s.Cols, s.Rows)
		}
	})
}

// The fake agent asks for the cursor position before it draws; the row's
// terminal must answer, or the agent shows "none".
func TestAgentQueryIsAnswered(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		spec, _ := agentSpec(t, rowstest.EnvAskPos+"=1")
		info, err := b.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		s := rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the prompt", atPrompt(""))
		if !strings.Contains(s.Line(0), "cursor report: 1;1") {
			t.Errorf("top line %q, want the terminal's answer \"cursor report: 1;1\"", s.Line(0))
		}
	})
}

// Stop ends the whole process group, an agent that ignores SIGTERM and the
// children it left behind included; while it waits the row is Ending.
func TestStopKillsStubbornGroup(t *testing.T) {
	eachBackend(t, rows.Options{StopGrace: 300 * time.Millisecond}, func(t *testing.T, b rows.Backend) {
		info, err := b.Start(rows.Spec{Label: "stubborn", Argv: []string{"/bin/sh", "-c",
			`trap "" TERM; sleep 300 & echo started; while :; do sleep 0.05; done`}})
		if err != nil {
			t.Fatal(err)
		}
		id := info.Spec.ID
		rowstest.WaitScreen(t, b, id, wait, "the started line", func(s *screen.Screen) bool {
			return strings.HasPrefix(s.Line(0), "started")
		})
		begun := time.Now()
		stopped := make(chan error, 1)
		go func() { stopped <- b.Stop(id) }()
		rowstest.WaitPhase(t, b, id, wait, rows.Ending)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if took := time.Since(begun); took < 300*time.Millisecond {
			t.Errorf("Stop took %v: it did not wait the grace before SIGKILL", took)
		}
		got, err := b.Info(id)
		if err != nil || got.Phase != rows.Stopped || got.ExitCode != -1 {
			t.Errorf("after Stop: %+v, %v; want Stopped by a signal (exit -1)", got, err)
		}
		if !groupGone(info.Pid) {
			t.Errorf("process group %d still has members after Stop", info.Pid)
		}
	})
}

func TestStartingUntilDrawnOrOneSecond(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			clock := testutil.NewClock(time.Unix(1_800_000_000, 0))
			testStarting(t, k.make(t, rows.Options{Now: clock.Now}), clock)
		})
	}
}

func testStarting(t *testing.T, b rows.Backend, clock *testutil.Clock) {
	quiet, err := b.Start(rows.Spec{Label: "quiet", Argv: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := agentSpec(t)
	drawing, err := b.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	rowstest.WaitPhase(t, b, drawing.Spec.ID, wait, rows.Ready)
	if got, err := b.Info(quiet.Spec.ID); err != nil || got.Phase != rows.Starting {
		t.Fatalf("a row that has drawn nothing for no time on the clock: %+v, %v; want Starting", got, err)
	}
	clock.Add(rows.StartingFor)
	if got, err := b.Info(quiet.Spec.ID); err != nil || got.Phase != rows.Ready {
		t.Fatalf("a row that has drawn nothing for %v: %+v, %v; want Ready", rows.StartingFor, got, err)
	}
}

func TestConcurrentInputsDoNotInterleave(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		info, log := startAtPrompt(t, b)
		id := info.Spec.ID
		words := []string{"alpha;", "bravo\x7f", "charlie\r", "delta-delta", "echo\techo"}
		errs := make(chan error, len(words))
		for _, w := range words {
			go func() { errs <- b.Input(id, []byte(w)) }()
		}
		for range words {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		var total int
		for _, w := range words {
			total += len(w)
		}
		var got []byte
		testutil.Within(wait, func() bool { got, _ = os.ReadFile(log); return len(got) >= total })
		rest := string(got)
		for _, w := range words {
			if !strings.Contains(rest, w) {
				t.Errorf("the log %q does not hold %q in one piece", got, w)
			}
			rest = strings.Replace(rest, w, "", 1)
		}
		if rest != "" {
			t.Errorf("the log holds %q beyond the words typed", rest)
		}
	})
}

func TestUnknownRow(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		for name, call := range map[string]func() error{
			"Info":   func() error { _, err := b.Info("ws-none"); return err },
			"Screen": func() error { _, err := b.Screen("ws-none"); return err },
			"Input":  func() error { return b.Input("ws-none", []byte("x")) },
			"Stop":   func() error { return b.Stop("ws-none") },
			"Remove": func() error { return b.Remove("ws-none") },
		} {
			if err := call(); !errors.Is(err, rows.ErrNoRow) || rows.Code(err) != "no_row" {
				t.Errorf("%s of an unknown row = %v, want ErrNoRow", name, err)
			}
		}
		if list, err := b.List(); err != nil || len(list) != 0 {
			t.Errorf("List of a backend with no rows = %+v, %v", list, err)
		}
		spec, _ := agentSpec(t)
		spec.ID = "ws-twice"
		if _, err := b.Start(spec); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Start(spec); !errors.Is(err, rows.ErrRowExists) {
			t.Errorf("a second Start of ws-twice = %v, want ErrRowExists", err)
		}
	})
}

func TestStartRefusesMissingProgram(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		for _, argv0 := range []string{"/no/such/agent", "no-such-agent-on-path", "./not-here"} {
			_, err := b.Start(rows.Spec{Cwd: t.TempDir(), Argv: []string{argv0}})
			if err == nil || !strings.Contains(err.Error(), argv0) {
				t.Errorf("Start of %s = %v, want an error naming it", argv0, err)
			}
		}
		if list, err := b.List(); err != nil || len(list) != 0 {
			t.Errorf("failed Starts left rows: %+v, %v", list, err)
		}
	})
}

// A daemon started inside a row carries that row's identity; its rows must not.
func TestRowDoesNotInheritDaemonIdentity(t *testing.T) {
	t.Setenv("SOT_WORKSPACE_ID", "ws-daemons-own")
	t.Setenv("SOT_COMM_NAME", "Daemon-box")
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			b := k.make(t, rows.Options{})
			spec, _ := agentSpec(t)
			spec.Handle = ""
			info, err := b.Start(spec)
			if err != nil {
				t.Fatal(err)
			}
			s := rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the prompt", atPrompt(""))
			if got, want := strings.TrimRight(s.Line(0), " "), "fake agent row="+info.Spec.ID+" name="; got != want {
				t.Errorf("top line %q, want %q", got, want)
			}
		})
	}
}

// An agent may ask the terminal something as it ends; Stop must still finish.
func TestStopWhileAgentQueries(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		info, err := b.Start(rows.Spec{Label: "asker", Argv: []string{"/bin/sh", "-c",
			`trap 'printf "\033[6n\033[c"; sleep 0.2; exit 0' TERM; echo started; while :; do sleep 0.05; done`}})
		if err != nil {
			t.Fatal(err)
		}
		rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the started line", func(s *screen.Screen) bool {
			return strings.HasPrefix(s.Line(0), "started")
		})
		stopped := make(chan error, 1)
		go func() { stopped <- b.Stop(info.Spec.ID) }()
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(wait):
			t.Fatalf("Stop of an agent that queries the terminal as it ends did not return in %v", wait)
		}
		if got, err := b.Info(info.Spec.ID); err != nil || got.Phase != rows.Stopped || got.ExitCode != 0 {
			t.Errorf("after Stop: %+v, %v; want Stopped with status 0 (the agent's own exit)", got, err)
		}
	})
}

// TestTextsOfManyRows reads three rows at once, each showing its own draft,
// and again with a row that is gone among them (tmux's one-client sequence
// then ends early, and each row is read alone).
func TestTextsOfManyRows(t *testing.T) {
	eachBackend(t, rows.Options{}, func(t *testing.T, b rows.Backend) {
		drafts := map[string]string{}
		var ids []string
		for _, word := range []string{"alpha", "bravo", "charlie"} {
			info, _ := startAtPrompt(t, b)
			if err := b.Input(info.Spec.ID, []byte(word)); err != nil {
				t.Fatal(err)
			}
			rowstest.WaitScreen(t, b, info.Spec.ID, wait, "the draft "+word, atPrompt(word))
			drafts[info.Spec.ID] = word
			ids = append(ids, info.Spec.ID)
		}
		for _, ask := range [][]string{ids, append([]string{"ws-gone"}, ids...)} {
			texts, err := b.Texts(ask)
			if err != nil {
				t.Fatal(err)
			}
			if len(texts) != len(ids) {
				t.Errorf("Texts(%v) read %d rows, want %d", ask, len(texts), len(ids))
			}
			for id, word := range drafts {
				if s := texts[id]; s == nil || !atPrompt(word)(s) {
					t.Errorf("Texts(%v)[%s] does not show the draft %q", ask, id, word)
				}
			}
		}
	})
}
