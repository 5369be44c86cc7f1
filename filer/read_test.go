package filer

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// seed writes an inbox of n lines, line i (from 1) saying "m<i>" at minute i.
func seed(t testing.TB, f *Filer, handle string, n int) []string {
	t.Helper()
	var lines []string
	for i := 1; i <= n; i++ {
		l := Line{From: "peer", To: handle, Repo: "r", Msg: fmt.Sprintf("m%d", i), TS: fmt.Sprintf("2026-05-29T18:%02d:00Z", i)}
		b, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(mustPath(t, f, home.Inbox, handle), []byte(strings.Join(lines, "")), home.FileMode); err != nil {
		t.Fatal(err)
	}
	return lines
}

func writeCursorText(t testing.TB, f *Filer, handle, text string) {
	t.Helper()
	if err := os.WriteFile(mustPath(t, f, home.Cursor, handle), []byte(text), home.FileMode); err != nil {
		t.Fatal(err)
	}
}

func msgs(b Batch) []string {
	var out []string
	for _, l := range b.Lines {
		i := strings.Index(string(l), `"msg":"`)
		out = append(out, strings.SplitN(string(l[i+7:]), `"`, 2)[0])
	}
	return out
}

// Every cursor form the protocol allows resumes where it says.
func TestReadNewCursorForms(t *testing.T) {
	hashOf := func(lines []string, n int) string { return LineHash([]byte(lines[n-1])) }
	tests := []struct {
		name      string
		cursor    func(lines []string) string
		wantStart int
		wantNote  string
	}{
		{"no cursor", func([]string) string { return "" }, 0, ""},
		{"count only", func([]string) string { return "2\n" }, 2, ""},
		{"count and hash", func(l []string) string { return "3 " + hashOf(l, 3) + "\n" }, 3, ""},
		{"legacy stamp between lines", func([]string) string { return "2026-05-29T18:02:30Z" }, 2, ""},
		{"legacy stamp equal to a line's ts", func([]string) string { return "2026-05-29T18:03:00Z" }, 3, ""},
		{"legacy stamp before every line", func([]string) string { return "2020-01-01T00:00:00Z" }, 0, ""},
		{"legacy stamp after every line", func([]string) string { return "2030-01-01T00:00:00Z" }, 5, ""},
		{"hash of another line steps back", func(l []string) string { return "3 " + hashOf(l, 2) }, 2, "a cut-back removed it"},
		{"count past the end", func([]string) string { return "9" }, 5, "counts 9 lines but the inbox holds only 5"},
		{"not a cursor", func([]string) string { return "yesterday" }, 0, "could not be parsed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			lines := seed(t, f, "me", 5)
			writeCursorText(t, f, "me", tt.cursor(lines))
			b, err := f.ReadNew("me")
			if err != nil {
				t.Fatal(err)
			}
			if b.Start != tt.wantStart || len(b.Lines) != 5-tt.wantStart {
				t.Fatalf("resumed after line %d with %d lines, want after %d", b.Start, len(b.Lines), tt.wantStart)
			}
			if got := strings.Join(b.Notes, " | "); !strings.Contains(got, tt.wantNote) || (tt.wantNote == "") != (got == "") {
				t.Fatalf("notes %q, want one saying %q", got, tt.wantNote)
			}
			if b.Fault != "" {
				t.Fatalf("unexpected lock fault %q", b.Fault)
			}
		})
	}
}

