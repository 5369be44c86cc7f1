package filer

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// Encode files the protocol's frame; Check refuses exactly what Encode refuses.
func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		l    Line
		want string
		bad  string
	}{
		{"keys in the protocol's order, no id", Line{From: "a", To: "b", Repo: "r", Msg: "hi", TS: "2026-05-29T18:04:00Z"},
			`{"from":"a","to":"b","repo":"r","msg":"hi","ts":"2026-05-29T18:04:00Z"}` + "\n", ""},
		{"id last", Line{From: "a", To: "", Repo: "r", Msg: "x", TS: "t", ID: "01J"},
			`{"from":"a","to":"","repo":"r","msg":"x","ts":"t","id":"01J"}` + "\n", ""},
		{"in_reply_to after the id", Line{From: "a", To: "b", Repo: "r", Msg: "x", TS: "t", ID: "01K", InReplyTo: "01J"},
			`{"from":"a","to":"b","repo":"r","msg":"x","ts":"t","id":"01K","in_reply_to":"01J"}` + "\n", ""},
		{"markup kept, newlines and quotes escaped", Line{Msg: "<b>&\n\"q\""},
			`{"from":"","to":"","repo":"","msg":"<b>&\n\"q\"","ts":""}` + "\n", ""},
		{"invalid UTF-8 refused", Line{Msg: "bad \xff byte"}, "", "msg text is not valid UTF-8"},
		{"invalid UTF-8 in another field refused", Line{Repo: "\xc3"}, "", "repo text is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.l.Check(); (err != nil) != (tt.bad != "") || err != nil && !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("Check = %v, want it to refuse what Encode refuses (%q)", err, tt.bad)
			}
			got, err := tt.l.Encode()
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("got %q, %v; want an error saying %q", got, err, tt.bad)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

// An id the inbox holds is answered Dup and not written again, across calls and
// within one batch; an id inside another field's text is not a held id.
func TestAppendDedupe(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	path := mustPath(t, f, home.Inbox, h)
	res, err := f.Append(h, []Line{line("a", h, `quoting {"id":"X2"} in a message`, "X1")})
	if err != nil || res[0].Dup {
		t.Fatalf("first: %v %v", res, err)
	}
	res, err = f.Append(h, []Line{line("a", h, "retry", "X1"), line("b", h, "new", "X2"), line("b", h, "new again", "X2"), line("c", h, "no id", ""), line("c", h, "no id", "")})
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, false, false}
	for i, r := range res {
		if r.Dup != want[i] {
			t.Fatalf("result %d Dup=%v, want %v", i, r.Dup, want[i])
		}
	}
	got := decodeLines(t, readFile(t, path))
	if len(got) != 4 || got[1].Msg != "new" {
		t.Fatalf("inbox holds %+v; want X1, X2 once, and both lines without an id", got)
	}
	// A reply names another line's id in in_reply_to: that is not the id it holds.
	reply := line("d", h, "a reply to X1", "X3")
	reply.InReplyTo = "X1"
	if res, err = f.Append(h, []Line{reply}); err != nil || res[0].Dup {
		t.Fatalf("a reply to X1 was taken for X1 again: %v %v", res, err)
	}
	if res, err = f.Append(h, []Line{reply}); err != nil || !res[0].Dup {
		t.Fatalf("the reply's retry was filed again: %v %v", res, err)
	}
	// All duplicates: nothing written at all.
	before := readFile(t, path)
	if res, err = f.Append(h, []Line{line("a", h, "retry", "X1")}); err != nil || !res[0].Dup || readFile(t, path) != before {
		t.Fatalf("a lone duplicate changed the inbox: %v %v", res, err)
	}
}

