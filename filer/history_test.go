package filer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// historyOf reads handle's whole history from since: each line's msg and
// whether it was read.
func historyOf(t *testing.T, f *Filer, handle string, since time.Time) (msgs []string, read []bool) {
	t.Helper()
	h, err := f.OpenHistory(handle, since)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for h.Next() {
		msgs = append(msgs, lineMsg(h.Line))
		read = append(read, h.Read)
	}
	if err := h.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs, read
}

// readAll reads handle's new lines and moves its cursor past them, as a poll does.
func readAll(t *testing.T, f *Filer, handle string) {
	t.Helper()
	b, err := f.ReadNew(handle)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(handle, b); err != nil {
		t.Fatal(err)
	}
}

func lineMsg(line []byte) string {
	_, rest, _ := bytes.Cut(line, []byte(`"msg":"`))
	msg, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(msg)
}

func TestHistoryReadsEveryLineWithTheCursorsReadState(t *testing.T) {
	f, _ := newTestFiler(t)
	if _, err := f.Append("alice", []Line{line("bob", "alice", "one", "A1"), line("carol", "alice", "two", "A2")}); err != nil {
		t.Fatal(err)
	}
	readAll(t, f, "alice")
	if _, err := f.Append("alice", []Line{line("bob", "alice", "three", "A3")}); err != nil {
		t.Fatal(err)
	}
	msgs, read := historyOf(t, f, "alice", time.Time{})
	if fmt.Sprint(msgs, read) != "[one two three] [true true false]" {
		t.Fatalf("history = %v %v, want one and two read, three unread", msgs, read)
	}
	if msgs, _ := historyOf(t, f, "nobody", time.Time{}); len(msgs) != 0 {
		t.Fatalf("the history of a handle with no inbox = %v, want none", msgs)
	}
}

// A --since read seeks: it starts at or before the first line filed at or
// after since, and never past it, whatever the lines' lengths.
func TestSeekTimeFindsTheFirstLineAtOrAfterSince(t *testing.T) {
	base := time.Date(2026, 5, 29, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		n    int
		pad  func(i int) int // body length of line i
	}{
		{"short lines", 5000, func(int) int { return 10 }},
		{"long lines", 800, func(i int) int { return 4000 + i%3*30000 }},
		{"a long line among short ones", 5000, func(i int) int {
			if i == 700 {
				return 900 << 10
			}
			return 50
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inbox bytes.Buffer
			var starts []int64
			var longest int64
			n := tc.n
			for i := range n {
				longest = max(longest, int64(tc.pad(i)))
				starts = append(starts, int64(inbox.Len()))
				l := Line{From: "bob", To: "alice", Msg: strings.Repeat("x", tc.pad(i)), TS: base.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}
				b, err := l.Encode()
				if err != nil {
					t.Fatal(err)
				}
				inbox.Write(b)
			}
			inbox.WriteString(`{"from":"bob","unterminated`)
			r := bytes.NewReader(inbox.Bytes())
			for _, want := range []int{0, 1, 699, 700, 701, n / 2, n - 1} {
				off, err := seekTime(r, int64(inbox.Len()), base.Add(time.Duration(want)*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if off > starts[want] {
					t.Fatalf("seek to line %d's time = offset %d, past the line (at %d)", want, off, starts[want])
				}
				// It stops halving within seekChunk, or at a line longer than that.
				if skipped := starts[want] - off; skipped > seekChunk+longest+200 {
					t.Fatalf("seek to line %d's time = offset %d, %d bytes before it: it did not seek", want, off, skipped)
				}
			}
			if off, _ := seekTime(r, int64(inbox.Len()), base.Add(time.Duration(n)*time.Second)); off < starts[n-1]-seekChunk-longest-200 {
				t.Fatalf("seek past the last line = offset %d, far before the last line (at %d): it did not seek", off, starts[n-1])
			}
		})
	}
}

func TestFindIDsStopsAtTheSecondMatch(t *testing.T) {
	f, _ := newTestFiler(t)
	ids := []string{"01J00000000000000000ABCDEF", "01J00000000000000011ABCDEF", "01J000000000000000000ZZZZZ"}
	var lines []Line
	for i, id := range ids {
		lines = append(lines, line("bob", "alice", fmt.Sprintf(`a body that says "id":"%s"`, ids[0]), id))
		if i == 0 {
			lines = append(lines, line("bob", "alice", "a retry of the first, kept by an older sender", id))
		}
	}
	if _, err := f.Append("alice", lines); err != nil {
		t.Fatal(err)
	}
	endsIn := func(s string) func(string) bool { return func(id string) bool { return strings.HasSuffix(id, s) } }
	for _, tc := range []struct {
		suffix string
		want   string
	}{
		{"ABCDEF", "[01J00000000000000000ABCDEF 01J00000000000000011ABCDEF]"},
		{"ZZZZZ", "[01J000000000000000000ZZZZZ]"},
		{"00000ABCDEF", "[01J00000000000000000ABCDEF]"}, // its retry's copy is the same line
		{"QQQQQ", "[]"},
	} {
		got, err := f.FindIDs("alice", endsIn(tc.suffix), 2)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("FindIDs(...%s) = %v, want %s", tc.suffix, got, tc.want)
		}
	}
}

func TestInboxesListsThisHomesInboxes(t *testing.T) {
	f, _ := newTestFiler(t)
	for _, h := range []string{"bob", "alice"} {
		if _, err := f.Append(h, []Line{line("carol", h, "hi", "")}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.Inboxes()
	if err != nil || fmt.Sprint(got) != "[alice bob]" {
		t.Fatalf("Inboxes = %v, %v; want [alice bob] (the lock files are not inboxes)", got, err)
	}
	if !f.Has("bob") || f.Has("carol") {
		t.Fatalf("Has(bob) = %v, Has(carol) = %v; want true, false", f.Has("bob"), f.Has("carol"))
	}
}
