package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/nolog"
	"github.com/sotcomm/sotd/metrics"
)

// DefaultBuffer is how many events a subscriber may be behind before it is
// resynced.
const DefaultBuffer = 256

// Config says where and for whom the listener runs.
type Config struct {
	Home    home.Home
	Host    string // this box; names the run/<host>/ files and the default fe@<host>
	Addr    string // a loopback host:port; "" asks for the last one, then DefaultAddr, then any free port
	Backend Backend
	Buffer  int // events a subscriber may fall behind by; 0 means DefaultBuffer
	Log     *slog.Logger
}

// bounds hold the listener's connections to account. Any local account can
// connect (the token is checked per request, not per connection), so none is
// kept on a peer's say-so: its headers and its request must come within their
// waits, its answer must be taken within write, a keep-alive connection quiet
// past idle is closed, a 401 closes its connection, and at most maxConns are
// open at once: the next waits in the listen backlog until one closes. A
// WebSocket is past the read, write and idle bounds: the upgrade takes its
// connection from the http.Server, which clears its deadlines, and the
// frontend's hello wait and out queue bound it from then on.
type bounds struct {
	readHeader, read, write, idle time.Duration
	maxConns                      int
}

var defaultBounds = bounds{
	readHeader: 10 * time.Second,
	read:       30 * time.Second,
	write:      30 * time.Second,
	idle:       time.Minute,
	// A page is one WebSocket and a few requests; 64 is many open pages and
	// a Prometheus scraper, and far below the daemon's descriptors.
	maxConns: 64,
}

// Server is the frontend door of one daemon.
type Server struct {
	cfg    Config
	token  string
	ln     net.Listener
	bounds bounds // tests shorten them

	mu    sync.Mutex
	conns map[string]*conn // by hello name
	wg    sync.WaitGroup   // the WebSocket handlers, which http.Server.Shutdown does not wait for
}

// New loads (or creates) the token; nothing listens yet.
func New(cfg Config) (*Server, error) {
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	cfg.Log = nolog.Or(cfg.Log)
	tok, err := LoadToken(cfg.Home, cfg.Host)
	if err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, token: tok, bounds: defaultBounds, conns: make(map[string]*conn)}, nil
}

// Addr is the address Listen bound.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Listen binds the loopback address and records it in run/<host>/http.addr.
// An address the caller chose is the only one asked for. Otherwise the one
// recorded there is asked for first, so a page left open finds a restarted
// daemon again, then the default; both taken (another program, another home
// that hashed to the same port), any free port is.
func (s *Server) Listen() error {
	var ln net.Listener
	var err error
	for _, addr := range s.candidates() {
		if err = checkLoopback(addr); err != nil {
			return err
		}
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		err = fmt.Errorf("listen for the status page on %s: %w; choose another port", addr, err)
	}
	if err != nil {
		return err
	}
	if err := home.WriteAtomic(AddrFile(s.cfg.Home, s.cfg.Host), []byte(ln.Addr().String()+"\n")); err != nil {
		ln.Close()
		return err
	}
	s.ln = ln
	return nil
}

// candidates are the addresses Listen asks for, in order.
func (s *Server) candidates() []string {
	if s.cfg.Addr != "" {
		return []string{s.cfg.Addr}
	}
	var out []string
	if b, err := s.cfg.Home.ReadFile(AddrFile(s.cfg.Home, s.cfg.Host), maxSmall); err == nil {
		if last := strings.TrimSpace(string(b)); checkLoopback(last) == nil {
			out = append(out, last)
		}
	}
	return append(out, DefaultAddr(s.cfg.Home), "127.0.0.1:0")
}

// checkLoopback refuses an address other boxes could reach: the token is a
// bearer secret sent in the clear.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("status page address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("status page address %q is not loopback; use 127.0.0.1:<port>", addr)
	}
	return nil
}

// Serve answers requests on the bound listener until ctx ends, then closes
// every WebSocket and waits for their handlers.
func (s *Server) Serve(ctx context.Context) error {
	hs := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: s.bounds.readHeader,
		ReadTimeout:       s.bounds.read,
		WriteTimeout:      s.bounds.write,
		IdleTimeout:       s.bounds.idle,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(netutil.LimitListener(s.ln, s.bounds.maxConns)) }()
	select {
	case err := <-errc:
		s.wg.Wait()
		return fmt.Errorf("serve the status page: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc
	s.wg.Wait() // ctx, their parent, has ended, so each is closing
	s.forgetAddr()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("stop the status page: %w", err)
	}
	return nil
}

// forgetAddr removes http.addr if it still names this listener, so `sotd url`
// does not print the address of a stopped one; a newer listener's is kept.
func (s *Server) forgetAddr() {
	path := AddrFile(s.cfg.Home, s.cfg.Host)
	if b, err := s.cfg.Home.ReadFile(path, maxSmall); err == nil && strings.TrimSpace(string(b)) == s.Addr() {
		os.Remove(path)
	}
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", servePage)
	mux.HandleFunc("GET /v1/ws", s.serveWS)
	mux.Handle("GET /metrics", metrics.Handler())
	// Profiles of the running daemon, so the next one needs no rebuild.
	mux.Handle("GET /debug/pprof/", metrics.Profiles())
	return s.guard(s.authorize(mux))
}

// guard answers only a request addressed to this listener by a loopback name
// and its own port, and, from a page, only one whose origin is such an
// address too; and it forbids every answer to be framed. A page on another
// site whose name it rebinds to 127.0.0.1 sends its own name as Host and as
// Origin (which the WebSocket's own Origin == Host check lets through), and a
// framing page could trick a click on the status page.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		port := s.port()
		if !loopbackAt(r.Host, port) {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("421 this sotd listener answers only to 127.0.0.1:%s or localhost:%s, not to %q; open the URL `sotd url` prints", port, port, r.Host), http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAt(o, port) {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("403 this sotd listener takes requests only from its own page, not from %q", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// port is the listener's own port.
func (s *Server) port() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return port
}

// loopbackAt says whether hostport names a loopback address (localhost or a
// loopback IP) with port.
func loopbackAt(hostport, port string) bool {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil || p != port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAt says whether origin, an Origin header, is a page served from a
// loopback address with port.
func originAt(origin, port string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackAt(u.Host, port)
}

// authorize answers 401 to a request without the token, in the query
// (?token=, which a browser can put on a WebSocket) or as a bearer header.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.URL.Query().Get("token")
		if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			tok = b
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
			// A peer without the token has nothing more to ask on this
			// connection, and must not keep it.
			w.Header().Set("Connection", "close")
			w.Header().Set("WWW-Authenticate", `Bearer realm="sotd"`)
			http.Error(w, "401 this sotd listener needs its token; open the URL `sotd url` prints", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
