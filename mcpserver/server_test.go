package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/daemon"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
)

// box is a comm home under /tmp (a socket path under t.TempDir() can pass the
// OS's limit) with a real daemon serving it, and alice and bob joined.
func box(t *testing.T) (home.Home, Sessions) {
	t.Helper()
	t.Setenv(home.EnvSocket, "")
	dir := testutil.ShortDir(t, "mcp")
	h, err := home.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(daemon.Config{Home: h, Host: "box", HostsPath: filepath.Join(dir, "no-hosts.toml"), HTTP: "off"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the daemon: %v", err)
		}
	})
	testutil.Eventually(t, 10*time.Second, "the daemon's socket", func() bool {
		_, err := os.Stat(h.Socket("box"))
		return err == nil
	})
	cwd := t.TempDir()
	sessions := func(stdout, stderr io.Writer) (*client.Session, error) {
		return &client.Session{Home: h, Host: "box", Cwd: cwd, Stdout: stdout, Stderr: stderr, Now: time.Now}, nil
	}
	for _, name := range []string{"alice", "bob"} {
		t.Setenv(home.EnvName, name)
		var out strings.Builder
		s, _ := sessions(&out, &out)
		if code := s.Join(client.JoinArgs{}); code != client.ExitOK {
			t.Fatalf("join %s: %d %s", name, code, out.String())
		}
	}
	return h, sessions
}

// connect runs the server and the SDK's client in-process, over the SDK's
// in-memory transport, and initializes the session.
func connect(t *testing.T, sessions Sessions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(sessions, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ServerInfo.Name; got != Name {
		t.Errorf("the server says it is %q", got)
	}
	return cs
}

// callTool calls one tool and returns its text and whether it was a tool error.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: a protocol error, not a tool result: %v", name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

func TestToolsList(t *testing.T) {
	_, sessions := box(t)
	cs := connect(t, sessions)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"send": {"to", "text", "broadcast", "reply_to"}, "poll": nil, "list": {"all"}, "status": {"verb", "text"}, "sent": {"to"}, "log": {"with", "since", "grep"}}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools; want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		props, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		schema, ok := tool.InputSchema.(map[string]any)
		if !ok || schema["type"] != "object" {
			t.Errorf("%s: input schema %#v is not an object schema", tool.Name, tool.InputSchema)
			continue
		}
		got, _ := schema["properties"].(map[string]any)
		for _, p := range props {
			if _, ok := got[p]; !ok {
				t.Errorf("%s: no %q in its input schema %v", tool.Name, p, schema)
			}
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
}

// send files into the inbox as the CLI does; poll shows the line and moves the
// cursor, so a second poll has nothing.
func TestSendAndPoll(t *testing.T) {
	h, sessions := box(t)
	cs := connect(t, sessions)

	t.Setenv(home.EnvName, "bob")
	text, isErr := callTool(t, cs, "send", map[string]any{"to": "@alice", "text": "the build is green"})
	if isErr || !strings.Contains(text, "filed -> @alice") {
		t.Fatalf("send: %q (error %v)", text, isErr)
	}
	inbox, err := os.ReadFile(filepath.Join(h.InboxDir(), "alice.jsonl"))
	if err != nil || !strings.Contains(string(inbox), `"msg":"the build is green"`) || !strings.Contains(string(inbox), `"from":"bob"`) {
		t.Fatalf("alice's inbox holds %q (%v)", inbox, err)
	}

	t.Setenv(home.EnvName, "alice")
	text, isErr = callTool(t, cs, "poll", nil)
	if isErr || !strings.Contains(text, "@bob (") || !strings.Contains(text, "): the build is green") {
		t.Fatalf("poll: %q (error %v)", text, isErr)
	}
	cursor, err := os.ReadFile(filepath.Join(h.Dir, "read", "alice.cursor"))
	if err != nil || !strings.HasPrefix(string(cursor), "1 ") {
		t.Errorf("alice's cursor holds %q (%v); want it past the one line", cursor, err)
	}
	if text, _ := callTool(t, cs, "poll", map[string]any{}); text != "no new mail for @alice\n" {
		t.Errorf("a second poll: %q", text)
	}

	if text, isErr := callTool(t, cs, "list", nil); isErr || !strings.Contains(text, "@alice (me)") || !strings.Contains(text, "@bob") {
		t.Errorf("list: %q (error %v)", text, isErr)
	}
	if _, isErr := callTool(t, cs, "status", map[string]any{"verb": "working", "text": "reviewing bob's branch"}); isErr {
		t.Error("status working was refused")
	}
	if text, _ := callTool(t, cs, "status", nil); !strings.Contains(text, "reviewing bob's branch") {
		t.Errorf("status: %q", text)
	}
	t.Setenv(home.EnvName, "bob")
	if text, isErr := callTool(t, cs, "sent", map[string]any{"to": "alice"}); isErr || !strings.Contains(text, "the build is green") || !strings.Contains(text, "read") {
		t.Errorf("sent: %q (error %v)", text, isErr)
	}
}

// A reply through the tool names the line by the short id poll showed; the
// line is filed with in_reply_to, and log shows the thread, read lines
// included.
func TestReplyAndLog(t *testing.T) {
	h, sessions := box(t)
	cs := connect(t, sessions)
	t.Setenv(home.EnvName, "bob")
	if text, isErr := callTool(t, cs, "send", map[string]any{"to": "alice", "text": "is the build green?"}); isErr {
		t.Fatalf("send: %q", text)
	}
	t.Setenv(home.EnvName, "alice")
	text, _ := callTool(t, cs, "poll", nil)
	m := regexp.MustCompile(`^@bob \(\S+, id ([0-9A-Z]{8})\): is the build green\?\n$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("poll: %q; want the line with its short id", text)
	}
	if text, isErr := callTool(t, cs, "send", map[string]any{"to": "bob", "text": "yes", "reply_to": m[1]}); isErr || !strings.Contains(text, "filed -> @bob") {
		t.Fatalf("send with reply_to: %q (error %v)", text, isErr)
	}
	inbox, err := os.ReadFile(filepath.Join(h.InboxDir(), "bob.jsonl"))
	if err != nil || !regexp.MustCompile(`"msg":"yes","ts":"[^"]+","id":"[0-9A-Z]{26}","in_reply_to":"[0-9A-Z]{18}`+m[1]+`"}`).Match(inbox) {
		t.Fatalf("bob's inbox holds %q (%v); want the reply with in_reply_to", inbox, err)
	}
	text, isErr := callTool(t, cs, "log", map[string]any{"with": "@bob", "since": "1h", "grep": "YES"})
	if isErr || !regexp.MustCompile(`^@alice -> @bob \(\S+, id [0-9A-Z]{8}, re `+m[1]+`, unread\): yes\n$`).MatchString(text) {
		t.Errorf("log: %q (error %v); want alice's reply alone", text, isErr)
	}
}

