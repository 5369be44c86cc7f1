package daemon

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sotcomm/sotd/events"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/web"
	"github.com/sotcomm/sotd/wire"
)

// The daemon is the status page's backend.
var _ web.Backend = (*Daemon)(nil)

// watchEvery is how often the registry's mtime and size and the rows are
// looked at for changes the page shows.
const watchEvery = 1500 * time.Millisecond

// webView is the page's picture kept in memory, so a snapshot, taken with the
// bus held, reads no file. Every change is published by the one that makes it.
type webView struct {
	bus  *events.Bus
	host string
	now  func() time.Time

	// pub makes a change and its event one step, so two changes to one handle
	// publish in the order they were made. mu is let go before publishing:
	// Snapshot takes it with the bus held, so holding it into Publish would
	// invert that order.
	pub sync.Mutex

	mu      sync.Mutex
	entries map[string]registry.Entry // the registry's agents as last read
	unread  map[string]int
	live    map[string]bool // as last published, so a heartbeat going stale is an event
	rows    []web.Row
	links   map[string]web.Link
	remote  map[string]wire.ViewEntry // other boxes' entries, as the network view holds them (netpage.go)
	netRows map[string]wire.ViewRow   // other boxes' rows, by Key, ditto
	boxes   web.Boxes

	convos *convoBook // this home's conversations (conversations.go)
}

func newWebView(host string, now func() time.Time) *webView {
	bus := events.New()
	return &webView{bus: bus, convos: newConvoBook(bus, now), host: host, now: now, entries: map[string]registry.Entry{}, unread: map[string]int{}, live: map[string]bool{}, links: map[string]web.Link{}, remote: map[string]wire.ViewEntry{}, netRows: map[string]wire.ViewRow{}, boxes: web.Boxes{Known: true, List: []web.BoxState{}}}
}

// WorkspaceList answers workspace.list as the daemon socket does.
func (d *Daemon) WorkspaceList(context.Context) (any, error) {
	return d.rows.list()
}

// RegistryList answers registry.list as the daemon socket does.
func (d *Daemon) RegistryList(context.Context) (any, error) { return d.registryList() }

// Events is the bus the daemon publishes the page's changes on.
func (d *Daemon) Events() *events.Bus { return d.view.bus }

// Snapshot is the page's whole picture, from memory.
func (d *Daemon) Snapshot() web.View {
	v := d.view
	convs, rates := v.convos.snapshot()
	v.mu.Lock()
	defer v.mu.Unlock()
	out := web.View{Host: v.host, Agents: []web.Agent{}, Rows: slices.Clone(v.rows), RemoteRows: []web.Row{}, Links: []web.Link{}, Boxes: v.boxes, Conversations: convs, MailRates: rates}
	if out.Rows == nil {
		out.Rows = []web.Row{}
	}
	for _, k := range slices.Sorted(maps.Keys(v.netRows)) {
		out.RemoteRows = append(out.RemoteRows, pageRow(v.netRows[k]))
	}
	now := v.now()
	for _, h := range slices.Sorted(maps.Keys(v.entries)) {
		out.Agents = append(out.Agents, v.agentLocked(h, now))
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

func (v *webView) agentLocked(handle string, now time.Time) web.Agent {
	e := v.entries[handle]
	a := web.Agent{Handle: handle, Host: e.Host, Live: registry.Live(e.LastSeen, now), State: e.State, Summary: e.Summary, Expertise: e.Expertise, Unread: v.unread[handle], Local: true}
	if t, err := time.Parse(time.RFC3339, e.StatusAt); err == nil {
		a.StatusAt = t
	}
	return a
}

// setUnread records handle's count and publishes it if it moved.
func (v *webView) setUnread(handle string, n int) {
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
func (v *webView) handles() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Collect(maps.Keys(v.entries))
}

// setLink records a link's health and publishes it.
func (v *webView) setLink(l web.Link) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	v.links[l.Peer] = l
	v.mu.Unlock()
	v.bus.Publish(web.EvLink, l)
}

// setRows publishes workspace.changed when the rows or their phases moved.
func (v *webView) setRows(rs []web.Row) {
	v.pub.Lock()
	defer v.pub.Unlock()
	v.mu.Lock()
	same := slices.EqualFunc(v.rows, rs, sameRow)
	v.rows = rs
	v.mu.Unlock()
	if !same {
		v.bus.Publish(web.EvWorkspaceChanged, web.WorkspaceChanged{Rows: slices.Clone(rs)})
	}
}

// setAgents takes the registry's agents as read and publishes agent.state for
// each one that joined, changed, left or went live or stale.
func (v *webView) setAgents(doc *registry.Doc) {
	v.pub.Lock()
	defer v.pub.Unlock()
	now := v.now()
	var changed []web.Agent
	v.mu.Lock()
	if doc != nil {
		for h, e := range v.entries {
			if _, ok := doc.Agents[h]; !ok {
				delete(v.entries, h)
				delete(v.live, h)
				changed = append(changed, web.Agent{Handle: h, Host: e.Host, Live: false, Unread: v.unread[h]})
			}
		}
		for h, e := range doc.Agents {
			old, ok := v.entries[h]
			v.entries[h] = *e
			if !ok || old.Host != e.Host || old.State != e.State || old.Summary != e.Summary || old.StatusAt != e.StatusAt {
				v.live[h] = registry.Live(e.LastSeen, now)
				changed = append(changed, v.agentLocked(h, now))
			}
		}
	}
	for h := range v.entries {
		if live := registry.Live(v.entries[h].LastSeen, now); live != v.live[h] {
			v.live[h] = live
			changed = append(changed, v.agentLocked(h, now))
		}
	}
	v.mu.Unlock()
	for _, a := range changed {
		v.bus.Publish(web.EvAgentState, a)
	}
}
