package link

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/quic-go/quic-go"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/internal/logonce"
	"github.com/sotcomm/sotd/wire"
)

// ServerConfig is a hub's link listener.
type ServerConfig struct {
	Config
	Identity *identity.Identity // the hub's key
	Pins     identity.Pins      // which box each admitted key is; asked at every handshake
	Addr     string             // QUIC (UDP) listen address: hosts.toml addr
	WSAddr   string             // WebSocket-over-TLS (TCP) listen address; "" serves none
}

// ErrServerClosed is Accept's error once the server is closed.
var ErrServerClosed = errors.New("the link listener is closed")

// Server takes links from guests. Every link it yields has a pinned key and an
// accepted hello; the server owns it and closes it when the server closes.
type Server struct {
	cfg ServerConfig
	tls *tls.Config

	udp  *net.UDPConn
	tr   *quic.Transport
	ql   *quic.Listener
	tcp  net.Listener
	http *http.Server

	ctx      context.Context
	cancel   context.CancelFunc
	accepted chan *Conn

	mu        sync.Mutex
	closing   bool
	wg        sync.WaitGroup // the acceptors and every admitted link
	closeOnce sync.Once
	closeErr  error
	stopped   sync.Once // the listener's failure is said once, not by every acceptor
	// refusals logs refused links at Warn refusedBurst times a minute at
	// most: anyone who reaches the port can be refused in a loop.
	refusals logonce.Every
}

// refusedBurst is how many refused links a minute are logged at Warn; the
// others go at Debug, and the next at Warn counts them.
const refusedBurst = 8

// refused logs a refused link.
func (s *Server) refused(attrs ...any) {
	s.refusals.Log(s.cfg.Log, slog.LevelWarn, "link refused", attrs...)
}

// Listen starts the hub's link listeners: QUIC on cfg.Addr, and WebSocket over
// TLS on cfg.WSAddr when one is given.
func Listen(cfg ServerConfig) (*Server, error) {
	cfg.Config = cfg.Config.withDefaults()
	if cfg.Identity == nil || cfg.Pins == nil {
		return nil, errors.New("link: listen needs the hub's identity and its pins")
	}
	if cfg.Box == "" {
		cfg.Box = cfg.Identity.Box
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, ctx: ctx, cancel: cancel, accepted: make(chan *Conn), refusals: logonce.Every{Period: time.Minute, Burst: refusedBurst}}
	s.tls = s.tlsConfig()
	if err := s.listenQUIC(); err != nil {
		cancel()
		return nil, err
	}
	if cfg.WSAddr != "" {
		if err := s.listenWS(); err != nil {
			s.Close()
			return nil, err
		}
	}
	cfg.Log.Info("links listening", "addr", s.Addr(), "ws_addr", cfg.WSAddr, "key", cfg.Identity.Fingerprint())
	return s, nil
}

// tlsConfig is the hub's TLS, made per connection so a refused key is logged
// with the address it came from.
func (s *Server) tlsConfig() *tls.Config {
	base := identity.ServerTLS(s.cfg.Identity, s.cfg.Pins)
	conf := base.Clone()
	conf.GetConfigForClient = func(hi *tls.ClientHelloInfo) (*tls.Config, error) {
		from := "?"
		if hi.Conn != nil {
			from = hi.Conn.RemoteAddr().String()
		}
		c := base.Clone()
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			err := base.VerifyConnection(cs)
			if err != nil {
				s.refused("from", from, "err", err)
			}
			return err
		}
		return c, nil
	}
	return conf
}

func (s *Server) listenQUIC() error {
	ua, err := net.ResolveUDPAddr("udp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("link listen address %q: %w", s.cfg.Addr, err)
	}
	if s.udp, err = net.ListenUDP("udp", ua); err != nil {
		return fmt.Errorf("listen for links on %s: %w", s.cfg.Addr, err)
	}
	key, err := resetKey(s.cfg.Identity)
	if err != nil {
		s.udp.Close()
		return err
	}
	s.tr = &quic.Transport{Conn: s.udp, StatelessResetKey: key}
	if s.ql, err = s.tr.Listen(s.tls, quicConfig(s.cfg.Config)); err != nil {
		s.tr.Close()
		s.udp.Close()
		return fmt.Errorf("listen for links on %s: %w", s.cfg.Addr, err)
	}
	for range acceptors {
		s.wg.Go(s.acceptQUIC)
	}
	return nil
}

// acceptors is how many goroutines wait in the QUIC listener's Accept at once.
// quic-go queues 32 handshaken connections, a constant it does not let a
// server raise (quic-go#3468), and refuses the next with CONNECTION_REFUSED
// while no one takes them; on a busy hub a single accept loop is not run often
// enough to keep up with a relink storm (54 of 200 guests refused here). A
// goroutine already waiting takes a connection the moment its handshake
// completes, so this many and the queue take a storm of 200 in one round.
const acceptors = 256

