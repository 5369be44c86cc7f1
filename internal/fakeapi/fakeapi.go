// Package fakeapi is what the fake model APIs (fakeclaude, fakeopenai) share: a
// server on a free loopback port that answers the routes a fake models, and
// every other request 200 with an empty JSON object, logged and recorded, so
// a probe a later agent version adds neither hangs nor fails its start.
package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/nolog"
)

// Server is the shared part of one fake API. Its zero value is not usable:
// call Start.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:40123.
	URL string

	name string
	srv  *http.Server
	log  *slog.Logger

	mu      sync.Mutex
	unknown []string
}

// Start listens on a free loopback port and serves mux's routes, and every
// other request as one it does not model, until Close. name says which API
// it fakes, in its log and errors.
func Start(name string, log *slog.Logger, mux *http.ServeMux) (*Server, error) {
	log = nolog.Or(log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake %s: listen on 127.0.0.1: %w", name, err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), name: name, log: log}
	mux.HandleFunc("/", s.other)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and every request it is serving.
func (s *Server) Close() error { return s.srv.Close() }

// Unknown is the method and path of every request the server does not model.
func (s *Server) Unknown() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unknown...)
}

func (s *Server) other(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.unknown = append(s.unknown, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	s.log.Info("fake API: a request it does not model, answered {}", "api", s.name, "method", r.Method, "path", r.URL.Path)
	WriteJSON(w, map[string]any{})
}

// WriteJSON answers v as JSON.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
