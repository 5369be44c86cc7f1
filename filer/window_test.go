package filer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// dups files one line per id into handle's inbox through f, in one call, and
// returns which were answered Dup.
func dups(t *testing.T, f *Filer, handle string, ids ...string) []bool {
	t.Helper()
	var lines []Line
	for _, id := range ids {
		lines = append(lines, line("a", handle, "message "+id, id))
	}
	res, err := f.Append(handle, lines)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]bool, len(res))
	for i, r := range res {
		out[i] = r.Dup
	}
	return out
}

func wantDups(t *testing.T, got []bool, want ...bool) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Dup answers %v, want %v", got, want)
	}
}

// cached files three lines through f, so that f keeps a whole window of handle's
// inbox (its first look keeps only the ids it asked about).
func cached(t *testing.T, f *Filer, handle string) {
	t.Helper()
	for _, id := range []string{"X1", "X2", "X3"} {
		wantDups(t, dups(t, f, handle, id), false)
	}
	w, ok := f.windows.m[mustPath(t, f, home.Inbox, handle)]
	if !ok || w.partial {
		t.Fatalf("f keeps no whole window of @%s: %+v", handle, w)
	}
}

// Lines another process or another Filer appends between two appends of a Filer
// that keeps a window are seen by its next append; ids only quoted in a message's
// text are not ids.
func TestWindowSeesOtherWriters(t *testing.T) {
	tests := []struct {
		name  string
		other func(t *testing.T, f *Filer, handle string, ids ...string)
	}{
		{"another process", func(t *testing.T, f *Filer, handle string, ids ...string) {
			h := startHelper(t, "file", "FILER_HOME="+f.Home.Dir, "FILER_HANDLE="+handle, "FILER_IDS="+strings.Join(ids, ","))
			if err := h.Cmd.Wait(); err != nil || !strings.HasPrefix(h.Ready, "filed") {
				t.Fatalf("the other process: %q, %v", h.Ready, err)
			}
		}},
		{"another Filer", func(t *testing.T, f *Filer, handle string, ids ...string) {
			g, _ := newTestFilerIn(t, f.Home.Dir)
			dups(t, g, handle, ids...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			h := "me"
			cached(t, f, h)
			tt.other(t, f, h, "C1", "C2")
			g, _ := newTestFilerIn(t, f.Home.Dir)
			if _, err := g.Append(h, []Line{line("b", h, `quoting {"id":"T1"},"id":"T2"`, "")}); err != nil {
				t.Fatal(err)
			}
			wantDups(t, dups(t, f, h, "C2", "X1", "T1", "T2", "N1", "C1", "N1"), true, true, false, false, false, true, true)
			tt.other(t, f, h, "N1", "N2")
			wantDups(t, dups(t, f, h, "N2", "N3"), true, false)
		})
	}
}

// readLog is an inbox that records the byte ranges read from it.
type readLog struct {
	r     io.ReaderAt
	reads [][2]int64
}

func (l *readLog) ReadAt(p []byte, off int64) (int, error) {
	l.reads = append(l.reads, [2]int64{off, off + int64(len(p))})
	return l.r.ReadAt(p, off)
}

// A kept window reads only the bytes added since it last looked, and the few it
// keeps to recognise the inbox; the ids that leave the window are dropped.
func TestWindowReadsOnlyNewBytes(t *testing.T) {
	path := t.TempDir() + "/inbox.jsonl"
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	n := 0
	grow := func(bytes int64) int64 {
		for end := int64(0); end < bytes; n++ {
			b, _ := line("a", "me", strings.Repeat("x", 200), fmt.Sprintf("L%06d", n)).Encode()
			if _, err := fh.Write(b); err != nil {
				t.Fatal(err)
			}
			end += int64(len(b))
		}
		fi, _ := fh.Stat()
		return fi.Size()
	}
	look := func(w *idWindow, wanted map[string]bool) *readLog {
		t.Helper()
		fi, err := fh.Stat()
		if err != nil {
			t.Fatal(err)
		}
		log := &readLog{r: fh}
		if err := w.advance(log, fi, fi.Size(), wanted); err != nil {
			t.Fatal(err)
		}
		return log
	}
	end := grow(DedupeTail + DedupeTail/2)
	var w idWindow
	if log := look(&w, map[string]bool{"L000000": true}); len(log.reads) != 1 || log.reads[0] != [2]int64{end - DedupeTail, end} || !w.partial {
		t.Fatalf("first look read %v (partial %v), want the window [%d %d)", log.reads, w.partial, end-DedupeTail, end)
	}
	look(&w, nil)
	if w.partial || !w.holds(fmt.Sprintf("L%06d", n-1)) || w.holds("L000000") {
		t.Fatalf("a whole read holds the wrong ids (partial %v, %d ids)", w.partial, len(w.ids))
	}
	oldest := w.order[0].id
	before := end
	end = grow(DedupeTail / 8)
	log := look(&w, nil)
	if want := [2]int64{before - lastLen, end}; len(log.reads) != 1 || log.reads[0] != want {
		t.Fatalf("a kept window read %v, want only %v", log.reads, want)
	}
	if !w.holds(fmt.Sprintf("L%06d", n-1)) || w.holds(oldest) || w.order[0].line <= end-DedupeTail {
		t.Fatalf("after new bytes: newest held %v, oldest %s held %v, first line at %d (window from %d)",
			w.holds(fmt.Sprintf("L%06d", n-1)), oldest, w.holds(oldest), w.order[0].line, end-DedupeTail)
	}
	if len(w.ids) != len(w.order) {
		t.Fatalf("%d ids but %d lines kept; every id is on one line here", len(w.ids), len(w.order))
	}
}

// Whatever makes the inbox other than the one a window was read from, or shorter
// than it, sends the next append back to reading the whole window.
func TestWindowInvalidation(t *testing.T) {
	encoded := func(t *testing.T, h string, ids ...string) string {
		var sb strings.Builder
		for _, id := range ids {
			b, err := line("a", h, "message "+id, id).Encode()
			if err != nil {
				t.Fatal(err)
			}
			sb.Write(b)
		}
		return sb.String()
	}
	tests := []struct {
		name   string
		change func(t *testing.T, f *Filer, h, path string)
		ask    []string
		want   []bool
	}{
		{"cut back below its end", func(t *testing.T, f *Filer, h, path string) {
			text := readFile(t, path)
			if err := os.Truncate(path, int64(len(text)-len(encoded(t, h, "X3")))); err != nil {
				t.Fatal(err)
			}
		}, []string{"X3", "X2"}, []bool{false, true}},
		{"cut back, then grown past its end", func(t *testing.T, f *Filer, h, path string) {
			text := readFile(t, path)
			if err := os.Truncate(path, int64(len(text)-len(encoded(t, h, "X3")))); err != nil {
				t.Fatal(err)
			}
			g, _ := newTestFilerIn(t, f.Home.Dir)
			dups(t, g, h, "Y1", "Y2")
		}, []string{"X3", "Y1", "X2"}, []bool{false, true, true}},
		{"replaced by another file with the same last bytes", func(t *testing.T, f *Filer, h, path string) {
			text := readFile(t, path)
			text = strings.Replace(text, `"X1"`, `"Z1"`, 1) + encoded(t, h, "W1")
			if err := home.WriteAtomic(path, []byte(text)); err != nil {
				t.Fatal(err)
			}
		}, []string{"X1", "Z1", "W1", "X3"}, []bool{false, true, true, true}},
		{"rewritten in place", func(t *testing.T, f *Filer, h, path string) {
			if err := os.WriteFile(path, []byte(encoded(t, h, "Q1", "Q2", "Q3", "Q4", "Q5")), home.FileMode); err != nil {
				t.Fatal(err)
			}
		}, []string{"X1", "Q1", "Q5"}, []bool{false, true, true}},
		{"a dead writer's partial, cut back by another Filer", func(t *testing.T, f *Filer, h, path string) {
			fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(`{"from":"dead","to":"me","repo":"r","msg":"cut","ts":"t","id":"P1"}`)
			fh.Close()
			g, _ := newTestFilerIn(t, f.Home.Dir)
			dups(t, g, h, "G1")
		}, []string{"P1", "G1", "P1"}, []bool{false, true, true}},
		{"a dead writer's partial, cut back by this Filer", func(t *testing.T, f *Filer, h, path string) {
			fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(`{"from":"dead","to":"me","repo":"r","msg":"cut","ts":"t","id":"P1"}`)
			fh.Close()
		}, []string{"P1", "X3", "P1"}, []bool{false, true, true}},
		{"an append of this Filer undone", func(t *testing.T, f *Filer, h, path string) {
			w := writeInbox
			writeInbox = func(f *os.File, b []byte) error {
				f.Write(b[:len(b)-1])
				return errors.New("no space left on device")
			}
			_, err := f.Append(h, []Line{line("a", h, "lost", "U1")})
			writeInbox = w
			if err == nil {
				t.Fatal("the failing write was not reported")
			}
			if _, kept := f.windows.m[path]; kept {
				t.Fatal("the window was kept after an undone append")
			}
		}, []string{"U1", "X3", "U1"}, []bool{false, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newTestFiler(t)
			h := "me"
			path := mustPath(t, f, home.Inbox, h)
			cached(t, f, h)
			tt.change(t, f, h, path)
			wantDups(t, dups(t, f, h, tt.ask...), tt.want...)
			decodeLines(t, readFile(t, path))
		})
	}
}

// The window's edge is where a whole read of the last DedupeTail bytes puts it,
// on every path: a line that starts exactly DedupeTail bytes before the end is
// out (the read cannot tell it from a line that began earlier), one byte later it
// is in.
func TestWindowEdge(t *testing.T) {
	const h = "me"
	base, _ := line("a", h, "", "").Encode()
	// fill is id-less lines of exactly n bytes in all.
	fill := func(t *testing.T, n int64) []Line {
		var out []Line
		for n > 0 {
			k := min(n, 64<<10)
			if rest := n - k; rest > 0 && rest < int64(len(base)) {
				k = n - int64(len(base))
			}
			if k < int64(len(base)) {
				t.Fatalf("cannot fill %d bytes with lines of at least %d", n, len(base))
			}
			out = append(out, line("a", h, strings.Repeat("z", int(k)-len(base)), ""))
			n -= k
		}
		return out
	}
	size := func(t *testing.T, path string) int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, path := range []struct {
		name  string
		looks int // appends with an id by the Filer under test before the edge
	}{{"first look", 0}, {"whole read", 1}, {"new bytes", 2}} {
		for _, tt := range []struct {
			past int64 // how far the end is past edge+DedupeTail
			want bool
		}{{0, false}, {-1, true}, {1, false}} {
			t.Run(fmt.Sprintf("%s/end=edge+tail%+d", path.name, tt.past), func(t *testing.T) {
				f, _ := newTestFiler(t)
				g, _ := newTestFilerIn(t, f.Home.Dir)
				inbox := mustPath(t, f, home.Inbox, h)
				if _, err := g.Append(h, fill(t, 1000)); err != nil {
					t.Fatal(err)
				}
				edge := size(t, inbox)
				end := edge + DedupeTail + tt.past
				wantDups(t, dups(t, g, h, "EDGE"), false)
				// Most of the fill goes in before f looks, so that its last look
				// reads only a few new bytes.
				if _, err := g.Append(h, fill(t, end-4096-size(t, inbox))); err != nil {
					t.Fatal(err)
				}
				for i := range path.looks {
					wantDups(t, dups(t, f, h, fmt.Sprintf("P%d", i)), false)
				}
				if _, err := g.Append(h, fill(t, end-size(t, inbox))); err != nil {
					t.Fatal(err)
				}
				if got := size(t, inbox); got != end {
					t.Fatalf("the inbox is %d bytes, want %d", got, end)
				}
				if w, ok := f.windows.m[inbox]; path.looks == 2 && (!ok || w.partial || end-w.end+lastLen > DedupeTail) {
					t.Fatalf("f would not read only the new bytes: %v %+v", ok, w)
				}
				wantDups(t, dups(t, f, h, "EDGE"), tt.want)
			})
		}
	}
}

// Goroutines sharing one Filer append to two inboxes at once; each retry of a
// line filed before is answered Dup, and every id is filed once.
func TestWindowConcurrentAppends(t *testing.T) {
	const workers, each = 8, 40
	f, _ := newTestFilerIn(t, memDir(t))
	handles := []string{"left", "right"}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Go(func() {
			h := handles[g%len(handles)]
			for i := range each {
				lines := []Line{line("a", h, "new", fmt.Sprintf("g%d-%d", g, i))}
				if i > 0 {
					lines = append(lines, line("a", h, "retry", fmt.Sprintf("g%d-%d", g, i-1)))
				}
				res, err := f.Append(h, lines)
				if err != nil {
					errs <- err
					return
				}
				if res[0].Dup || i > 0 && !res[1].Dup {
					errs <- fmt.Errorf("worker %d append %d answered %+v, want a new line and a Dup", g, i, res)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, h := range handles {
		got := decodeLines(t, readFile(t, mustPath(t, f, home.Inbox, h)))
		seen := map[string]bool{}
		for _, l := range got {
			if seen[l.ID] {
				t.Fatalf("@%s: id %s filed twice", h, l.ID)
			}
			seen[l.ID] = true
		}
		if len(got) != workers/len(handles)*each {
			t.Fatalf("@%s holds %d lines, want %d", h, len(got), workers/len(handles)*each)
		}
	}
}

// A Filer keeps at most maxWindows windows; an inbox whose window was evicted is
// read whole again and still dedupes.
func TestWindowsAreBounded(t *testing.T) {
	f, _ := newTestFilerIn(t, memDir(t))
	for i := range maxWindows + 3 {
		wantDups(t, dups(t, f, fmt.Sprintf("h%03d", i), "A"), false)
	}
	if len(f.windows.m) != maxWindows {
		t.Fatalf("%d windows kept, want %d", len(f.windows.m), maxWindows)
	}
	if _, kept := f.windows.m[mustPath(t, f, home.Inbox, "h000")]; kept {
		t.Fatal("the least recently used window was kept")
	}
	wantDups(t, dups(t, f, "h000", "A", "B"), true, false)
	wantDups(t, dups(t, f, "h001", "A"), true)
}
