package link

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/ctxsleep"
	"github.com/sotcomm/sotd/metrics"
)

// Reconnect schedule.
const (
	FirstBackoff = 2 * time.Second  // the wait after a link ends or a dial fails
	MaxBackoff   = 60 * time.Second // doubling stops here
	ResetAfter   = 60 * time.Second // a link up this long starts the schedule again
	MaxJitter    = time.Second      // added to every wait, so guests of one hub spread out

	dialWait = QUICWait + helloWait + helloWait // QUIC, then WebSocket, each with its hello
)

// backoff is the wait before the next attempt.
type backoff struct{ cur time.Duration }

// next is the wait after an attempt whose link stayed up for up (0 when none
// came up): FirstBackoff after a link that stayed up ResetAfter, else double the
// last wait, at most MaxBackoff.
func (b *backoff) next(up time.Duration) time.Duration {
	if b.cur == 0 || up >= ResetAfter {
		b.cur = FirstBackoff
	} else {
		b.cur = min(2*b.cur, MaxBackoff)
	}
	return b.cur
}

// Keeper keeps a guest linked to its hub: a service whose Run dials, holds the
// link while it is up, and dials again on the schedule above.
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

	Now    func() time.Time                                 // default time.Now
	Sleep  func(ctx context.Context, d time.Duration) error // default: a timer, ended by ctx
	Jitter func() time.Duration                             // default: uniform in [0, MaxJitter)

	mu      sync.Mutex
	cur     *Conn
	lastErr error // why the last attempt ended

	linked bool // a link was up before, so the next one is a reconnect; Run's own
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

// Run links until ctx ends; then it closes the link and returns nil.
func (k *Keeper) Run(ctx context.Context) error {
	k.Config = k.Config.withDefaults()
	now, sleep, jitter := k.Now, k.Sleep, k.Jitter
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = ctxsleep.Sleep
	}
	if jitter == nil {
		jitter = defaultJitter
	}
	log := k.Config.Log
	var b backoff
	var lastErr string
	for {
		up, err := k.hold(ctx, now)
		if ctx.Err() != nil {
			return nil
		}
		k.mu.Lock()
		k.lastErr = err
		k.mu.Unlock()
		wait := b.next(up) + jitter()
		// A failure repeated word for word is logged once.
		if msg := err.Error(); msg != lastErr {
			log.Warn("no link to the hub", "err", msg, "retry_in", wait.Round(time.Millisecond))
			lastErr = msg
		} else {
			log.Debug("no link to the hub", "err", msg, "retry_in", wait.Round(time.Millisecond))
		}
		if err := sleep(ctx, wait); err != nil {
			return nil
		}
	}
}

// hold makes one attempt: it dials and, once linked, holds the link until it
// ends. It returns how long the link was up and why there is none now.
func (k *Keeper) hold(ctx context.Context, now func() time.Time) (time.Duration, error) {
	t, err := k.Resolve()
	if err != nil {
		return 0, fmt.Errorf("where to link: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, dialWait)
	c, err := Dial(dctx, k.Config, t)
	cancel()
	if err != nil {
		return 0, err
	}
	start := now()
	if k.linked {
		metrics.LinkReconnect(c.Box())
	}
	k.linked = true
	k.Config.Log.Info("linked to the hub", "hub", c.Box(), "transport", c.Transport(), "remote", c.Remote())
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
	return now().Sub(start), c.Err()
}

func defaultJitter() time.Duration { return rand.N(MaxJitter) }