func (s *Server) listenWS() error {
	ln, err := net.Listen("tcp", s.cfg.WSAddr)
	if err != nil {
		return fmt.Errorf("listen for WebSocket links on %s: %w", s.cfg.WSAddr, err)
	}
	s.tcp = ln
	mux := http.NewServeMux()
	mux.HandleFunc(wsPath, s.serveWS)
	s.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: wire.HelloWait,
		// A refused key is logged where it is refused; the server's own line
		// about it says nothing more.
		ErrorLog: slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelDebug),
	}
	s.wg.Go(func() { s.http.Serve(tls.NewListener(ln, s.tls)) })
	return nil
}

// resetKey derives the hub's QUIC stateless reset key from its box key, so it is
// the same after a restart: a restarted hub answers a guest's packets for a
// connection it no longer has with a reset the guest can verify, and the guest
// relinks at once instead of after three silent heartbeats.
func resetKey(id *identity.Identity) (*quic.StatelessResetKey, error) {
	cert, err := id.Certificate()
	if err != nil {
		return nil, err
	}
	priv, ok := cert.PrivateKey.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("link: the hub's key is a %T, not Ed25519", cert.PrivateKey)
	}
	k := quic.StatelessResetKey(sha256.Sum256(append([]byte("sot-comm/1 stateless reset\x00"), priv.Seed()...)))
	return &k, nil
}

// Addr is the QUIC listener's address.
func (s *Server) Addr() net.Addr { return s.udp.LocalAddr() }

// WSAddr is the WebSocket listener's address, nil when there is none.
func (s *Server) WSAddr() net.Addr {
	if s.tcp == nil {
		return nil
	}
	return s.tcp.Addr()
}

// Accept returns the next admitted link, not yet reading: register it, then
// Start it, and it answers requests with the Config's Handler.
func (s *Server) Accept(ctx context.Context) (*Conn, error) {
	select {
	case c := <-s.accepted:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, ErrServerClosed
	}
}

// Close stops listening, closes every link and waits for all of it to stop.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	if s.http != nil {
		s.http.Close()
	}
	// Links close while QUIC can still tell their peers.
	s.wg.Wait()
	var errs []error
	if s.ql != nil {
		errs = append(errs, s.ql.Close(), s.tr.Close(), s.udp.Close())
	}
	return errors.Join(errs...)
}

// enter counts one more goroutine of the server's, unless it is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Server) acceptQUIC() {
	for {
		qc, err := s.ql.Accept(s.ctx)
		if err != nil {
			if s.ctx.Err() == nil {
				s.stopped.Do(func() { s.cfg.Log.Error("the QUIC link listener stopped", "err", err) })
			}
			return
		}
		if !s.enter() {
			qc.CloseWithError(quic.ApplicationErrorCode(closeNormal), "the hub is stopping")
			return
		}
		go func() {
			defer s.wg.Done()
			s.admitQUIC(qc)
		}()
	}
}

func (s *Server) admitQUIC(qc *quic.Conn) {
	box, ok := s.boxOf(qc.ConnectionState().TLS, qc.RemoteAddr().String())
	if !ok {
		qc.CloseWithError(quic.ApplicationErrorCode(closeRefused), "key not pinned")
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, wire.HelloWait)
	control, err := qc.AcceptStream(ctx)
	cancel()
	if err != nil {
		s.refused("box", box, "from", qc.RemoteAddr().String(), "why", fmt.Sprintf("no control stream within %s", wire.HelloWait), "err", err)
		qc.CloseWithError(quic.ApplicationErrorCode(closeRefused), "no control stream")
		return
	}
	s.run(s.admit(newQUICCarrier(qc, control, nil), box))
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil {
		http.Error(w, "links are TLS only", http.StatusForbidden)
		return
	}
	box, ok := s.boxOf(*r.TLS, r.RemoteAddr)
	if !ok {
		http.Error(w, "this box's key is not pinned in the hub's hosts.toml", http.StatusForbidden)
		return
	}
	wc, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.cfg.Log.Info("a WebSocket link failed its upgrade", "box", box, "from", r.RemoteAddr, "err", err)
		return
	}
	if !s.enter() {
		wc.CloseNow()
		return
	}
	defer s.wg.Done()
	s.run(s.admit(newWSCarrier(wc, r.RemoteAddr), box))
}

// boxOf is the box a handshake's key is pinned to; pins are asked again, as
// hosts.toml may have changed since the handshake.
func (s *Server) boxOf(cs tls.ConnectionState, from string) (string, bool) {
	fp, err := identity.PeerFingerprint(cs)
	if err == nil {
		if box, ok := s.cfg.Pins(fp); ok {
			return box, true
		}
		err = fmt.Errorf("no box in hosts.toml is pinned to key %s", fp)
	}
	s.refused("from", from, "err", err)
	return "", false
}

// run hands an admitted link to Accept, then holds it until it ends or the
// server closes, and reaps it.
func (s *Server) run(c *Conn) {
	if c == nil {
		return
	}
	select {
	case s.accepted <- c: // Accept's caller starts it (Start)
	case <-s.ctx.Done():
		c.Close()
		return
	}
	select {
	case <-c.Done():
		c.log.Info("link down", "err", c.Err())
	case <-s.ctx.Done():
	}
	c.Close()
}
