package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/link"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/wire"
)

// network is a hub and its guests on 127.0.0.1, each box with its own home,
// hosts.toml and SOT_SELF_HOST, every daemon a real `sotd serve`.
type network struct {
	t       testing.TB
	hub     *box
	boxes   map[string]*box
	daemons map[string]*daemon
	keys    map[string]string // box -> its fingerprint, from `sotd id`
	quic    string            // the hub's QUIC address
	ws      string            // the hub's WebSocket address
}

// onOwnDisk skips a cross-box test where a test home is not on this machine's
// own disk: a guest with its own folder is then no folder's hub, and nobody
// would record that folder's lock manager.
func onOwnDisk(t testing.TB) {
	t.Helper()
	own, err := machine.OwnDisk(os.TempDir())
	if err != nil || !own {
		t.Skipf("the test homes under %s are not on this machine's own disk (%v), so a guest's own folder has no hub", os.TempDir(), err)
	}
}

// newNetwork makes the boxes and their keys; nothing runs yet.
func newNetwork(t testing.TB, guests ...string) *network {
	t.Helper()
	onOwnDisk(t)
	n := &network{t: t, boxes: map[string]*box{}, daemons: map[string]*daemon{}, keys: map[string]string{}, quic: testutil.FreeUDP(t), ws: testutil.FreeTCP(t)}
	n.hub = n.add("hb")
	for _, g := range guests {
		n.add(g)
	}
	return n
}

// quickBeats gives every box's daemon a heartbeat of 2 s, so a link whose peer
// was killed is dead after 6 s rather than 15: for a test that waits for a
// death. A test of what happens before the dead-link judge speaks (a send
// failing fast) keeps the production beat.
func (n *network) quickBeats() {
	for _, b := range n.boxes {
		b.extra = append(b.extra, link.EnvHeartbeat+"=2")
	}
}

func (n *network) add(name string) *box {
	b := newBox(n.t, name)
	n.boxes[name] = b
	n.keys[name] = b.id()
	return b
}

// hostLine is one guest's table in a hosts.toml.
type hostLine struct {
	name     string
	key      string // "" for the box's own key
	frontend bool   // frontend = true; every guest listed runs a daemon, so each should link
}

// hostsTOML is a hosts.toml naming hb as hub at addr (QUIC) and ws
// (WebSocket), and the guests given.
func (n *network) hostsTOML(addr, ws string, guests ...hostLine) string {
	var s strings.Builder
	fmt.Fprintf(&s, "hub = \"hb\"\n\n[host.hb]\ndaemon = true\naddr = %q\nws_addr = %q\nkey = %q\n", addr, ws, n.keys["hb"])
	for _, g := range guests {
		key := g.key
		if key == "" {
			key = n.keys[g.name]
		}
		fmt.Fprintf(&s, "\n[host.%s]\ndaemon = true\nfrontend = %t\nkey = %q\n", g.name, g.frontend, key)
	}
	return s.String()
}

// guests is each named box as a frontend guest under its own key.
func guests(names ...string) []hostLine {
	ls := make([]hostLine, len(names))
	for i, g := range names {
		ls[i] = hostLine{name: g, frontend: true}
	}
	return ls
}

// linkAll gives every box the same hosts.toml: hb the hub at its real
// addresses, the others frontend guests.
func (n *network) linkAll(names ...string) {
	text := n.hostsTOML(n.quic, n.ws, guests(names...)...)
	n.writeHosts("hb", text)
	for _, g := range names {
		n.writeHosts(g, text)
	}
}

// writeHosts gives box name its own copy of hosts.toml.
func (n *network) writeHosts(name, text string) {
	n.t.Helper()
	if err := os.WriteFile(n.boxes[name].hosts, []byte(text), 0o600); err != nil {
		n.t.Fatal(err)
	}
}

// start starts the hub, then each named guest, and waits until the hub has
// admitted each one's link.
func (n *network) start(guests ...string) {
	n.t.Helper()
	n.startHub()
	for _, g := range guests {
		n.daemons[g] = n.boxes[g].serve()
	}
	for _, g := range guests {
		n.waitLinked(g)
	}
}

func (n *network) startHub() {
	n.t.Helper()
	d := n.hub.serve()
	// A daemon killed with SIGKILL leaves its socket behind, so serve's wait
	// for the socket proves nothing; and guests started before the listener
	// is bound would wait a relink for it. The listener's own line in this
	// daemon's log (no other process writes there) says both.
	waitLog(n.t, d, `msg="links listening"`, 10*time.Second)
	n.daemons["hb"] = d
}

