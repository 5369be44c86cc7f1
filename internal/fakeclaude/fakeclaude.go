// Package fakeclaude is a small Anthropic Messages API on 127.0.0.1, enough
// for the real Claude Code TUI to start, take a prompt and end its turn with no
// network: tests point ANTHROPIC_BASE_URL at it.
//
// POST /v1/messages answers every request with one short text and end_turn, as
// a server-sent event stream when the request asks for stream: true and as one
// JSON message otherwise; count_tokens answers a small count. Anything else is
// logged and answered 200 with an empty JSON object, so a probe Claude Code
// adds in a later version neither hangs nor fails its start.
package fakeclaude

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sotcomm/sotd/internal/fakeapi"
)

// Reply is the text every message request gets back.
const Reply = "Noted."

// Server is one fake Messages API. Its zero value is not usable: call Start.
type Server struct {
	// Server's URL is the base URL for ANTHROPIC_BASE_URL, e.g.
	// http://127.0.0.1:40123.
	*fakeapi.Server

	mu      sync.Mutex
	prompts []Prompt
}

// Prompt is the last user text of one message request and when it arrived.
type Prompt struct {
	Text string
	At   time.Time
}

// Start listens on a free loopback port and serves until Close.
func Start(log *slog.Logger) (*Server, error) {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		fakeapi.WriteJSON(w, map[string]any{"input_tokens": 12})
	})
	base, err := fakeapi.Start("Messages API", log, mux)
	if err != nil {
		return nil, err
	}
	s.Server = base
	return s, nil
}

// Prompts is every message request's last user text so far, oldest first.
func (s *Server) Prompts() []Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Prompt(nil), s.prompts...)
}

// request is the part of a Messages request the fake reads.
type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"the body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.prompts = append(s.prompts, Prompt{Text: lastUserText(req), At: time.Now()})
	s.mu.Unlock()
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	id := fmt.Sprintf("msg_fake_%d", time.Now().UnixNano())
	usage := map[string]any{"input_tokens": 12, "output_tokens": 2, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		fakeapi.WriteJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "text", "text": Reply}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	events := []struct {
		name string
		data any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": usage,
		}}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}},
		{"ping", map[string]any{"type": "ping"}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": Reply}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 2}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
	flusher, _ := w.(http.Flusher)
	for _, e := range events {
		b, _ := json.Marshal(e.data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// lastUserText is the text of the request's last user message: a plain string
// or the text blocks of a content array, joined by newlines.
func lastUserText(req request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var plain string
		if json.Unmarshal(m.Content, &plain) == nil {
			return plain
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &blocks)
		var texts []string
		for _, b := range blocks {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

// Config writes userHome/.claude.json so that the real Claude Code, run with
// HOME=userHome and ANTHROPIC_API_KEY=key, starts in proj straight to its
// prompt with no network: onboarding done, proj trusted, key approved.
func Config(userHome, proj, key string) error {
	cfg, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}},
		"customApiKeyResponses":  map[string]any{"approved": []string{key[max(0, len(key)-20):]}, "rejected": []string{}},
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(userHome, ".claude.json"), cfg, 0o600)
}
