package registry

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// facts is the part of a row a status write touches.
type facts struct {
	Floor, Dialog, Question, Waiting, Note, StopAt string
	Done                                           bool
}

func (f facts) entry() *Entry {
	return &Entry{Host: "box", Floor: f.Floor, Dialog: f.Dialog, Question: f.Question, Waiting: f.Waiting, Note: f.Note, StopAt: f.StopAt, Done: f.Done}
}

func factsOf(e *Entry) facts {
	return facts{e.Floor, e.Dialog, e.Question, e.Waiting, e.Note, e.StopAt, e.Done}
}

func TestApplyEveryVerb(t *testing.T) {
	now := time.Date(2026, 6, 15, 19, 32, 13, 0, time.UTC)
	busy := facts{Floor: "user", Dialog: "Allow Bash?", Question: "q?", Waiting: "CI", Note: "n", StopAt: "2026-06-15T19:30:00Z", Done: true}
	tests := []struct {
		name        string
		from        facts
		st          Status
		want        facts
		state, summ string
	}{
		{"user prompt clears question and done, dialog and stop_at",
			facts{Question: "q?", Done: true, Dialog: "d", StopAt: "x", Note: "n", Waiting: "CI"},
			Status{Verb: "prompt", Text: "user", HasText: true},
			facts{Floor: "user", Note: "n", Waiting: "CI"}, "working", "n"},
		{"machine prompt (the default) keeps question and done",
			facts{Question: "q?", Done: true},
			Status{Verb: "prompt"},
			facts{Floor: "machine", Question: "q?", Done: true}, "working", ""},
		{"stop of a user turn with nothing pending is done",
			facts{Floor: "user", Note: "built", StopAt: "x", Dialog: "d"},
			Status{Verb: "stop"},
			facts{Note: "built", Done: true}, "done", "built"},
		{"stop with a wait pending is not done",
			facts{Floor: "user", Waiting: "CI"},
			Status{Verb: "stop"},
			facts{Waiting: "CI"}, "waiting", "CI"},
		{"stop with a question open is not done, and the question shows",
			facts{Floor: "user", Question: "which branch?"},
			Status{Verb: "stop"},
			facts{Question: "which branch?"}, "blocked", "which branch?"},
		{"stop of a machine turn is not done",
			facts{Floor: "machine", Note: "n"},
			Status{Verb: "stop"},
			facts{Note: "n"}, "idle", "n"},
		{"dialog reads red over the running turn",
			facts{Floor: "user", Note: "n"},
			Status{Verb: "dialog", Text: "Allow Bash?", HasText: true},
			facts{Floor: "user", Note: "n", Dialog: "Allow Bash?"}, "blocked", "Allow Bash?"},
		{"dialog with no text still blocks",
			facts{Floor: "user"},
			Status{Verb: "dialog"},
			facts{Floor: "user", Dialog: noDialog}, "blocked", noDialog},
		{"resumed clears the dialog",
			facts{Floor: "user", Dialog: "d", Note: "n"},
			Status{Verb: "resumed"},
			facts{Floor: "user", Note: "n"}, "working", "n"},
		{"join changes no fact",
			busy,
			Status{Verb: "join"},
			busy, "blocked", "Allow Bash?"},
		{"working sets the note and clears question, waiting, done",
			facts{Question: "q", Waiting: "w", Done: true, Note: "old", Dialog: "d"},
			Status{Verb: "working", Text: "rebuilding backend", HasText: true},
			facts{Note: "rebuilding backend", Dialog: "d"}, "blocked", "d"},
		{"working with no text keeps the note",
			facts{Floor: "user", Note: "old", Done: true},
			Status{Verb: "working"},
			facts{Floor: "user", Note: "old"}, "working", "old"},
		{"idle with an explicit empty text clears the note",
			facts{Note: "old", Waiting: "w"},
			Status{Verb: "idle", HasText: true},
			facts{}, "idle", ""},
		{"blocked sets the question, keeps waiting and the note",
			facts{Waiting: "w", Note: "n"},
			Status{Verb: "blocked", Text: "which branch?", HasText: true},
			facts{Question: "which branch?", Waiting: "w", Note: "n"}, "blocked", "which branch?"},
		{"blocked during a turn reads working until the turn ends",
			facts{Floor: "user", Note: "n"},
			Status{Verb: "blocked", Text: "q?", HasText: true},
			facts{Floor: "user", Note: "n", Question: "q?"}, "working", "n"},
		{"blocked with no text asks the note",
			facts{Note: "pick a name"},
			Status{Verb: "blocked"},
			facts{Note: "pick a name", Question: "pick a name"}, "blocked", "pick a name"},
		{"blocked with no text and no note still blocks",
			facts{},
			Status{Verb: "blocked"},
			facts{Question: noQuestion}, "blocked", noQuestion},
		{"waiting sets waiting and keeps the question",
			facts{Question: "q?", Floor: "user"},
			Status{Verb: "waiting", Text: "for CI", HasText: true},
			facts{Question: "q?", Floor: "user", Waiting: "for CI"}, "working", ""},
		{"waiting with no text waits on the note",
			facts{Note: "deploy"},
			Status{Verb: "waiting"},
			facts{Note: "deploy", Waiting: "deploy"}, "waiting", "deploy"},
		{"waiting with nothing still waits",
			facts{},
			Status{Verb: "waiting"},
			facts{Waiting: noWaiting}, "waiting", noWaiting},
		{"done sets done and the note, clears question and waiting",
			facts{Question: "q", Waiting: "w", Note: "old"},
			Status{Verb: "done", Text: "shipped", HasText: true},
			facts{Done: true, Note: "shipped"}, "done", "shipped"},
		{"the summary is one line",
			facts{},
			Status{Verb: "idle", Text: "line one\nline two\t tabbed\r\n", HasText: true},
			facts{Note: "line one\nline two\t tabbed\r\n"}, "idle", "line one line two tabbed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.from.entry()
			if err := Apply(e, tc.st, now); err != nil {
				t.Fatal(err)
			}
			if got := factsOf(e); got != tc.want {
				t.Errorf("facts\n got %+v\nwant %+v", got, tc.want)
			}
			if e.State != tc.state || e.Summary != tc.summ {
				t.Errorf("state %q summary %q, want %q %q", e.State, e.Summary, tc.state, tc.summ)
			}
			if e.StatusAt != "2026-06-15T19:32:13Z" || e.LastSeen != e.StatusAt || e.Host != "box" {
				t.Errorf("stamps %q %q, host %q", e.StatusAt, e.LastSeen, e.Host)
			}
		})
	}
}

