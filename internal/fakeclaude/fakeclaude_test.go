package fakeclaude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestStream checks the event stream a streaming request gets: Anthropic's
// event order, the reply as one text delta, end_turn, and the prompt recorded.
func TestStream(t *testing.T) {
	s := start(t)
	resp := post(t, s.URL+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"hello"}]}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var names []string
	var text, stop string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Delta struct {
				Text       string `json:"text"`
				StopReason string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("data line %q: %v", data, err)
		}
		text += ev.Delta.Text
		stop += ev.Delta.StopReason
	}
	want := []string{"message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if !slices.Equal(names, want) || text != Reply || stop != "end_turn" {
		t.Errorf("events %v, text %q, stop %q; want %v, %q, end_turn", names, text, stop, want, Reply)
	}
	if p := s.Prompts(); len(p) != 1 || p[0].Text != "<system-reminder>x</system-reminder>\nhello" {
		t.Errorf("prompts %+v, want the last user message's text blocks", p)
	}
}

// TestJSONAndOthers checks a request without stream gets one JSON message, and
// a path the fake does not model is answered and recorded.
func TestJSONAndOthers(t *testing.T) {
	s := start(t)
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.NewDecoder(post(t, s.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"quota"}]}`).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != Reply {
		t.Errorf("answer %+v, want one end_turn message saying %q", msg, Reply)
	}
	if resp := post(t, s.URL+"/v1/messages/count_tokens", `{}`); resp.StatusCode != http.StatusOK {
		t.Errorf("count_tokens: %s", resp.Status)
	}
	if resp := post(t, s.URL+"/api/hello", `{}`); resp.StatusCode != http.StatusOK {
		t.Errorf("an unknown path: %s, want 200", resp.Status)
	}
	if u := s.Unknown(); !slices.Equal(u, []string{"POST /api/hello"}) {
		t.Errorf("unknown %v, want the one unknown request", u)
	}
	if p := s.Prompts(); len(p) != 1 || p[0].Text != "quota" {
		t.Errorf("prompts %+v, want the one message request's", p)
	}
}

// TestPlan checks a planned turn: each request of the turn that offers Bash
// gets the next command as a tool call, then the reply; a request without Bash
// and one without the trigger get the reply; tool results are recorded once.
func TestPlan(t *testing.T) {
	s := start(t)
	s.Plan("you have mail", "comm-poll.sh", "sotd send @a hi")
	type answer struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Input struct {
				Command string `json:"command"`
			} `json:"input"`
		} `json:"content"`
	}
	ask := func(body string) (stop, said string) {
		t.Helper()
		var a answer
		if err := json.NewDecoder(post(t, s.URL+"/v1/messages", body).Body).Decode(&a); err != nil || len(a.Content) != 1 {
			t.Fatalf("answer %+v: %v", a, err)
		}
		return a.StopReason, a.Content[0].Text + a.Content[0].Input.Command
	}
	const bash = `"tools":[{"name":"Read"},{"name":"Bash"}]`
	prompt := `{"role":"user","content":"[sot-comm] you have mail: run comm-poll.sh"}`
	call := func(n int) string {
		return fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"out %d"}]}`, n, n, n)
	}
	cases := []struct {
		name, body, stop, said string
	}{
		{"first step", `{"messages":[` + prompt + `],` + bash + `}`, "tool_use", "comm-poll.sh"},
		{"second step", `{"messages":[` + prompt + `,` + call(1) + `],` + bash + `}`, "tool_use", "sotd send @a hi"},
		{"plan done", `{"messages":[` + prompt + `,` + call(1) + `,` + call(2) + `],` + bash + `}`, "end_turn", Reply},
		{"no Bash offered", `{"messages":[` + prompt + `]}`, "end_turn", Reply},
		{"no trigger", `{"messages":[{"role":"user","content":"hello"}],` + bash + `}`, "end_turn", Reply},
	}
	for _, c := range cases {
		if stop, said := ask(c.body); stop != c.stop || said != c.said {
			t.Errorf("%s: %s %q, want %s %q", c.name, stop, said, c.stop, c.said)
		}
	}
	if r := s.ToolResults(); !slices.Equal(r, []string{"out 1", "out 2"}) {
		t.Errorf("tool results %q, want each once", r)
	}
}
