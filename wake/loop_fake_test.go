package wake

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/screen"
)

// fakeRow is a Claude-style screen in memory, or a Codex-style one for a Codex
// row: typed text echoes into the box and Enter submits it above the box, as
// both agents' prompts do.
type fakeRow struct {
	row     Row
	glyph   string // "❯" unless set
	box     string
	history []string
	busy    bool // the spinner above the box redraws at every look
	spin    int
	writes  []string
	looks   int
	failIn  int // fail this many Input calls
	noEcho  int // this many looks do not yet show typed text
	pending string
	blind   error // what a look answers instead of a screen
	// changed, when set, is when the screen says its rows and cursor last
	// changed, as the PTY backend's screens say it (screen.Screen's Changed).
	changed time.Time
}

func (f *fakeRow) screen() *screen.Screen {
	s := f.drawn()
	if !f.changed.IsZero() {
		s.Changed = make([]time.Time, len(s.Lines))
		for i := range s.Changed {
			s.Changed[i] = f.changed
		}
		s.CursorMoved = f.changed
	}
	return s
}

func (f *fakeRow) drawn() *screen.Screen {
	if f.row.Agent == rows.Codex {
		return f.codexScreen()
	}
	glyph := f.glyph
	if glyph == "" {
		glyph = "❯"
	}
	hist := f.history
	if len(hist) > 3 {
		hist = hist[len(hist)-3:]
	}
	lines := append([]string{"fake claude"}, hist...)
	for len(lines) < 4 {
		lines = append(lines, "")
	}
	status := ""
	if f.busy {
		f.spin++
		status = fmt.Sprintf("✻ Working… (%ds)", f.spin)
	}
	lines = append(lines, status, line80, glyph+nb+f.box, line80, "  ? for shortcuts")
	return screen.FromText(lines, 80, 10, 6, 2+screen.TextWidth(f.box))
}

// codexScreen draws the row as Codex 0.171 does: the composer between blank
// rows, the footer below, the status line above while busy.
func (f *fakeRow) codexScreen() *screen.Screen {
	lines := append([]string{"fake codex"}, f.history...)
	status := ""
	if f.busy {
		f.spin++
		status = fmt.Sprintf("• Working (%ds • esc to interrupt)", f.spin)
	}
	lines = append(lines, status, "", codexGlyph+" "+f.box, "", "  gpt-5 default · ~/proj")
	return screen.FromText(lines, 80, len(lines), len(lines)-3, 2+screen.TextWidth(f.box))
}

// fakeRows is the daemon's rows; it is safe for the Run test's goroutine.
type fakeRows struct {
	mu    sync.Mutex
	rows  []*fakeRow
	lists int // passes that listed the rows
}

func (r *fakeRows) add(f *fakeRow) *fakeRow {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, f)
	return f
}

func (r *fakeRows) List() []Row {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lists++
	out := make([]Row, len(r.rows))
	for i, f := range r.rows {
		out[i] = f.row
	}
	return out
}

func (r *fakeRows) find(id string) (*fakeRow, error) {
	for _, f := range r.rows {
		if f.row.ID == id {
			return f, nil
		}
	}
	return nil, errors.New("no such row")
}

func (r *fakeRows) Screen(id string) (*screen.Screen, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := r.find(id)
	if err != nil {
		return nil, err
	}
	f.looks++
	if f.blind != nil {
		return nil, f.blind
	}
	if f.noEcho > 0 {
		f.noEcho--
	} else {
		f.box += f.pending
		f.pending = ""
	}
	return f.screen(), nil
}

func (r *fakeRows) Input(id string, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := r.find(id)
	if err != nil {
		return err
	}
	if f.failIn > 0 {
		f.failIn--
		return errors.New("the terminal refused the write")
	}
	f.writes = append(f.writes, string(data))
	for _, c := range string(data) {
		if c == '\r' {
			f.box += f.pending
			f.history = append(f.history, "> "+f.box)
			f.box, f.pending = "", ""
			continue
		}
		f.pending += string(c)
	}
	return nil
}

func (f *fakeRow) wrote() string { return strings.Join(f.writes, "|") }

// inboxes is Loop.Unread and Loop.Entry over maps.
type inboxes struct {
	mu      sync.Mutex
	unread  map[string]int
	batch   map[string]string
	busy    map[string]bool
	fail    map[string]error
	entries map[string]*registry.Entry
	regErr  error
	counts  int
}

func newInboxes() *inboxes {
	return &inboxes{unread: map[string]int{}, batch: map[string]string{}, busy: map[string]bool{},
		fail: map[string]error{}, entries: map[string]*registry.Entry{}}
}

// mail files n more lines for handle: a new batch.
func (in *inboxes) mail(handle string, n int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.unread[handle] += n
	in.batch[handle] = fmt.Sprintf("batch-%s-%d", handle, in.unread[handle])
}

func (in *inboxes) read(handle string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.unread[handle] = 0
}

func (in *inboxes) Unread(handle string) (int, string, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.counts++
	if in.busy[handle] {
		return 0, "", fmt.Errorf("the inbox for @%s is being written: %w", handle, filer.ErrBusy)
	}
	if err := in.fail[handle]; err != nil {
		return 0, "", err
	}
	return in.unread[handle], in.batch[handle], nil
}

func (in *inboxes) Entry(handle string) (*registry.Entry, bool, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.regErr != nil {
		return nil, false, in.regErr
	}
	e, ok := in.entries[handle]
	return e, ok, nil
}
