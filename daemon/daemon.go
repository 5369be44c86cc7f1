package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sotcomm/sotd/daemon/internal/network"
	"github.com/sotcomm/sotd/daemon/internal/page"
	"github.com/sotcomm/sotd/daemon/internal/regcache"
	"github.com/sotcomm/sotd/daemon/internal/workspace"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/presence"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/topology"
	"github.com/sotcomm/sotd/wire"
)

// Config is what `sotd serve` runs with; zero fields take their defaults.
type Config struct {
	Home   home.Home
	Host   string           // this box's name; default home.SelfHost()
	Socket string           // the endpoint; default Home.Socket(Host)
	Log    *slog.Logger     // default: discard
	Now    func() time.Time // default time.Now
	// HostsPath is hosts.toml's path; default topology.Path(). A missing file
	// makes a standalone hub.
	HostsPath string
	// Rows makes the rows backend at start; default rows.Choose.
	Rows func(h home.Home, host string, opt rows.Options) rows.Backend
	// HTTP is the status page's loopback address; "" takes web.DefaultAddr's
	// choice, HTTPOff runs none.
	HTTP string
}

// Daemon is one box's local endpoint over one comm home.
type Daemon struct {
	cfg  Config
	log  *slog.Logger
	uid  int    // the only OS user served; -1 where the OS has no uids
	user string // that user's name, compared with a hello's os_user; "" when unknown

	// maxBatch caps the lines one append files; 1 turns group commit off, which
	// only the benchmark's per-line baseline does.
	maxBatch int
	// helloWait bounds the wait for a connection's first frame, idleWait a cli
	// connection's silence with nothing in flight, helloHold how long a hello's
	// answer waits for the request that came with it; tests set them.
	helloWait, idleWait, helloHold time.Duration
	// maxConns caps the connections served at once; tests lower it.
	maxConns int
	// dialogEvery is the dialog watch's period (DialogEvery); tests shorten it.
	dialogEvery time.Duration

	net  *network.Network   // this daemon's links, by its role; set by Run before serving
	rows *workspace.Manager // the rows it runs; set by Run before serving
	// netSet is closed once Run has set net and view, so another goroutine (a test, a
	// status reader) may read it after receiving from it.
	netSet chan struct{}
	// filed wakes the wake loop when a line is filed for a handle a row may act
	// as (rowMayAct; buffered: one pass covers every line filed before it runs).
	filed chan struct{}
	// wakeTicker, when set, is the wake loop's ticker (wake.Loop.Ticker): a
	// test's that never ticks shows a filing starts the wake's pass itself.
	wakeTicker func(time.Duration) (<-chan time.Time, func())

	view *page.Page // what the status page shows; set by Run before net
	// The group commit, set by Run before anything is served: batch files what
	// the socket, the page and a link's routing file here, offers what the
	// hub offers this box, under mgr's inbox lock.
	batch, offers *batcher
	mgr           lockManager

	// reg is the registry as last parsed: every read of it here (each filing
	// batch, the wake, the stamper, the directory, the view) goes through it,
	// so a large registry is parsed once a change, not once a reader and tick.
	reg      *regcache.Cache
	rowIndex *regcache.Index // registry.rows' (regrows.go)
}

// Default bounds of group commit.
const (
	maxBatchLines = 256  // lines per append, so one fsync never carries an unbounded write
	maxWaiting    = 1024 // requests waiting per inbox before new ones are refused as busy
)

