// Package fakeclaude is a small Anthropic Messages API on 127.0.0.1, enough
// for the real Claude Code TUI to start, take a prompt and end its turn with no
// network: tests point ANTHROPIC_BASE_URL at it.
//
// POST /v1/messages answers every request with one short text and end_turn, as
// a server-sent event stream when the request asks for stream: true and as one
// JSON message otherwise (but see Plan, which makes it run commands); count_tokens answers a small count. Anything else is
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
	results []string
	plans   []plan
}

// plan is one trigger and the commands a turn it starts runs.
type plan struct {
	trigger  string
	commands []string
}

// Plan makes the fake act as an agent that runs commands: a turn whose user
// text holds trigger gets a Bash tool call for each command in turn, one per
// request, then Reply. Only a request that offers the Bash tool follows the
// plan; a side request (a title, a safety check) gets Reply.
func (s *Server) Plan(trigger string, commands ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plans = []plan{{trigger, commands}}
}

// AlsoPlan adds a plan beside Plan's: a turn whose user text holds trigger
// runs these commands instead, so one session can act on a person's prompt
// and later on the wake's notice.
func (s *Server) AlsoPlan(trigger string, commands ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plans = append(s.plans, plan{trigger, commands})
}

// ToolResults is the text of every tool result the requests carried so far,
// oldest first, each once.
func (s *Server) ToolResults() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.results...)
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
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// block is a content block as the fake reads it.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"` // a tool_result's: a string or text blocks
}

// blocks is a message's content as blocks; a plain string is one text block.
func blocks(content json.RawMessage) []block {
	var plain string
	if json.Unmarshal(content, &plain) == nil {
		return []block{{Type: "text", Text: plain}}
	}
	var bs []block
	json.Unmarshal(content, &bs)
	return bs
}

// next is the command a plan has this request run, "" for none: the request
// must offer Bash and have a user text with a plan's trigger; the newest such
// text picks the plan, and the count of tool calls the assistant made since is
// its step.
func (s *Server) next(req request) (string, int) {
	s.mu.Lock()
	plans := s.plans
	s.mu.Unlock()
	bash := false
	for _, t := range req.Tools {
		bash = bash || t.Name == "Bash"
	}
	if len(plans) == 0 || !bash {
		return "", 0
	}
	var commands []string
	step := -1
	for _, m := range req.Messages {
		for _, b := range blocks(m.Content) {
			if m.Role == "assistant" && b.Type == "tool_use" && step >= 0 {
				step++
			}
			if m.Role != "user" || b.Type != "text" {
				continue
			}
			for _, p := range plans {
				if p.trigger != "" && strings.Contains(b.Text, p.trigger) {
					commands, step = p.commands, 0
				}
			}
		}
	}
	if step < 0 || step >= len(commands) {
		return "", 0
	}
	return commands[step], step
}

// record keeps the text of the tool results not seen before.
func (s *Server) record(req request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []string
	for _, m := range req.Messages {
		for _, b := range blocks(m.Content) {
			if b.Type != "tool_result" {
				continue
			}
			var texts []string
			for _, t := range blocks(b.Content) {
				texts = append(texts, t.Text)
			}
			all = append(all, strings.Join(texts, "\n"))
		}
	}
	if len(all) > len(s.results) {
		s.results = append(s.results, all[len(s.results):]...)
	}
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
	s.record(req)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	id := fmt.Sprintf("msg_fake_%d", time.Now().UnixNano())
	usage := map[string]any{"input_tokens": 12, "output_tokens": 2, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	command, step := s.next(req)
	if command != "" {
		s.toolUse(w, req, id, model, usage, command, step)
		return
	}
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
	events := []event{
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
	stream(w, events)
}

// event is one server-sent event of a streamed message.
type event struct {
	name string
	data any
}

func stream(w http.ResponseWriter, events []event) {
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

// toolUse answers with one Bash tool call that runs command, and stop_reason
// tool_use, so the agent runs it and sends its result back.
func (s *Server) toolUse(w http.ResponseWriter, req request, id, model string, usage map[string]any, command string, step int) {
	toolID := fmt.Sprintf("toolu_fake_%d_%d", time.Now().UnixNano(), step)
	input := map[string]any{"command": command, "description": "sot-comm mail"}
	call := map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": input}
	if !req.Stream {
		fakeapi.WriteJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{call},
			"stop_reason": "tool_use", "stop_sequence": nil, "usage": usage,
		})
		return
	}
	partial, _ := json.Marshal(input)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	stream(w, []event{
		{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": usage,
		}}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{}}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(partial)}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 2}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	})
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