func TestApplyRefusesAndChangesNothing(t *testing.T) {
	for _, st := range []Status{{Verb: "prompt", Text: "robot", HasText: true}, {Verb: "interrupted"}, {Verb: ""}, {Verb: "Working"}} {
		e := facts{Floor: "user", Note: "n"}.entry()
		before := *e
		if err := Apply(e, st, time.Now()); err == nil {
			t.Errorf("Apply(%+v) succeeded", st)
		}
		if factsOf(e) != factsOf(&before) || e.StatusAt != "" {
			t.Errorf("Apply(%+v) changed the row: %+v", st, e)
		}
	}
}

// The protocol's priority table, fact by fact.
func TestReducePriority(t *testing.T) {
	tests := []struct {
		f           facts
		state, summ string
	}{
		{facts{Dialog: "d", Question: "q", Floor: "user", Waiting: "w", Done: true, Note: "n"}, "blocked", "d"},
		{facts{Question: "q", Waiting: "w", Done: true, Note: "n"}, "blocked", "q"},
		{facts{Question: "q", Floor: "machine", Note: "n"}, "working", "n"},
		{facts{Floor: "user", Waiting: "w", Done: true, Note: "n"}, "working", "n"},
		{facts{Waiting: "w", Done: true, Note: "n"}, "waiting", "w"},
		{facts{Done: true, Note: "n"}, "done", "n"},
		{facts{Note: "n"}, "idle", "n"},
		{facts{}, "idle", ""},
	}
	for _, tc := range tests {
		e := tc.f.entry()
		e.reduce()
		if e.State != tc.state || e.Summary != tc.summ {
			t.Errorf("%+v: %q %q, want %q %q", tc.f, e.State, e.Summary, tc.state, tc.summ)
		}
	}
}