// waitLinked waits until the hub's link.status has g's link up. After g or the
// hub restarted, that is the new link once the hub has seen the old one end.
func (n *network) waitLinked(g string) {
	n.t.Helper()
	n.waitLink(g, true, 30*time.Second)
}

// waitLink waits until the hub's link.status has g's link up or down, and
// returns it.
func (n *network) waitLink(g string, up bool, within time.Duration) wire.LinkState {
	n.t.Helper()
	var last wire.LinkStatus
	var got wire.LinkState
	if !testutil.Within(within, func() bool {
		st, err := n.hub.linkStatus()
		last = st
		i := slices.IndexFunc(st.Links, func(l wire.LinkState) bool { return l.Box == g })
		if err != nil || i < 0 {
			return false
		}
		got = st.Links[i]
		return got.Up == up
	}) {
		n.t.Fatalf("the hub's link.status did not have %s up=%v within %s: %+v\nthe hub's log:\n%s", g, up, within, last, n.daemons["hb"].logs.String())
	}
	return got
}

// linkStatus asks b's daemon for its links: an error when none answers.
func (b *box) linkStatus() (wire.LinkStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, b.socket(), wire.Hello{Role: wire.RoleCLI, Host: b.host, Protocol: wire.Protocol})
	if err != nil {
		return wire.LinkStatus{}, err
	}
	defer c.Close()
	var st wire.LinkStatus
	err = c.Call(ctx, wire.OpLinkStatus, struct{}{}, &st)
	return st, err
}

// killHub ends the hub with SIGKILL: it tells no guest anything.
func (n *network) killHub() {
	n.daemons["hb"].kill()
}

// kill ends a daemon with SIGKILL and waits for it.
func (d *daemon) kill() {
	d.stopped.Do(func() {
		d.cmd.Process.Signal(syscall.SIGKILL)
		err := <-d.done
		d.done <- err
	})
}

// waitLog waits until d's log holds sub.
func waitLog(t testing.TB, d *daemon, sub string, within time.Duration) {
	t.Helper()
	if !testutil.Within(within, func() bool { return d.logs.Contains(sub) }) {
		t.Fatalf("the daemon's log did not say %s within %s:\n%s", sub, within, d.logs.String())
	}
}

// id runs `sotd id` on b and returns the fingerprint: the last field of the
// last line.
func (b *box) id() string {
	b.t.Helper()
	out := strings.Fields(b.must("", "id"))
	if len(out) == 0 || !strings.HasPrefix(out[len(out)-1], "ed25519:") {
		b.t.Fatalf("sotd id printed %q", out)
	}
	return out[len(out)-1]
}

// dial opens a wire client to b's daemon, as a sender's `sotd send` does.
func (b *box) dial(from string) *wire.Client {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // fails only a daemon that never answers
	defer cancel()
	c, err := wire.Dial(ctx, b.socket(), wire.Hello{Role: wire.RoleCLI, Host: b.host, Name: from, Protocol: wire.Protocol})
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { c.Close() })
	return c
}

// inboxIDs counts the lines of handle's inbox on b by message id.
func (b *box) inboxIDs(handle string) map[string]int {
	b.t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.home, "inbox", handle+".jsonl"))
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		b.t.Fatal(err)
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		b.t.Fatalf("@%s's inbox on %s does not end with a whole line", handle, b.host)
	}
	ids := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			b.t.Fatalf("a line of @%s's inbox on %s is not JSON: %v: %q", handle, b.host, err, sc.Text())
		}
		ids[l.ID]++
	}
	return ids
}

// tcpProxy relays TCP connections to target; cut drops every connection and
// stops listening, resume listens again on the same address.
type tcpProxy struct {
	t      testing.TB
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func startProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]struct{}{}}
	p.listen("127.0.0.1:0")
	p.addr = p.ln.Addr().String()
	t.Cleanup(func() {
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *tcpProxy) listen(addr string) {
	p.t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.relay(c) })
		}
	})
}

func (p *tcpProxy) relay(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, up) {
		return
	}
	var both sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	both.Go(func() { pipe(up, c) })
	both.Go(func() { pipe(c, up) })
	both.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// track adds a relayed pair, unless the proxy was cut meanwhile.
func (p *tcpProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

func (p *tcpProxy) resume() { p.listen(p.addr) }