// New checks cfg and fills its defaults; nothing is touched on disk until Run.
func New(cfg Config) (*Daemon, error) {
	if cfg.Home.Dir == "" {
		return nil, errors.New("daemon: no comm home given")
	}
	if cfg.Host == "" {
		cfg.Host = home.SelfHost()
	}
	if cfg.Socket == "" {
		cfg.Socket = cfg.Home.Socket(cfg.Host)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rows == nil {
		cfg.Rows = func(h home.Home, host string, opt rows.Options) rows.Backend { return rows.Choose(h, host, opt) }
	}
	if cfg.HostsPath == "" {
		if p, err := topology.Path(); err == nil {
			cfg.HostsPath = p
		} else {
			cfg.Log.Warn("no hosts.toml is read, so this daemon is a standalone hub", "err", err)
		}
	}
	d := &Daemon{cfg: cfg, log: cfg.Log, uid: os.Getuid(), maxBatch: maxBatchLines, helloWait: wire.HelloWait, idleWait: idleWait, helloHold: helloHold, maxConns: maxConns, dialogEvery: workspace.DialogEvery, netSet: make(chan struct{}), filed: make(chan struct{}, 1), reg: regcache.New(cfg.Home), rowIndex: regcache.NewIndex(cfg.Home)}
	if u, err := user.Current(); err == nil {
		d.user = u.Username
	} else {
		d.log.Warn("the daemon's own OS user name is unknown, so a hello's os_user is not checked", "err", err)
	}
	return d, nil
}

// Run serves until ctx is cancelled, then stops accepting, answers every request
// already read (letting its batch finish), closes every connection, removes the
// socket and returns nil. An error means the daemon could not start, or a
// service failed fatally (watchRun: it could not put back its socket and locks
// after they were deleted).
//
// Everything the daemon runs is one tree under ctx: the services, the socket's
// connections, each request under its connection's context, and what a request
// sends on (a forward, an offer, a receipts fan-out). What they share is let go
// by the defers below, each after every part started after it has ended: the
// socket last, then the batchers, then the rows' backend, then the links'
// offers and their batcher, once the services (the run/ watch among them) and
// the connections are done.
func (d *Daemon) Run(ctx context.Context) (err error) {
	h := d.cfg.Home
	if err := network.CheckHosts(d.cfg.HostsPath); err != nil {
		return err
	}
	if err := registry.Ensure(h); err != nil {
		return fmt.Errorf("prepare comm home %s: %w", h.Dir, err)
	}
	own, err := filer.OwnManager(h)
	if err != nil {
		d.log.Warn("the comm home's mount could not be read, so its inbox lock is taken to be this machine's own", "home", h.Dir, "manager", own, "err", err)
	}
	pres, err := presence.Hold(h, d.cfg.Host)
	if err != nil {
		return err
	}
	defer pres.Release()
	// The filer keeps the wall clock: its lock waits are real time, whatever
	// clock judges liveness.
	f := filer.New(h)
	f.Manager = own
	f.Log = d.log
	f.Observer = observer{}
	d.view = page.New(page.Config{Home: h, Host: d.cfg.Host, Addr: d.cfg.HTTP, Log: d.log, Now: d.cfg.Now, Src: pageSource{d}, Registry: d.reg.Read})
	d.net = network.New(network.Config{Home: h, Host: d.cfg.Host, HostsPath: d.cfg.HostsPath, Now: d.cfg.Now, Log: d.log, LockWait: f.LockWait, Reg: d.reg, Page: d.view, Endpoint: filing{d}})
	close(d.netSet)
	if err := d.net.OneHubPerFolder(); err != nil {
		return err
	}
	mgr := newLockManager(h, own, d.net.Role().Hub, d.log)
	d.mgr = mgr
	ep, err := listen(d.cfg.Socket, d.cfg.Home, d.log)
	if err != nil {
		return err
	}
	if err := pres.Claim(); err != nil {
		return errors.Join(err, ep.close())
	}
	ctx, lose := context.WithCancel(ctx)
	defer lose()
	var lost error
	defer func() {
		err = errors.Join(lost, ep.close())
		d.log.Info("sotd stopped", "socket", d.cfg.Socket)
	}()
	d.batch = newBatcher(d.maxBatch, maxWaiting, d.log, func(handle string, lines []filer.Line) ([]filer.Result, error) {
		return d.fileBatch(mgr, f, handle, lines, false)
	})
	defer d.batch.wait()
	d.log.Info("sotd serving", "socket", d.cfg.Socket, "home", h.Dir, "host", d.cfg.Host, "pid", os.Getpid(), "lock_manager", own, "role", d.net.Role().String())
	d.rows = workspace.New(h, d.cfg.Host, d.log, d.cfg.Now, d.cfg.Rows(h, d.cfg.Host, rows.Options{Now: d.cfg.Now}))
	d.rows.Share(d.reg.View, d.view.Kick)
	d.rows.Discover()
	defer d.rows.Close()
	// Offers have a committer of their own, so that the own-box check is made
	// once per batch with the registry read the batch makes anyway; its appends
	// and batch's for one inbox take turns at the inbox lock.
	d.offers = newBatcher(d.maxBatch, maxWaiting, d.log, func(handle string, lines []filer.Line) ([]filer.Result, error) {
		return d.fileBatch(mgr, f, handle, lines, true)
	})
	defer d.offers.wait()
	defer d.net.Drain()

	sup := newSupervisor(d.log, lose)
	defer func() { lost = sup.wait() }()
	sup.start(ctx, d.watchRun(ep, pres))
	for _, s := range d.net.Services() {
		sup.start(ctx, service{name: s.Name, run: s.Run, policy: s.Policy})
	}
	d.startRows(ctx, sup, f)
	// A line a client appends itself (route 1) kicks the wake as the daemon's own do.
	sup.start(ctx, service{name: "inbox watch", run: func(ctx context.Context) error {
		return filer.WatchInboxes(ctx, d.cfg.Home.InboxDir(), d.appendedTo)
	}})
	d.startPage(ctx, sup, f)
	d.serve(ctx, ep)
	return nil
}

// serve accepts until ctx ends, then waits for every connection.
func (d *Daemon) serve(ctx context.Context, ep *endpoint) {
	stop := context.AfterFunc(ctx, ep.stop)
	defer stop()
	var conns sync.WaitGroup
	slots := semaphore.NewWeighted(int64(d.maxConns))
	for d.connSlot(ctx, slots) {
		nc, err := ep.accept()
		if err != nil {
			slots.Release(1)
			if ctx.Err() != nil {
				break
			}
			// Out of descriptors and the like: wait a moment rather than spin.
			d.log.Error("accept failed", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		c := newConn(d, nc)
		conns.Go(func() {
			defer slots.Release(1)
			c.serve(ctx)
		})
	}
	conns.Wait()
}

// connSlot takes a place for one more connection, waiting while all maxConns
// are served (the next peer waits in the listen backlog meanwhile); false when
// ctx ends first.
func (d *Daemon) connSlot(ctx context.Context, slots *semaphore.Weighted) bool {
	if slots.TryAcquire(1) {
		return true
	}
	d.log.Warn("the socket serves as many connections as it may; the next waits until one closes", "max", d.maxConns)
	return slots.Acquire(ctx, 1) == nil
}
