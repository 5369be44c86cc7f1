package page

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/viewdiff"
	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// The page is the web server's backend.
var (
	_ web.Backend     = (*Page)(nil)
	_ web.PageActions = (*Page)(nil)
)

// WatchEvery is how often the registry's mtime and size and the rows are
// looked at for changes the page shows.
const WatchEvery = 1500 * time.Millisecond

// Page is the status page's model: its picture kept in memory, so a snapshot,
// taken with the bus held, reads no file, and the watch that keeps it current.
// Every change is published by the one that makes it.
type Page struct {
	cfg  Config
	bus  *events.Bus
	host string
	now  func() time.Time
	kick chan struct{} // asks the watch to look now

	// pub makes a change and its event one step, so two changes to one handle
	// publish in the order they were made. mu is let go before publishing:
	// Snapshot takes it with the bus held, so holding it into Publish would
	// invert that order.
	pub sync.Mutex

	mu      sync.Mutex
	entries map[string]registry.Entry // the registry's agents as last read
	unread  map[string]int
	live    map[string]bool // as last published, so a heartbeat going stale is an event
	rows    []wire.ViewRow  // this box's rows, as the network view carries them
	links   map[string]web.Link
	remote  map[string]wire.ViewEntry // other boxes' entries, as the network view holds them (netpage.go)
	netRows map[string]wire.ViewRow   // other boxes' rows, by Key, ditto
	boxes   web.Boxes

	convos *convoBook // this home's conversations (conversations.go)
}

// Source is what the page reads of its box's daemon and asks of it: the
// answers of the socket's own ops, so the page says what the socket says.
type Source interface {
	// Rows answers workspace.list.
	Rows() (wire.WorkspaceList, error)
	// Registry answers registry.list.
	Registry() (any, error)
	// Screen answers pty.screen for one of this box's rows.
	Screen(id string) (any, error)
	// Send files req as comm.file does, by the route a session's send on
	// this box takes.
	Send(ctx context.Context, req wire.CommFile) (any, error)
	// Network is the other boxes as the network view holds them; false when
	// the daemon has no network yet.
	Network() (Network, bool)
}

// Network is the other boxes' part of the page.
type Network struct {
	Remote map[string]wire.ViewEntry // their entries, by handle
	Rows   map[string]wire.ViewRow   // their rows, by Key
	Boxes  web.Boxes
	Down   map[string]string // a link with no connection to record, and why
}

// Config is what a page serves from.
type Config struct {
	Home home.Home
	Host string
	Addr string // the loopback address; "" takes web.DefaultAddr's choice
	Log  *slog.Logger
	Now  func() time.Time
	Src  Source
	// Registry reads the registry as registry.Read does: the daemon's cache
	// of its last parse, so a change of one row is not a parse of every row
	// here too; nil reads the file.
	Registry func() (*registry.Doc, error)
}

// New makes a page; Watch keeps it current and Serve serves it.
func New(cfg Config) *Page {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		h := cfg.Home
		cfg.Registry = func() (*registry.Doc, error) { return registry.Read(h) }
	}
	bus := events.New()
	v := &Page{cfg: cfg, kick: make(chan struct{}, 1), bus: bus, host: cfg.Host, now: cfg.Now, entries: map[string]registry.Entry{}, unread: map[string]int{}, live: map[string]bool{}, links: map[string]web.Link{}, remote: map[string]wire.ViewEntry{}, netRows: map[string]wire.ViewRow{}, boxes: web.Boxes{Known: true, List: []web.BoxState{}}}
	v.convos = newConvoBook(bus, cfg.Now, v.boxOf)
	return v
}

// WorkspaceList answers workspace.list as the daemon socket does.
func (v *Page) WorkspaceList(context.Context) (any, error) { return v.cfg.Src.Rows() }

// RegistryList answers registry.list as the daemon socket does.
func (v *Page) RegistryList(context.Context) (any, error) { return v.cfg.Src.Registry() }

// Events is the bus the page's changes are published on.
func (v *Page) Events() *events.Bus { return v.bus }