// Dedupe looks back DedupeTail bytes and only at whole lines in that window.
func TestAppendDedupeWindow(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	if _, err := f.Append(h, []Line{line("a", h, "old", "OLD")}); err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("z", 64<<10)
	for range DedupeTail/len(filler) + 1 {
		if _, err := f.Append(h, []Line{line("a", h, filler, "")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Append(h, []Line{line("a", h, "recent", "NEW")}); err != nil {
		t.Fatal(err)
	}
	res, err := f.Append(h, []Line{line("a", h, "old", "OLD"), line("a", h, "recent", "NEW")})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Dup || !res[1].Dup {
		t.Fatalf("got %+v: want the id past the window filed again and the recent one held", res)
	}
}

// A write or fsync that fails is cut back to the length before it.
func TestAppendFailureIsUndone(t *testing.T) {
	tests := []struct {
		name  string
		write func(*os.File, []byte) error
		sync  func(*os.File) error
		want  string
	}{
		{"short write", func(f *os.File, b []byte) error {
			f.Write(b[:len(b)/2])
			return errors.New("no space left on device")
		}, nil, "could not be written (no space left on device) — nothing was appended"},
		{"fsync", nil, func(*os.File) error { return errors.New("input/output error") },
			"could not be flushed to disk (input/output error) — nothing was appended"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			h := "me"
			if _, err := f.Append(h, []Line{line("a", h, "kept", "K")}); err != nil {
				t.Fatal(err)
			}
			path := mustPath(t, f, home.Inbox, h)
			before := readFile(t, path)
			w, s := writeInbox, syncInbox
			t.Cleanup(func() { writeInbox, syncInbox = w, s })
			if tt.write != nil {
				writeInbox = tt.write
			}
			if tt.sync != nil {
				syncInbox = tt.sync
			}
			_, err := f.Append(h, []Line{line("a", h, "lost", "L1"), line("a", h, "lost too", "L2")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if got := readFile(t, path); got != before {
				t.Fatalf("the inbox was not cut back:\n got %q\nwant %q", got, before)
			}
			// The refused ids are not held: a retry files them.
			writeInbox, syncInbox = w, s
			if res, err := f.Append(h, []Line{line("a", h, "lost", "L1")}); err != nil || res[0].Dup {
				t.Fatalf("retry: %v %v", res, err)
			}
		})
	}
}

// A dead writer's partial line is cut back and logged before the next append.
func TestAppendCutsBackAPartialLine(t *testing.T) {
	f, logs := newTestFiler(t)
	h := "me"
	seed(t, f, h, 2)
	path := mustPath(t, f, home.Inbox, h)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`{"from":"dead","to":"me","msg":"cut sh`)
	fh.Close()
	if _, err := f.Append(h, []Line{line("a", h, "whole", "")}); err != nil {
		t.Fatal(err)
	}
	got := decodeLines(t, readFile(t, path))
	if len(got) != 3 || got[2].Msg != "whole" {
		t.Fatalf("inbox %+v; want the 2 lines and the new one, no partial", got)
	}
	if !strings.Contains(logs.String(), "cut back an unterminated last line") || !strings.Contains(logs.String(), "bytes=38") {
		t.Fatalf("the cut was not logged with its size:\n%s", logs)
	}

	// An inbox that is only a partial line is cut back to empty.
	if err := os.WriteFile(path, []byte(`{"from":"dead"`), home.FileMode); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append(h, []Line{line("a", h, "first", "")}); err != nil {
		t.Fatal(err)
	}
	if got := decodeLines(t, readFile(t, path)); len(got) != 1 || got[0].Msg != "first" {
		t.Fatalf("inbox %+v, want only the new line", got)
	}
}

func TestAppendRefusesBadTextBeforeLocking(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	_, err := f.Append(h, []Line{line("a", h, "fine", ""), line("a", h, "\xff", "")})
	if err == nil || !strings.Contains(err.Error(), "line 2 for @me: the msg text is not valid UTF-8") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(mustPath(t, f, home.InboxLock, h)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock file was made for a refused call: %v", err)
	}
}

func TestAppendFileModes(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	if _, err := f.Append(h, []Line{line("a", h, "x", "")}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []home.Kind{home.Inbox, home.InboxLock} {
		fi, err := os.Stat(mustPath(t, f, k, h))
		if err != nil || fi.Mode().Perm() != home.FileMode {
			t.Fatalf("%v: mode %v, %v; want 0600", k, fi.Mode(), err)
		}
	}
}

// A fresh id is one this process just minted, so Append reads no dedupe window
// for it: even an id the inbox holds is written (which only a forged "fresh"
// line could meet). A fresh id still meets a twin in its own batch, and a
// retry, not fresh, is still answered Dup.
func TestAppendFreshIDReadsNoWindow(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	path := mustPath(t, f, home.Inbox, h)
	if _, err := f.Append(h, []Line{line("a", h, "first", "X1")}); err != nil {
		t.Fatal(err)
	}
	fresh := line("a", h, "minted again", "X1")
	fresh.Fresh = true
	twin := fresh
	res, err := f.Append(h, []Line{fresh, twin})
	if err != nil || res[0].Dup || !res[1].Dup {
		t.Fatalf("fresh X1 and its twin: %+v, %v; want the first written, the twin Dup", res, err)
	}
	if got := decodeLines(t, readFile(t, path)); len(got) != 2 || got[1].Msg != "minted again" {
		t.Fatalf("inbox holds %+v; want the fresh line written without a look back", got)
	}
	if res, err := f.Append(h, []Line{line("a", h, "retry", "X1")}); err != nil || !res[0].Dup {
		t.Fatalf("a retry of X1: %+v, %v; want Dup", res, err)
	}
}

// The inbox folder is flushed before the first line goes into an empty inbox, and
// only then; when that flush fails nothing is appended, and a retry files the line.
func TestAppendFlushesTheFolderOfANewInboxOnce(t *testing.T) {
	f, _ := newTestFiler(t)
	h := "me"
	orig := syncFolder
	t.Cleanup(func() { syncFolder = orig })
	flushes := 0
	syncFolder = func(string) error { flushes++; return errors.New("input/output error") }
	_, err := f.Append(h, []Line{line("a", h, "lost", "L1")})
	if want := "could not be flushed to disk (input/output error) — nothing was appended"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	if got := readFile(t, mustPath(t, f, home.Inbox, h)); got != "" {
		t.Fatalf("a refused first append left %q in the inbox", got)
	}
	syncFolder = func(dir string) error { flushes++; return orig(dir) }
	for i, id := range []string{"L1", "L2", "L3"} {
		if _, err := f.Append(h, []Line{line("a", h, "kept", id)}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if flushes != 2 {
		t.Fatalf("the folder was flushed %d times for a refused and three filed appends, want 2 (once for each append to the empty inbox)", flushes)
	}
}
