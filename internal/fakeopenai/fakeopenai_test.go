package fakeopenai

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

// TestStream checks the event stream a response request gets, in the form
// Codex reads (created, the message as one output item, completed with usage),
// and that the request's message texts are kept with their roles.
func TestStream(t *testing.T) {
	s := start(t)
	body := `{"model":"gpt-5","stream":true,"input":[` +
		`{"type":"message","role":"developer","content":[{"type":"input_text","text":"be brief"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]},` +
		`{"type":"function_call_output","call_id":"c1","output":"ignored"},` +
		`{"type":"message","role":"user","content":"plain"}]}`
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var types []string
	var text string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"item"`
			Response struct {
				ID    string         `json:"id"`
				Usage map[string]any `json:"usage"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		types = append(types, ev.Type)
		if ev.Type == "response.output_item.done" {
			text = ev.Item.Content[0].Text
		}
		if ev.Type == "response.completed" && (ev.Response.ID == "" || ev.Response.Usage == nil) {
			t.Errorf("response.completed %s lacks an id or usage", data)
		}
	}
	if want := []string{"response.created", "response.output_item.done", "response.completed"}; !slices.Equal(types, want) {
		t.Errorf("events %q, want %q", types, want)
	}
	if text != Reply {
		t.Errorf("reply %q, want %q", text, Reply)
	}
	reqs := s.Requests()
	if want := []string{"developer: be brief", "user: hello", "user: plain"}; len(reqs) != 1 || !slices.Equal(reqs[0].Texts, want) {
		t.Fatalf("requests %+v, want one with %q", reqs, want)
	}
	if !reqs[0].Has("hello") || reqs[0].Has("ignored") {
		t.Errorf("Has: the message texts only")
	}
}

// A request the fake does not model is answered {} and recorded.
func TestUnknown(t *testing.T) {
	s := start(t)
	resp, err := http.Get(s.URL + "/v1/something/new")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("answer %d %q, want 200 {}", resp.StatusCode, b)
	}
	if got := s.Unknown(); !slices.Equal(got, []string{"GET /v1/something/new"}) {
		t.Errorf("unknown %q", got)
	}
}

// TestPlan checks a planned turn: each request that offers exec_command gets
// the plan's next command as a call, then the reply; a request without the
// tool or the trigger gets the reply; call outputs are recorded once.
func TestPlan(t *testing.T) {
	s := start(t)
	s.Plan("please poll", "sotd poll", "sotd send @a hi")
	call := func(body string) (typ, cmd string) {
		t.Helper()
		resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev struct {
				Type string `json:"type"`
				Item struct {
					Type      string `json:"type"`
					Arguments string `json:"arguments"`
				} `json:"item"`
			}
			json.Unmarshal([]byte(data), &ev)
			if ev.Type == "response.output_item.done" {
				var args struct {
					Cmd string `json:"cmd"`
				}
				json.Unmarshal([]byte(ev.Item.Arguments), &args)
				return ev.Item.Type, args.Cmd
			}
		}
		t.Fatal("no output item")
		return "", ""
	}
	const tools = `"tools":[{"type":"function","name":"exec_command"}]`
	prompt := `{"type":"message","role":"user","content":[{"type":"input_text","text":"please poll"}]}`
	done := func(n int) string {
		return fmt.Sprintf(`,{"type":"function_call","name":"exec_command","call_id":"c%d"},{"type":"function_call_output","call_id":"c%d","output":"out %d"}`, n, n, n)
	}
	cases := []struct{ name, body, typ, cmd string }{
		{"first step", `{"input":[` + prompt + `],` + tools + `}`, "function_call", "sotd poll"},
		{"second step", `{"input":[` + prompt + done(1) + `],` + tools + `}`, "function_call", "sotd send @a hi"},
		{"plan done", `{"input":[` + prompt + done(1) + done(2) + `],` + tools + `}`, "message", ""},
		{"no tool offered", `{"input":[` + prompt + `]}`, "message", ""},
		{"no trigger", `{"input":[{"type":"message","role":"user","content":"hello"}],` + tools + `}`, "message", ""},
	}
	for _, c := range cases {
		if typ, cmd := call(c.body); typ != c.typ || cmd != c.cmd {
			t.Errorf("%s: %s %q, want %s %q", c.name, typ, cmd, c.typ, c.cmd)
		}
	}
	if o := s.Outputs(); !slices.Equal(o, []string{"out 1", "out 2"}) {
		t.Errorf("outputs %q, want each once", o)
	}
}
