package link

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/sotcomm/sotd/wire"
)

// helloID is the id of a link's hello; calls count up from it.
const helloID = 1

// ErrRefused is wrapped by a dial error that is a refusal rather than an
// unreachable hub: a key that does not match its pin, or a hello the hub refused.
// Another transport would be refused too, so none is tried.
var ErrRefused = errors.New("the link was refused")

type refused struct{ err error }

func (r refused) Error() string            { return r.err.Error() }
func (r refused) Unwrap() []error          { return []error{ErrRefused, r.err} }
func refuse(format string, a ...any) error { return refused{fmt.Errorf(format, a...)} }

// greet says the guest's hello on a fresh carrier and returns the hub's answer.
// ctx bounds the exchange; on any error the carrier is closed.
func greet(ctx context.Context, car carrier, cfg Config, t Target) (wire.HelloOK, error) {
	stop := context.AfterFunc(ctx, func() { car.close(closeNormal, "no answer to hello") })
	defer stop()
	frame, err := wire.EncodeFrame(helloID, wire.KindReq, wire.OpHello, wire.Hello{Role: wire.RoleLink, Host: cfg.Box, Protocol: wire.Protocol, Mux: !cfg.perCall, Ticks: cfg.Ticks, Items: !cfg.perCall && !cfg.wholeBatch})
	if err == nil {
		err = car.send(frame)
	}
	var env wire.Envelope
	if err == nil {
		env, err = car.recv()
	}
	if err != nil {
		car.close(closeNormal, "hello failed")
		if ctx.Err() != nil {
			return wire.HelloOK{}, fmt.Errorf("%w: the hub at %s did not answer hello", ctx.Err(), car.remote())
		}
		if keyRefused(err) {
			return wire.HelloOK{}, refusedKey(t, car.remote(), err)
		}
		if isRefusal(err) {
			return wire.HelloOK{}, refuse("the hub at %s refused this link: %w", car.remote(), err)
		}
		return wire.HelloOK{}, fmt.Errorf("the hub at %s closed the link before it answered hello: %w", car.remote(), err)
	}
	var ok wire.HelloOK
	if env.Kind != wire.KindRes || env.Op != wire.OpHello {
		err = fmt.Errorf("%w: the hub at %s answered hello with a %s %s frame", wire.ErrFrame, car.remote(), env.Kind, env.Op)
	} else if err = wire.Answer(env, &ok); err != nil {
		err = refuse("the hub at %s refused this box's hello: %w", car.remote(), err)
	} else if ok.Mux && !cfg.perCall {
		err = car.multiplex()
	}
	if err != nil {
		car.close(closeNormal, "hello refused")
		return wire.HelloOK{}, err
	}
	ok.Ticks = ok.Ticks && cfg.Ticks
	ok.Items = ok.Items && ok.Mux && !cfg.perCall && !cfg.wholeBatch
	return ok, nil
}

// refusedKey says the hub refused this box's key, and how to pin it there.
func refusedKey(t Target, addr string, err error) error {
	return refuse("the hub at %s refused this box's key; if this box should link, pin it in the hub's hosts.toml: key = %q under [host.%s] (%v)", addr, t.Identity.Fingerprint(), t.Identity.Box, err)
}

// keyRefused reports whether the hub's TLS refused this box's key.
func keyRefused(err error) bool {
	var te *quic.TransportError
	var oe *net.OpError // the same over TLS on TCP
	return errors.As(err, &te) && te.ErrorCode.IsCryptoError() && te.Remote ||
		errors.As(err, &oe) && oe.Op == "remote error"
}

// isRefusal reports whether the hub closed the link as refused.
func isRefusal(err error) bool {
	var ae *quic.ApplicationError
	return errors.As(err, &ae) && ae.Remote && ae.ErrorCode == quic.ApplicationErrorCode(closeRefused)
}

// checkHello returns a link's hello and why it is refused, or "" when it is
// accepted. box is the box the peer's key is pinned to.
func checkHello(env wire.Envelope, box string) (wire.Hello, string) {
	h, r := linkDoor.Admit(env)
	switch {
	case r != nil:
		return h, r.Sentence
	case h.Host != box:
		return h, fmt.Sprintf("the hello says box %q but its key is pinned to box %q in hosts.toml; set SOT_SELF_HOST=%s on that box, or pin its key under [host.%s]", h.Host, box, box, h.Host)
	}
	return h, ""
}

// linkDoor is the link listener's part of hello admission: boxes only.
var linkDoor = wire.Door{
	Roles:     []string{wire.RoleLink},
	WrongRole: "role %q on the link listener; a box links with role \"link\"",
}

// admit reads a peer's hello on a fresh carrier and answers it. A refused peer
// is told why (and the hub logs it), given a moment to read it, and closed; an
// accepted one becomes a Conn, not yet started.
func (s *Server) admit(car carrier, box string) *Conn {
	log := s.cfg.Log.With("box", box, "from", car.remote(), "transport", car.kind())
	timer := time.AfterFunc(wire.HelloWait, func() { car.close(closeRefused, "no hello") })
	env, err := car.recv()
	if !timer.Stop() {
		log.Warn("link refused", "why", fmt.Sprintf("no hello came within %s", wire.HelloWait))
		return nil
	}
	if err != nil {
		log.Info("link closed before its hello", "err", err)
		car.close(closeNormal, "no hello")
		return nil
	}
	h, why := checkHello(env, box)
	if why != "" {
		log.Warn("link refused", "why", why)
		frame, _ := wire.EncodeFrame(env.ID, wire.KindRes, wire.OpHello, wire.Error{Error: why, Code: wire.CodeHelloRefused})
		if car.send(frame) == nil {
			select {
			case <-car.gone():
			case <-time.After(refuseLinger):
			}
		}
		car.close(closeRefused, why)
		return nil
	}
	// The peer's streams are read from the moment it hears the answer.
	mux := h.Mux && !s.cfg.perCall
	if mux {
		err = car.multiplex()
	}
	ticks := h.Ticks && s.cfg.Ticks
	items := mux && h.Items && !s.cfg.wholeBatch
	var frame []byte
	if err == nil {
		frame, err = wire.EncodeFrame(env.ID, wire.KindRes, wire.OpHello, wire.HelloOK{Host: s.cfg.Box, Protocol: wire.Protocol, Daemon: "sotd", Mux: mux, Ticks: ticks, Items: items})
	}
	if err == nil {
		err = car.send(frame)
	}
	if err != nil {
		log.Info("link closed while its hello was answered", "err", err)
		car.close(closeNormal, "hello not answered")
		return nil
	}
	log.Info("link up")
	c := newConn(s.cfg.Config, box, car)
	c.ticks = ticks
	c.items = items
	return c
}