// A poll shows the new lines once, and the cursor it writes is the protocol's.
func TestReadCommitCycle(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	if _, err := f.Append(h, []Line{line("a", h, "one", ""), line("b", h, "two", "")}); err != nil {
		t.Fatal(err)
	}
	b, err := f.ReadNew(h)
	if err != nil || b.Start != 0 || strings.Join(msgs(b), ",") != "one,two" {
		t.Fatalf("first read: %v %+v", err, b)
	}
	if err := f.Commit(h, b); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, mustPath(t, f, home.Cursor, h)), "2 "+LineHash(b.Lines[1])+"\n"; got != want {
		t.Fatalf("cursor file %q, want %q", got, want)
	}
	if b, _ = f.ReadNew(h); len(b.Lines) != 0 || b.Start != 2 {
		t.Fatalf("second read found %d lines after %d", len(b.Lines), b.Start)
	}
	if err := f.Commit(h, b); err != nil { // nothing shown: nothing written
		t.Fatal(err)
	}
	if _, err := f.Append(h, []Line{line("c", h, "three", "")}); err != nil {
		t.Fatal(err)
	}
	if b, _ = f.ReadNew(h); b.Start != 2 || strings.Join(msgs(b), ",") != "three" {
		t.Fatalf("third read: %+v", b)
	}
	if fi, err := os.Stat(mustPath(t, f, home.Cursor, h)); err != nil || fi.Mode().Perm() != home.FileMode {
		t.Fatalf("cursor file mode: %v %v", fi.Mode(), err)
	}
}

// A line a reader read and a cut-back then removed: the next read steps back one
// line and says so, so whatever replaced it is shown.
func TestStepBackAfterCutBack(t *testing.T) {
	for _, replaced := range []bool{false, true} {
		t.Run(fmt.Sprintf("replaced=%v", replaced), func(t *testing.T) {
			f, _ := newTestFiler(t)
			h := "me"
			lines := seed(t, f, h, 3)
			b, err := f.ReadNew(h)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Commit(h, b); err != nil {
				t.Fatal(err)
			}
			// The append that wrote line 3 failed and was cut back after the read.
			path := mustPath(t, f, home.Inbox, h)
			if err := os.Truncate(path, int64(len(lines[0])+len(lines[1]))); err != nil {
				t.Fatal(err)
			}
			want := []string(nil)
			if replaced {
				if _, err := f.Append(h, []Line{line("peer", h, "retry", "")}); err != nil {
					t.Fatal(err)
				}
				want = []string{"retry"}
			}
			b, err = f.ReadNew(h)
			if err != nil {
				t.Fatal(err)
			}
			if b.Start != 2 || strings.Join(msgs(b), ",") != strings.Join(want, ",") {
				t.Fatalf("read %v after line %d, want %v after line 2", msgs(b), b.Start, want)
			}
			if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "steps back one line") {
				t.Fatalf("notes %q, want the step-back sentence", b.Notes)
			}
		})
	}
}

// With the offset index in agreement a read seeks straight to the cursor's line;
// when it disagrees the read counts lines and rewrites it.
func TestOffsetIndex(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	lines := seed(t, f, h, 10)
	end := func(n int) int { return len(strings.Join(lines[:n], "")) }
	hash := func(n int) string { return LineHash([]byte(lines[n-1])) }
	indexPath := mustPath(t, f, home.CursorIndex, h)

	// An index whose count is not line 10's but whose offset and hash are: only a
	// read that trusts it resumes after "line 7" with nothing new; a counting read
	// would find line 7's hash wrong and step back.
	writeCursorText(t, f, h, "7 "+hash(10))
	if err := os.WriteFile(indexPath, fmt.Appendf(nil, "7 %d %s\n", end(10), hash(10)), home.FileMode); err != nil {
		t.Fatal(err)
	}
	b, err := f.ReadNew(h)
	if err != nil || b.Start != 7 || len(b.Lines) != 0 || len(b.Notes) != 0 {
		t.Fatalf("read with an agreeing index: %v %+v; want it to seek, not count", err, b)
	}

	// The shell client moved the cursor: the index disagrees, lines are counted,
	// and the index is rewritten to agree.
	writeCursorText(t, f, h, "5 "+hash(5))
	b, err = f.ReadNew(h)
	if err != nil || b.Start != 5 || strings.Join(msgs(b), ",") != "m6,m7,m8,m9,m10" {
		t.Fatalf("read with a stale index: %v %+v", err, b)
	}
	if got, want := readFile(t, indexPath), fmt.Sprintf("5 %d %s\n", end(5), hash(5)); got != want {
		t.Fatalf("index %q, want %q", got, want)
	}

	// An index that agrees with the cursor but not with the inbox (a hand edit, a
	// replaced file) is not trusted.
	if err := os.WriteFile(indexPath, fmt.Appendf(nil, "5 %d %s\n", end(5)+3, hash(5)), home.FileMode); err != nil {
		t.Fatal(err)
	}
	if b, err = f.ReadNew(h); err != nil || b.Start != 5 || len(b.Lines) != 5 {
		t.Fatalf("read with an index off the inbox: %v %+v", err, b)
	}

	// Commit keeps cursor and index together.
	if err := f.Commit(h, b); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, indexPath), fmt.Sprintf("10 %d %s\n", end(10), hash(10)); got != want {
		t.Fatalf("index after commit %q, want %q", got, want)
	}
}

