package link

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/wire"
)

// Target is where a guest links and as whom, re-read before every attempt.
type Target struct {
	Identity *identity.Identity // this box's key
	Hub      string             // the hub's box name, for messages
	Addr     string             // the hub's QUIC (UDP) address: hosts.toml addr
	WSAddr   string             // its WebSocket-over-TLS (TCP) address: ws_addr; "" when none
	Key      string             // the hub's pinned fingerprint: hosts.toml key
}

func (t Target) tls() *tls.Config {
	hub := t.Hub
	if hub == "" {
		hub = "the hub"
	}
	return identity.ClientTLS(t.Identity, hub, t.Key)
}

// errNoQUIC is a QUIC handshake that did not complete: UDP may be blocked.
var errNoQUIC = errors.New("QUIC did not get through")

// Dial links this box to its hub: QUIC first, then WebSocket when the QUIC
// handshake did not complete and the hub has a WebSocket address (see the package
// doc). The Conn is running when it is returned; ctx bounds only the dial.
func Dial(ctx context.Context, cfg Config, t Target) (*Conn, error) {
	cfg = cfg.withDefaults()
	if t.Identity == nil {
		return nil, errors.New("link: dial with no identity for this box")
	}
	if cfg.Box == "" {
		cfg.Box = t.Identity.Box
	}
	c, err := dialQUIC(ctx, cfg, t)
	if !errors.Is(err, errNoQUIC) || t.WSAddr == "" {
		return c, err
	}
	cfg.Log.Info("QUIC to the hub did not get through; trying WebSocket", "addr", t.Addr, "ws_addr", t.WSAddr, "err", err)
	c, wsErr := dialWS(ctx, cfg, t)
	if wsErr != nil {
		return nil, fmt.Errorf("%v; over WebSocket: %w", err, wsErr)
	}
	return c, nil
}

// handshake says hello on a fresh carrier and starts the link.
func handshake(ctx context.Context, cfg Config, t Target, car carrier) (*Conn, error) {
	hctx, cancel := context.WithTimeout(ctx, wire.HelloWait)
	defer cancel()
	ok, err := greet(hctx, car, cfg, t)
	if err != nil {
		return nil, err
	}
	c := newConn(cfg, ok.Host, car)
	c.dialed = true
	c.ticks = ok.Ticks
	c.items = ok.Items
	c.Start()
	return c, nil
}
