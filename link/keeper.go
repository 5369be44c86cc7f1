package link

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/backoff"
	"github.com/sotcomm/sotd/metrics"
	"github.com/sotcomm/sotd/wire"
)

// Reconnect schedule (Relink).
const (
	FirstBackoff = 2 * time.Second  // the wait after a link ends or a dial fails, before jitter
	MaxBackoff   = 60 * time.Second // doubling stops here

	dialWait = QUICWait + wire.HelloWait + wire.HelloWait // QUIC, then WebSocket, each with its hello
)

// Relink is a guest's schedule for the link to its hub: the Keeper makes one
// attempt per run, and its supervisor runs it again on this policy. A link
// that came up (the hub is there: a stateless reset that ends it says the same)
// starts the schedule again, so relinking after a hub's restart never waits
// longer than after the one before; equal jitter spreads a hub's guests out.
var Relink = backoff.Policy{First: FirstBackoff, Max: MaxBackoff, Jitter: true, Level: slog.LevelWarn}

// Keeper keeps a guest linked to its hub: a service whose Run dials and holds
// the link while it is up. It makes one attempt per run; whoever runs it runs it
// again on the Relink policy.
type Keeper struct {
	Config Config
	// Resolve says where to link and as whom; it runs before every attempt so a
	// changed hosts.toml or key is picked up.
	Resolve func() (Target, error)
	// Up, when set, gets each new link before Current shows it (the guest sends
	// its directory there).
	Up func(c *Conn)
	// Down, when set, gets each link once it has ended and closed, on Run's
	// goroutine, so nothing of it outlives Run.
	Down func(c *Conn)

	mu      sync.Mutex
	cur     *Conn
	lastErr error // why the last attempt ended
	linked  bool  // a link was up before, so the next one is a reconnect
}

// Current is the link while one is up, else nil.
func (k *Keeper) Current() *Conn {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur
}

// LastError is why the last attempt ended: the dial that failed, or the link
// that went down. It is nil until one has.
func (k *Keeper) LastError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastErr
}

func (k *Keeper) setCurrent(c *Conn) {
	k.mu.Lock()
	k.cur = c
	k.mu.Unlock()
}

// Run makes one attempt: it dials and, once linked, holds the link until it
// ends or ctx does. It returns nil once ctx has ended, else why there is no
// link now.
func (k *Keeper) Run(ctx context.Context) error {
	err := k.hold(ctx)
	if ctx.Err() != nil {
		return nil
	}
	k.mu.Lock()
	k.lastErr = err
	k.mu.Unlock()
	return err
}

func (k *Keeper) hold(ctx context.Context) error {
	cfg := k.Config.withDefaults()
	t, err := k.Resolve()
	if err != nil {
		return fmt.Errorf("where to link: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, dialWait)
	c, err := Dial(dctx, cfg, t)
	cancel()
	if err != nil {
		return err
	}
	if k.linked {
		metrics.LinkReconnect(c.Box())
	}
	k.linked = true
	cfg.Log.Info("linked to the hub", "hub", c.Box(), "transport", c.Transport(), "remote", c.Remote())
	if k.Up != nil {
		k.Up(c)
	}
	k.setCurrent(c)
	select {
	case <-c.Done():
	case <-ctx.Done():
	}
	k.setCurrent(nil)
	c.Close()
	if k.Down != nil {
		k.Down(c)
	}
	return backoff.Healthy(c.Err())
}