func TestVerbKinds(t *testing.T) {
	for _, v := range []string{"prompt", "stop", "dialog", "resumed", "join"} {
		if !IsEvent(v) || IsDeclaration(v) {
			t.Errorf("%s is an event", v)
		}
	}
	for _, v := range []string{"working", "idle", "blocked", "waiting", "done"} {
		if IsEvent(v) || !IsDeclaration(v) {
			t.Errorf("%s is a declaration", v)
		}
	}
	for _, v := range []string{"", "interrupted", "Done", "heartbeat"} {
		if IsEvent(v) || IsDeclaration(v) {
			t.Errorf("%q is no verb", v)
		}
	}
}

func TestApplyStatusReadsAnEmptyTextAsOmitted(t *testing.T) {
	e := &Entry{Note: "kept"}
	if err := ApplyStatus(e, "working", "", time.Now()); err != nil || e.Note != "kept" {
		t.Errorf("note %q, %v", e.Note, err)
	}
	if err := ApplyStatus(e, "prompt", "user", time.Now()); err != nil || e.Floor != "user" {
		t.Errorf("floor %q, %v", e.Floor, err)
	}
}

func TestAStatusWriteKeepsAnEmptySummary(t *testing.T) {
	e := &Entry{Host: "box"}
	if err := Apply(e, Status{Verb: "idle"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	b, err := (&Doc{Agents: map[string]*Entry{"a": e}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"summary": ""`) || !strings.Contains(string(b), `"state": "idle"`) {
		t.Errorf("status write lost its derived keys:\n%s", b)
	}
}

func TestWriteStatus(t *testing.T) {
	now := time.Date(2026, 6, 15, 19, 32, 13, 0, time.UTC)
	h := newHome(t)
	writeRegistry(t, h, `{"protocol_version":1,"agents":{"a-box":{"host":"box","status":"idle","turn_origin":"user","floor":"user"}}}`)

	if err := WriteStatus(h, "a-box", Status{Verb: "blocked", Text: "which branch?", HasText: true}, now, RuledWait); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatus(h, "a-box", Status{Verb: "stop"}, now, RuledWait); err != nil {
		t.Fatal(err)
	}
	e, _, err := Lookup(h, "a-box")
	if err != nil {
		t.Fatal(err)
	}
	if e.State != "blocked" || e.Summary != "which branch?" || e.Floor != "" || e.Done || e.Status != "idle" || string(e.Extra["turn_origin"]) != `"user"` {
		t.Errorf("row after blocked, stop: %+v", e)
	}

	b, fi := mustRead(t, h.Registry())
	if err := WriteStatus(h, "nobody", Status{Verb: "prompt", Text: "user", HasText: true}, now, RuledWait); err != nil {
		t.Errorf("an event with no row must be a silent no-op: %v", err)
	}
	err = WriteStatus(h, "nobody", Status{Verb: "done"}, now, RuledWait)
	if !errors.Is(err, ErrNoRow) || !strings.Contains(err.Error(), "no registry row for 'nobody' -- stamp discarded") {
		t.Errorf("a declaration with no row = %v", err)
	}
	if err := WriteStatus(h, "a-box", Status{Verb: "bogus"}, now, RuledWait); err == nil || !strings.Contains(err.Error(), "invalid verb") {
		t.Errorf("invalid verb = %v", err)
	}
	assertUnchanged(t, h.Registry(), b, fi)
	assertNoLitter(t, h)
}
