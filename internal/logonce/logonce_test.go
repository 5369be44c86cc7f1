package logonce

import (
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

func TestAConditionIsLoggedWhenItStartsChangesAndEnds(t *testing.T) {
	buf := &testutil.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(buf, nil)) // Info and up: repeats are not shown
	var c Condition
	c.Clear(log, "it reads again") // nothing held: nothing to say
	for range 5 {
		c.Fail(log, slog.LevelWarn, "registry unreadable", errors.New("EACCES"), "tick", "page")
	}
	c.Fail(log, slog.LevelWarn, "registry unreadable", errors.New("EIO"))
	c.Fail(log, slog.LevelWarn, "registry unreadable", errors.New("EIO"))
	c.Clear(log, "it reads again")
	c.Clear(log, "it reads again")
	c.Fail(log, slog.LevelWarn, "registry unreadable", errors.New("EIO"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"level=WARN.*err=EACCES", "level=WARN.*err=EIO", "level=INFO.*it reads again", "level=WARN.*err=EIO"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		lvl, rest, _ := strings.Cut(w, ".*")
		if !strings.Contains(lines[i], lvl) || !strings.Contains(lines[i], rest) {
			t.Errorf("line %d = %q, want %s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[0], "tick=page") {
		t.Errorf("the first line lost its attributes: %q", lines[0])
	}
}

func TestEveryLogsAtItsLevelBurstTimesAPeriod(t *testing.T) {
	buf := &testutil.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(buf, nil)) // Info and up: the quiet ones are not shown
	clk := testutil.NewClock(time.Unix(1000, 0))
	e := Every{Period: time.Minute, Burst: 2, Now: clk.Now}
	for i := range 5 {
		e.Log(log, slog.LevelWarn, "link refused", "n", i)
	}
	clk.Add(time.Minute)
	for i := 5; i < 8; i++ {
		e.Log(log, slog.LevelWarn, "link refused", "n", i)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"level=WARN msg=\"link refused\" n=0$",
		"level=WARN msg=\"link refused\" n=1$",
		"level=WARN msg=\"link refused\" n=5 also_since_the_last=3$",
		"level=WARN msg=\"link refused\" n=6$",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d %q, want it to match %q", i, lines[i], w)
		}
	}
}