// Snapshot is the page's whole picture, from memory.
func (v *Page) Snapshot() web.View {
	convs, rates := v.convos.snapshot()
	v.mu.Lock()
	defer v.mu.Unlock()
	out := web.View{Host: v.host, Agents: []web.Agent{}, Rows: pageRows(v.rows), RemoteRows: []web.Row{}, Links: []web.Link{}, Boxes: v.boxes, Conversations: convs, MailRates: rates}
	for _, k := range slices.Sorted(maps.Keys(v.netRows)) {
		out.RemoteRows = append(out.RemoteRows, pageRow(v.netRows[k]))
	}
	live := registry.LiveAt(v.now())
	for _, h := range slices.Sorted(maps.Keys(v.entries)) {
		out.Agents = append(out.Agents, v.agentLocked(h, live))
	}
	for _, h := range slices.Sorted(maps.Keys(v.remote)) {
		if _, local := v.entries[h]; !local {
			out.Agents = append(out.Agents, remoteAgent(v.remote[h]))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(v.links)) {
		out.Links = append(out.Links, v.links[p])
	}
	return out
}

func (v *Page) agentLocked(handle string, live registry.Cutoff) web.Agent {
	e := v.entries[handle]
	a := web.Agent{Handle: handle, Host: e.Host, Live: live.Live(e.LastSeen), State: e.State, Summary: e.Summary, Expertise: e.Expertise, Unread: v.unread[handle], Local: true}
	if t, err := time.Parse(time.RFC3339, e.StatusAt); err == nil {
		a.StatusAt = t
	}
	return a
}

// setUnread records handle's count and publishes it if it moved.
func (v *Page) setUnread(handle string, n int) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	old, seen := v.unread[handle]
	v.unread[handle] = n
	v.mu.Unlock()
	if !seen || old != n {
		v.bus.Publish(web.EvUnread, web.Unread{Handle: handle, Count: n})
	}
}

// handles lists the registry's agents as last read.
func (v *Page) handles() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.AppendSeq(make([]string, 0, len(v.entries)), maps.Keys(v.entries))
}

// SetLink records a link's health and publishes it.
func (v *Page) SetLink(l web.Link) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	v.links[l.Peer] = l
	v.mu.Unlock()
	v.bus.Publish(web.EvLink, l)
}

// setRows publishes workspace.changed when the rows or their phases moved.
func (v *Page) setRows(rs []wire.ViewRow) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	same := slices.EqualFunc(v.rows, rs, viewdiff.SameViewRow)
	v.rows = rs
	v.mu.Unlock()
	if !same {
		v.bus.Publish(web.EvWorkspaceChanged, web.WorkspaceChanged{Rows: pageRows(rs)})
	}
}

// setAgents takes the registry's agents as read and publishes agent.state for
// each one that joined, changed, left or went live or stale.
func (v *Page) setAgents(doc *registry.Doc) {
	v.pub.Lock()
	defer v.pub.Unlock()
	live := registry.LiveAt(v.now())
	var changed []web.Agent
	regroup := false // a handle's box as boxOf names it may have changed
	v.mu.Lock()
	if doc != nil {
		for h, e := range v.entries {
			if _, ok := doc.Agents[h]; !ok {
				delete(v.entries, h)
				delete(v.live, h)
				changed = append(changed, web.Agent{Handle: h, Host: e.Host, Live: false, Unread: v.unread[h]})
				regroup = true
			}
		}
		for h, e := range doc.Agents {
			old, ok := v.entries[h]
			v.entries[h] = *e
			regroup = regroup || !ok || old.Host != e.Host
			if !ok || old.Host != e.Host || old.State != e.State || old.Summary != e.Summary || old.StatusAt != e.StatusAt {
				v.live[h] = live.Live(e.LastSeen)
				changed = append(changed, v.agentLocked(h, live))
			}
		}
	}
	for h := range v.entries {
		if ok := live.Live(v.entries[h].LastSeen); ok != v.live[h] {
			v.live[h] = ok
			changed = append(changed, v.agentLocked(h, live))
		}
	}
	v.mu.Unlock()
	for _, a := range changed {
		v.bus.Publish(web.EvAgentState, a)
	}
	if regroup {
		v.convos.regroupRates()
	}
}
