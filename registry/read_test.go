package registry

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
)

// try is what one open of the registry gives in a scripted read.
type try struct {
	openErr error
	data    string
	readErr error // after data: ESTALE even after some bytes
}

type scripted struct {
	data string
	err  error
}

func (s *scripted) Read(p []byte) (int, error) {
	if s.data != "" {
		n := copy(p, s.data)
		s.data = s.data[n:]
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	return 0, io.EOF
}

func (s *scripted) Close() error { return nil }

const good = `{"protocol_version":1,"agents":{"a-box":{"host":"box"}}}`

func TestReadRetriesAFailedRead(t *testing.T) {
	stale := try{data: `{"protocol_version":1,"ag`, readErr: syscall.ESTALE}
	gone := try{openErr: fs.ErrNotExist}
	tests := []struct {
		name       string
		tries      []try
		ok         bool
		missing    bool
		why        string
		wantOpens  int
		wantSleeps time.Duration
	}{
		{"good at once", []try{{data: good}}, true, false, "", 1, 0},
		{"ESTALE after some bytes, twice", []try{stale, stale, {data: good}}, true, false, "", 3, 100 * time.Millisecond},
		{"ESTALE at the open", []try{{openErr: syscall.ESTALE}, {data: good}}, true, false, "", 2, 0},
		{"zero bytes, then good", []try{{}, {data: good}}, true, false, "", 2, 0},
		{"vanished mid-retry is a failed try", []try{stale, gone, gone, {data: good}}, true, false, "", 4, 200 * time.Millisecond},
		{"ESTALE every time", []try{stale, stale, stale, stale}, false, false, "stale file handle (tried 4 times)", 4, 200 * time.Millisecond},
		{"empty every time", []try{{}, {}, {}, {}}, false, false, "is empty (tried 4 times)", 4, 200 * time.Millisecond},
		{"missing at the first open", []try{gone}, false, true, "there is no registry", 1, 0},
		{"corrupt bytes are never retried", []try{{data: "{not json"}, {data: good}}, false, false, "is not JSON", 1, 0},
		{"no .agents is never retried", []try{{data: `{"x":1}`}, {data: good}}, false, false, "has no .agents", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			restoreFS(t)
			var opens, dirOpens int
			var slept time.Duration
			fsys.sleep = func(d time.Duration) { slept += d }
			fsys.openDir = func(p string) (io.Closer, error) {
				dirOpens++
				return os.Open(p)
			}
			fsys.open = func(_ home.Home, p string) (io.ReadCloser, error) {
				tr := tc.tries[opens]
				opens++
				if tr.openErr != nil {
					return nil, &fs.PathError{Op: "open", Path: p, Err: tr.openErr}
				}
				return &scripted{tr.data, tr.readErr}, nil
			}
			d, err := Read(h)
			if tc.ok != (err == nil) {
				t.Fatalf("Read = %v, %v", d, err)
			}
			if tc.ok && d.Agents["a-box"].Host != "box" {
				t.Errorf("read the wrong registry: %+v", d)
			}
			if !tc.ok {
				if !errors.Is(err, ErrUnreadable) || errors.Is(err, fs.ErrNotExist) != tc.missing {
					t.Errorf("error %v: unreadable %v, missing %v (want %v)", err, errors.Is(err, ErrUnreadable), errors.Is(err, fs.ErrNotExist), tc.missing)
				}
				if !strings.Contains(err.Error(), tc.why) {
					t.Errorf("error %q does not say %q", err, tc.why)
				}
			}
			if opens != tc.wantOpens || dirOpens != opens-1 || slept != tc.wantSleeps {
				t.Errorf("opens %d, folder opens %d, slept %v; want %d, %d, %v", opens, dirOpens, slept, tc.wantOpens, tc.wantOpens-1, tc.wantSleeps)
			}
		})
	}
}

// A real fault: a directory where the registry should be fails every read, and
// the retries run against the real file system.
func TestReadOfADirectoryIsUnreadableAfterRetries(t *testing.T) {
	h := newHome(t)
	if err := os.Remove(h.Registry()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.Registry(), 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Read(h)
	if !errors.Is(err, ErrUnreadable) || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "tried 4 times") {
		t.Fatalf("Read of a directory = %v", err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 2*time.Second {
		t.Errorf("the retries took %v, want about 200 ms", el)
	}
}

func TestLookupTellsPresentAbsentUnreadable(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, good)
	if e, ok, err := Lookup(h, "a-box"); err != nil || !ok || e.Host != "box" {
		t.Errorf("present row: %+v %v %v", e, ok, err)
	}
	if e, ok, err := Lookup(h, "nobody"); err != nil || ok || e != nil {
		t.Errorf("absent row: %+v %v %v", e, ok, err)
	}
	writeRegistry(t, h, `{"agents":[]}`)
	if _, ok, err := Lookup(h, "a-box"); !errors.Is(err, ErrUnreadable) || ok {
		t.Errorf("unreadable must never read as absent: %v %v", ok, err)
	}
}