// An escaped lone surrogate is no text: the SDK would hand send and status
// U+FFFD in its place, so the call is refused, as the socket refuses such a
// frame, and nothing is filed or written.
func TestTextToolsRefuseALoneSurrogate(t *testing.T) {
	h, sessions := box(t)
	cs := connect(t, sessions)
	t.Setenv(home.EnvName, "bob")
	for _, tc := range []struct{ tool, args string }{
		{"send", `{"to":"alice","text":"half \ud800 a pair"}`},
		{"send", `{"to":"alice","text":"a low half \udc00"}`},
		{"status", `{"verb":"idle","text":"half \ud83d"}`},
	} {
		text, isErr := callTool(t, cs, tc.tool, json.RawMessage(tc.args))
		if want := `the call holds an escaped lone surrogate (\u`; !isErr || !strings.Contains(text, want) {
			t.Errorf("%s %s: %q (tool error %v); want a tool error naming %q", tc.tool, tc.args, text, isErr, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(h.InboxDir(), "alice.jsonl")); err == nil {
		t.Errorf("alice's inbox holds %q; want nothing filed", b)
	}
	if text, _ := callTool(t, cs, "status", nil); strings.Contains(text, "half") {
		t.Errorf("status: %q; want nothing written", text)
	}
	if text, isErr := callTool(t, cs, "send", json.RawMessage(`{"to":"alice","text":"a pair \ud83d\ude00"}`)); isErr || !strings.Contains(text, "filed -> @alice") {
		t.Errorf("a surrogate pair: %q (tool error %v); want filed", text, isErr)
	}
}

// A call the CLI would refuse is a tool error whose text is the CLI's sentence.
func TestBadCalls(t *testing.T) {
	_, sessions := box(t)
	cs := connect(t, sessions)
	t.Setenv(home.EnvName, "bob")
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"unknown handle", "send", map[string]any{"to": "nobody", "text": "hi"}, "FAILED -> @nobody: no box knows that handle: nobody"},
		{"no text", "send", map[string]any{"to": "alice"}, "text"},
		{"no receiver", "send", map[string]any{"text": "hi"}, "no receiver: give to (a handle) or broadcast; nothing was sent"},
		{"not a handle", "send", map[string]any{"to": "a/b", "text": "hi"}, `not a handle: "a/b"`},
		{"unknown status", "status", map[string]any{"verb": "sleeping"}, `unknown verb "sleeping"`},
		{"summary past its bound", "status", map[string]any{"verb": "idle", "text": strings.Repeat("x", 600)}, "the status text is 600 bytes, over the 512-byte limit of a summary"},
		{"wrong type", "send", map[string]any{"to": "alice", "text": 7}, "text"},
		{"a reply to no line", "send", map[string]any{"to": "alice", "text": "hi", "reply_to": "ZZZZZZZZ"}, "FAILED -> @alice: reply-to ZZZZZZZZ names no line in @bob's inbox"},
		{"a log since no time", "log", map[string]any{"since": "yesterday"}, `since "yesterday" is neither an age`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr := callTool(t, cs, tt.tool, tt.args)
			t.Logf("%s %v: %q", tt.tool, tt.args, text)
			if !isErr || !strings.Contains(text, tt.want) {
				t.Errorf("%s %v: %q (tool error %v); want a tool error naming %q", tt.tool, tt.args, text, isErr, tt.want)
			}
		})
	}
}
