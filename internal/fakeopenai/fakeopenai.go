// Package fakeopenai is a small OpenAI Responses API on 127.0.0.1, enough for
// the real Codex CLI to start, take a prompt and end its turn with no network:
// tests point a model provider's base_url (or OPENAI_BASE_URL) at URL+"/v1".
//
// POST /v1/responses answers every request with one short assistant message
// and response.completed, as the server-sent event stream Codex reads (but see
// Plan, which makes it run commands). GET
// /v1/models answers an empty list. Anything else is logged and answered 200
// with an empty JSON object, so a probe Codex adds in a later version neither
// hangs nor fails its start.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sotcomm/sotd/internal/fakeapi"
)

// Reply is the text every response request gets back.
const Reply = "Noted."

// Server is one fake Responses API. Its zero value is not usable: call Start.
type Server struct {
	// Server's URL is the server's root, e.g. http://127.0.0.1:40123; the API
	// is under /v1.
	*fakeapi.Server
	seq atomic.Int64

	mu       sync.Mutex
	requests []Request
	outputs  []string
	trigger  string
	plan     []string
}

// Plan makes the fake act as an agent that runs commands: a turn whose user
// text holds trigger gets an exec_command call for each command in turn, one
// per request, then Reply. Only a request that offers exec_command follows the
// plan; a side request (a title) gets Reply.
func (s *Server) Plan(trigger string, commands ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trigger, s.plan = trigger, commands
}

// Outputs is the output of every call the requests reported so far, oldest
// first, each once.
func (s *Server) Outputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.outputs...)
}

// Request is one response request as the fake read it.
type Request struct {
	// Texts are the text parts of every message in the request's input, oldest
	// first, each prefixed by its role and ": " (e.g. "user: hello").
	Texts []string
	At    time.Time
}

// Has reports whether one of the request's texts contains sub.
func (r Request) Has(sub string) bool {
	for _, t := range r.Texts {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

// Start listens on a free loopback port and serves until Close.
func Start(log *slog.Logger) (*Server, error) {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		fakeapi.WriteJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	})
	base, err := fakeapi.Start("Responses API", log, mux)
	if err != nil {
		return nil, err
	}
	s.Server = base
	return s, nil
}

// CodexConfig is the head of a Codex config.toml that has Codex use the fake
// as its model provider, with the API key in $OPENAI_API_KEY. Codex then starts
// offline; its built-in provider, pointed here by OPENAI_BASE_URL, still
// reaches for the network while it starts.
func (s *Server) CodexConfig() string {
	return fmt.Sprintf(`model = "gpt-5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`, s.URL+"/v1")
}

// Requests is every response request so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Prompted is when the fake first got a request, at or after since, whose
// last text is the user's prompt text: a prompt submitted to the model, ok
// false when none has come.
func (s *Server) Prompted(text string, since time.Time) (at time.Time, ok bool) {
	for _, r := range s.Requests() {
		if !r.At.Before(since) && len(r.Texts) > 0 && r.Texts[len(r.Texts)-1] == "user: "+text {
			return r.At, true
		}
	}
	return time.Time{}, false
}

// input is the part of a response request the fake reads: the messages of its
// input, whose content is a string or a list of typed parts.
type input struct {
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"` // a function_call_output's
	} `json:"input"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// next is the command the plan has this request run, "" for none: the request
// must offer exec_command and have a user text with the trigger; the count of
// calls since is the plan's step. It also records the calls' outputs.
func (s *Server) next(in input) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	step := -1
	var outs []string
	for _, m := range in.Input {
		switch {
		case m.Type == "function_call_output":
			var out string
			if json.Unmarshal(m.Output, &out) != nil {
				out = string(m.Output)
			}
			outs = append(outs, out)
		case m.Type == "function_call" && step >= 0:
			step++
		case m.Role == "user" && s.trigger != "" && strings.Contains(strings.Join(texts(m.Content), "\n"), s.trigger):
			step = 0
		}
	}
	if len(outs) > len(s.outputs) {
		s.outputs = append(s.outputs, outs[len(s.outputs):]...)
	}
	offered := false
	for _, t := range in.Tools {
		offered = offered || t.Name == "exec_command"
	}
	if !offered || step < 0 || step >= len(s.plan) {
		return ""
	}
	return s.plan[step]
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var in input
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fakeapi.WriteJSON(w, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": "the body is not JSON"}})
		return
	}
	req := Request{At: time.Now()}
	for _, m := range in.Input {
		if m.Type != "message" && m.Type != "" {
			continue
		}
		for _, t := range texts(m.Content) {
			req.Texts = append(req.Texts, m.Role+": "+t)
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	n := s.seq.Add(1)
	id, msg := fmt.Sprintf("resp_fake_%d", n), fmt.Sprintf("msg_fake_%d", n)
	item := map[string]any{
		"type": "message", "role": "assistant", "id": msg,
		"content": []any{map[string]any{"type": "output_text", "text": Reply}},
	}
	if command := s.next(in); command != "" {
		// No login, as a model's call leaves it out: Codex then runs a
		// login shell, whose profile may reset PATH, unless its config says
		// allow_login_shell=false, as a row's does (rows.NoLoginShell).
		args, _ := json.Marshal(map[string]any{"cmd": command})
		item = map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args),
			"call_id": fmt.Sprintf("call_fake_%d", n), "id": fmt.Sprintf("fc_fake_%d", n)}
	}
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
			"input_tokens": 12, "input_tokens_details": nil, "output_tokens": 2,
			"output_tokens_details": nil, "total_tokens": 14,
		}}},
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	for _, e := range events {
		b, _ := json.Marshal(e)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// texts are a message content's texts: a plain string, or the text of each
// part that has one (input_text, output_text).
func texts(content json.RawMessage) []string {
	var plain string
	if json.Unmarshal(content, &plain) == nil {
		return []string{plain}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(content, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}
