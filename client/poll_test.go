package client

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// peakWriter counts what it is given, and samples the heap once a MiB.
type peakWriter struct {
	n, next int
	peak    uint64
	tail    []byte
}

func (w *peakWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n >= w.next {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.peak = max(w.peak, ms.HeapAlloc)
		w.next = w.n + 1<<20
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > 256 {
		w.tail = w.tail[len(w.tail)-256:]
	}
	return len(p), nil
}

// TestPollOfALargeInboxKeepsNoLine: a poll shows an inbox's lines as it reads
// them: its heap stays a small part of the inbox's size, as text and as JSON,
// and every line is shown. Before, the first poll of a 1 GiB inbox held it
// whole, and its lines, at once: 2.2 GB.
func TestPollOfALargeInboxKeepsNoLine(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			s, out := joinedSession(t, "me")
			path, err := s.Home.HandlePath(home.Inbox, "me")
			if err != nil {
				t.Fatal(err)
			}
			const size = 12 << 20 // far past any buffer, and quick under -race
			var b bytes.Buffer
			body := strings.Repeat("x", 900)
			lines := 0
			for b.Len() < size {
				fmt.Fprintf(&b, `{"from":"bob","to":"me","repo":"r","msg":"%s %d","ts":"2026-05-29T18:04:00Z","id":"01J%023d"}`+"\n", body, lines, lines)
				lines++
			}
			if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			b = bytes.Buffer{}
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			w := &peakWriter{}
			s.Stdout = w
			if code := s.Poll(asJSON); code != ExitOK {
				t.Fatalf("poll: %d %s", code, out.String())
			}
			if grew := int64(w.peak) - int64(base.HeapAlloc); grew > size/2 {
				t.Errorf("the poll's heap grew by %d bytes over a %d-byte inbox; want at most half of it (the buffers and the garbage not yet collected are some 3 MB; a poll that kept its lines held more than the inbox)", grew, size)
			}
			last := fmt.Sprintf(" %d", lines-1)
			if asJSON {
				last += `","ts":"2026-05-29T18:04:00Z","id":"01J` + fmt.Sprintf("%023d", lines-1) + `"}]` + "\n"
			} else {
				last += "\n"
			}
			if !bytes.HasSuffix(w.tail, []byte(last)) {
				t.Errorf("the poll's output ends %q, want the last line, ending %q", w.tail, last)
			}
		})
	}
}
