package client

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 29, 18, 4, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "90m", want: now.Add(-90 * time.Minute)},
		{in: "12h", want: now.Add(-12 * time.Hour)},
		{in: "30d", want: now.Add(-30 * 24 * time.Hour)},
		{in: "2026-05-29T18:00:00Z", want: time.Date(2026, 5, 29, 18, 0, 0, 0, time.UTC)},
		{in: "2026-05-29T20:00:00+02:00", want: time.Date(2026, 5, 29, 18, 0, 0, 0, time.UTC)},
		{in: "2026-05-29", want: time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)},
		{in: "yesterday", bad: true},
		{in: "-1h", bad: true},
		{in: "2026-13-01", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseSince(tc.in, now)
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "neither an age")):
			t.Errorf("ParseSince(%q) = %v, %v; want it refused", tc.in, got, err)
		case !tc.bad && (err != nil || !got.Equal(tc.want)):
			t.Errorf("ParseSince(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// logSession is a joined session "me" on a fresh home whose inboxes are given:
// handle to lines, each written as filed.
func logSession(t *testing.T, inboxes map[string]string) (*Session, *bytes.Buffer) {
	t.Helper()
	s, out := joinedSession(t, "me")
	for handle, lines := range inboxes {
		path, err := s.Home.HandlePath(home.Inbox, handle)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return s, out
}

// TestLogOfALargeInboxKeepsNoLine: log streams each inbox, as poll does; its
// heap stays a small part of the inboxes' size, and --since seeks: it shows
// only the last lines.
func TestLogOfALargeInboxKeepsNoLine(t *testing.T) {
	const size = 12 << 20
	var mine, bobs bytes.Buffer
	body := strings.Repeat("x", 900)
	base := time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	lines := 0
	for mine.Len() < size {
		ts := base.Add(time.Duration(lines) * time.Second).Format(time.RFC3339)
		fmt.Fprintf(&mine, `{"from":"bob","to":"me","repo":"r","msg":"%s %d","ts":"%s","id":"01J%023d"}`+"\n", body, lines, ts, lines)
		fmt.Fprintf(&bobs, `{"from":"me","to":"bob","repo":"r","msg":"re %d","ts":"%s","id":"01K%023d"}`+"\n", lines, ts, lines)
		lines++
	}
	s, out := logSession(t, map[string]string{"me": mine.String(), "bob": bobs.String()})
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	w := &peakWriter{}
	s.Stdout = w
	if code := s.Log(LogArgs{}); code != ExitOK {
		t.Fatalf("log: %d %s", code, out.String())
	}
	if grew := int64(w.peak) - int64(before.HeapAlloc); grew > size/2 {
		t.Errorf("the log's heap grew by %d bytes over a %d-byte inbox; want at most half of it", grew, size)
	}
	last := fmt.Sprintf("@me -> @bob (%s, id %08d, unread): re %d\n", base.Add(time.Duration(lines-1)*time.Second).Format(time.RFC3339), lines-1, lines-1)
	if !bytes.HasSuffix(w.tail, []byte(last)) {
		t.Errorf("the log ends %q, want the last line sent, %q", w.tail, last)
	}
	// The last ten seconds: two lines from each inbox, found by seeking.
	var tail bytes.Buffer
	s.Stdout = &tail
	if code := s.Log(LogArgs{Since: base.Add(time.Duration(lines-10) * time.Second)}); code != ExitOK {
		t.Fatalf("log --since: %d %s", code, out.String())
	}
	if n := strings.Count(tail.String(), "\n"); n != 20 {
		t.Errorf("log --since the last ten seconds showed %d lines, want 20:\n%s", n, tail.String())
	}
}

// A box whose clock is ahead files a line stamped later than the lines filed
// after it: --since still finds it, within LogSkew, where a seek by the lines'
// times alone would step past it.
func TestLogSinceFindsALineStampedAhead(t *testing.T) {
	base := time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	body := strings.Repeat("x", 1000)
	since := base.Add(4500 * time.Second)
	var mine bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&mine, `{"from":"bob","to":"me","repo":"r","msg":"%s","ts":"%s"}`+"\n", body, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339))
		if i == 4000 {
			fmt.Fprintf(&mine, `{"from":"carol","to":"me","repo":"r","msg":"from a fast clock","ts":"%s"}`+"\n", since.Format(time.RFC3339))
		}
	}
	s, out := logSession(t, map[string]string{"me": mine.String()})
	if code := s.Log(LogArgs{With: "carol", Since: since}); code != ExitOK {
		t.Fatalf("log: %d %s", code, out.String())
	}
	if !strings.Contains(out.String(), "from a fast clock") {
		t.Errorf("log --since left out a line it names:\n%s", out.String())
	}
}

// Those who wrote to this session from another home are named on one note:
// what was sent to them is filed there. A handle this home lists is not, nor
// one whose inbox is here.
func TestLogNamesTheWritersFiledElsewhere(t *testing.T) {
	line := func(from string) string {
		return `{"from":"` + from + `","to":"me","repo":"r","msg":"hi","ts":"2026-05-29T18:04:00Z"}` + "\n"
	}
	s, out := logSession(t, map[string]string{"me": line("xena") + line("me") + line("yuri") + line("zoe") + line("xena"), "zoe": ""})
	if code := s.Log(LogArgs{}); code != ExitOK {
		t.Fatalf("log: %d %s", code, out.String())
	}
	want := "note: @xena, @yuri are not listed in this home: any line @me sent them is filed on the boxes that hold them"
	if !strings.Contains(out.String(), want) || strings.Count(out.String(), "note:") != 1 {
		t.Errorf("log:\n%s\nwant one note: %s", out.String(), want)
	}
}

// joinedSession is a session joined as name in a fresh home on box "box",
// printing stdout and stderr to out, which holds nothing yet.
func joinedSession(t *testing.T, name string) (*Session, *bytes.Buffer) {
	t.Helper()
	h, err := home.At(testutil.ShortDir(t, "c")) // short: a socket path in it must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(home.EnvName, "")
	out := &bytes.Buffer{}
	s := &Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: out, Stderr: out, Now: time.Now}
	if code := s.Join(JoinArgs{Name: name}); code != ExitOK {
		t.Fatalf("join: %d %s", code, out)
	}
	out.Reset()
	return s, out
}
