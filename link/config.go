package link

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/nolog"
	"github.com/sotcomm/sotd/wire"
)

// Defaults and bounds.
const (
	HeartbeatEvery = 5 * time.Second            // a heartbeat each way on the control stream
	DeadAfter      = deadBeats * HeartbeatEvery // a peer silent this long is dead: 15 s
	MaxInFlight    = 64                         // requests a link carries at once in each direction
	QUICWait       = 3 * time.Second            // a QUIC handshake slower than this falls back to WebSocket

	deadBeats = 3 // heartbeats missed before the peer is dead

	// EnvHeartbeat, in seconds, replaces HeartbeatEvery (and so DeadAfter) where
	// a Config leaves Heartbeat zero: for tests that watch real daemons' links
	// die, which would otherwise wait 15 s each time. Unset in production.
	EnvHeartbeat = "SOT_LINK_HEARTBEAT_SECS"

	requestWait  = 10 * time.Second // a stream whose request does not come is dropped
	writeWait    = 10 * time.Second // a peer that reads nothing is closed
	refuseLinger = time.Second      // a refused peer's time to read why before the hub closes
)

// Handler answers one request the peer sent over a link. A returned error is
// sent back as a refusal: a *wire.Refusal keeps its code and sentence (so a
// box's own words pass through unchanged), any other error is file_failed with
// its text. It must return once ctx ends: the caller gave up, or the link ended.
type Handler func(ctx context.Context, c *Conn, op string, payload json.RawMessage) (any, error)

// Config is how this end of a link behaves; zero fields take their defaults.
type Config struct {
	Box     string  // this box's name, in its hello or its answer; default its Identity's
	Handler Handler // answers the peer's requests; nil refuses them as unknown_op
	// OnEvent gets the peer's control events other than heartbeats, in the order
	// they came. It runs on the link's control reader, so it must not block.
	OnEvent func(c *Conn, ev wire.Envelope)
	// OnHealth gets the link's health after each new timing sample, on the
	// control reader as OnEvent does, so it must not block either.
	OnHealth func(c *Conn, h Health)
	Log      *slog.Logger
	// Now is the clock heartbeats carry and the link's timing is taken by;
	// default time.Now. Liveness is judged on the monotonic clock regardless.
	Now func() time.Time

	Heartbeat time.Duration // default HeartbeatEvery
	DeadAfter time.Duration // default three heartbeats: DeadAfter at the default Heartbeat
	QUICWait  time.Duration // default QUICWait

	// Ticks, on a guest, promises the hub a directory event on every registry
	// poll (wire.Hello.Ticks); on a hub, takes that promise from a guest that
	// makes it. Conn.Ticks says whether both ends agreed.
	Ticks bool

	// perCall makes this end a box older than multiplexed links (Hello.Mux):
	// it asks for none, takes none, and sends each request on its own stream.
	perCall bool
	// wholeBatch makes this end a box older than Items (Hello.Items): it asks
	// for none, takes none, and answers each comm.file.batch whole.
	wholeBatch bool
}

func (c Config) withDefaults() Config {
	c.Log = nolog.Or(c.Log)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = HeartbeatEvery
		if d := home.EnvSeconds(EnvHeartbeat, 0); d > 0 {
			c.Heartbeat = d
		}
	}
	if c.DeadAfter <= 0 {
		c.DeadAfter = deadBeats * c.Heartbeat
	}
	if c.QUICWait <= 0 {
		c.QUICWait = QUICWait
	}
	return c
}

// closeCode tells a QUIC peer why the link closed.
type closeCode uint64

const (
	closeNormal   closeCode = 0 // this end closed it
	closeRefused  closeCode = 1 // the hub refused the box or its hello
	closeDead     closeCode = 2 // the peer went silent
	closeProtocol closeCode = 3 // the peer sent what a link does not carry
)