// Only newline-terminated lines are read, and a missing inbox reads as empty.
func TestReadCountsOnlyWholeLines(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	if b, err := f.ReadNew(h); err != nil || len(b.Lines) != 0 || b.Start != 0 {
		t.Fatalf("missing inbox: %v %+v", err, b)
	}
	lines := seed(t, f, h, 2)
	fh, err := os.OpenFile(mustPath(t, f, home.Inbox, h), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`{"from":"peer","to":"me","msg":"half`)
	fh.Close()
	b, err := f.ReadNew(h)
	if err != nil || len(b.Lines) != 2 {
		t.Fatalf("read %d lines (%v), want the 2 whole ones", len(b.Lines), err)
	}
	if err := f.Commit(h, b); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, mustPath(t, f, home.Cursor, h)); got != "2 "+LineHash([]byte(lines[1]))+"\n" {
		t.Fatalf("cursor %q counts the partial line", got)
	}
}

// A lock fault other than a held lock is named, and the read goes on unlocked.
func TestReadLockFaultIsNamed(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	seed(t, f, h, 3)
	// A folder where the lock file should be: the open fails (EISDIR).
	if err := os.Mkdir(mustPath(t, f, home.InboxLock, h), 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := f.ReadNew(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 3 {
		t.Fatalf("read %d lines, want 3 read unlocked", len(b.Lines))
	}
	if !strings.Contains(b.Fault, "could not be opened (EISDIR: is a directory)") || !strings.Contains(b.Fault, "read without it") {
		t.Fatalf("fault %q does not name the open failure", b.Fault)
	}
	// A writer never appends unlocked.
	if _, err := f.Append(h, []Line{line("a", h, "x", "")}); err == nil || !strings.Contains(err.Error(), "nothing was appended") {
		t.Fatalf("append without its lock: %v", err)
	}
}

// An unreadable cursor stops the read rather than showing everything again.
func TestReadUnreadableCursor(t *testing.T) {
	f, _ := newTestFiler(t)
	seed(t, f, "me", 1)
	if err := os.Mkdir(mustPath(t, f, home.Cursor, "me"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadNew("me"); err == nil || !strings.Contains(err.Error(), "read/me.cursor is a folder, not a regular file") {
		t.Fatalf("got %v, want the cursor named", err)
	}
}

func TestReadRefusesABadHandle(t *testing.T) {
	f, _ := newTestFiler(t)
	for _, h := range []string{"", "..", "a/b", strings.Repeat("x", 65)} {
		if _, err := f.ReadNew(h); err == nil {
			t.Errorf("ReadNew(%q) read something", h)
		}
		if _, err := f.Append(h, []Line{line("a", h, "x", "")}); err == nil {
			t.Errorf("Append(%q) appended", h)
		}
	}
}

// An inbox path that is a folder is an error that says so, never a panic: the
// wake loop reads every row's inbox, and one bad path must not end the daemon.
func TestReadNewOfAFolderInbox(t *testing.T) {
	f, _ := newTestFiler(t)
	p, err := f.Home.HandlePath(home.Inbox, "dir")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"ReadNew": func() error { _, err := f.ReadNew("dir"); return err },
		"Unread":  func() error { _, err := f.Unread("dir"); return err },
	} {
		if err := read(); err == nil || !strings.Contains(err.Error(), "inbox/dir.jsonl is a folder, not a regular file; move it aside") {
			t.Errorf("%s of a folder inbox = %v, want the folder named", name, err)
		}
	}
}

// A cursor that no longer parses does not show the whole inbox again: the offset
// index beside it gives the place back, the poll says so once, and the cursor is
// rewritten in the protocol's form, even when no line is new.
func TestGarbledCursorIsRecoveredFromTheOffset(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	seed(t, f, h, 5)
	poll := func() Batch {
		t.Helper()
		b, err := f.ReadNew(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(h, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	poll() // read all five: cursor and offset now say line 5
	if _, err := f.Append(h, []Line{line("peer", h, "m6", ""), line("peer", h, "m7", "")}); err != nil {
		t.Fatal(err)
	}
	cursorPath := mustPath(t, f, home.Cursor, h)
	hash7 := func() string {
		b, _ := os.ReadFile(mustPath(t, f, home.Inbox, h))
		all := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return LineHash([]byte(all[6]))
	}

	writeCursorText(t, f, h, "\x00\x00garbled by a crash\n")
	b := poll()
	if b.Start != 5 || strings.Join(msgs(b), ",") != "m6,m7" {
		t.Fatalf("after a garbled cursor the poll showed %v after line %d; want only m6,m7 after line 5", msgs(b), b.Start)
	}
	want := "read/me.cursor could not be parsed"
	if len(b.Notes) != 1 || !strings.HasPrefix(b.Notes[0], want) || !strings.HasSuffix(b.Notes[0], "; recovered the position (5 lines) from read/me.offset, and the cursor is rewritten from it") {
		t.Fatalf("notes %q; want the one recovery sentence", b.Notes)
	}
	if got, want := readFile(t, cursorPath), "7 "+hash7()+"\n"; got != want {
		t.Fatalf("cursor %q after the poll, want %q", got, want)
	}

	// Nothing new: the poll shows nothing and still rewrites the cursor, so the
	// notice is given once.
	writeCursorText(t, f, h, "7 not-a-hash")
	if b := poll(); len(b.Lines) != 0 || b.Start != 7 || len(b.Notes) != 1 {
		t.Fatalf("garbled cursor, nothing new: %+v", b)
	}
	if got, want := readFile(t, cursorPath), "7 "+hash7()+"\n"; got != want {
		t.Fatalf("cursor %q after a poll with nothing new, want %q rewritten", got, want)
	}
	if b := poll(); len(b.Notes) != 0 || len(b.Lines) != 0 {
		t.Fatalf("the poll after the recovery: %+v; want nothing new and no note", b)
	}
}

// Without an offset index the inbox bears out, a garbled cursor reads the inbox
// from its first line, as it always did, and says why.
func TestGarbledCursorWithoutAUsableOffset(t *testing.T) {
	for _, tt := range []struct {
		name  string
		index func(lines []string) string // "" leaves no index
		why   string
	}{
		{"no offset", func([]string) string { return "" },
			"and there is no usable read/me.offset to recover the position from, so the inbox is read from its first line"},
		{"offset counts another line", func(l []string) string {
			return fmt.Sprintf("2 %d %s\n", len(strings.Join(l[:3], "")), LineHash([]byte(l[2])))
		}, "and read/me.offset does not agree with the inbox, so the inbox is read from its first line"},
		{"offset off the inbox", func(l []string) string {
			return fmt.Sprintf("3 %d %s\n", len(strings.Join(l[:3], ""))+1, LineHash([]byte(l[2])))
		}, "and read/me.offset does not agree with the inbox, so the inbox is read from its first line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			lines := seed(t, f, "me", 5)
			if ix := tt.index(lines); ix != "" {
				if err := os.WriteFile(mustPath(t, f, home.CursorIndex, "me"), []byte(ix), home.FileMode); err != nil {
					t.Fatal(err)
				}
			}
			writeCursorText(t, f, "me", "yesterday")
			b, err := f.ReadNew("me")
			if err != nil || b.Start != 0 || len(b.Lines) != 5 {
				t.Fatalf("read %v after line %d (%v); want all 5 from the first", msgs(b), b.Start, err)
			}
			if len(b.Notes) != 1 || !strings.HasPrefix(b.Notes[0], "read/me.cursor could not be parsed") || !strings.HasSuffix(b.Notes[0], tt.why) {
				t.Fatalf("notes %q; want one ending %q", b.Notes, tt.why)
			}
		})
	}
}
