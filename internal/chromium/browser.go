//go:build linux || darwin

package chromium

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Browser is one headless Chromium attached to its page.
type Browser struct {
	t   testing.TB
	cmd *exec.Cmd
	ws  *websocket.Conn
	id  int
}

// Binary is the Chromium on PATH. Without one the test is skipped, except
// under CI, which installs Debian's chromium and so fails instead of passing
// by skipping.
func Binary(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium binary on PATH and CI is set; install Debian's chromium package")
	}
	t.Skip("no chromium binary on PATH: `apt-get install -y chromium` to run the status page test")
	return ""
}

// Stuck is how long the browser may take over one step (starting, loading the
// page, answering one DevTools call) before the test calls it stuck. The
// browser's speed is not what the tests measure: on CI's loaded machine a
// page's first load took past 10 s, so the bound fails only a step that
// never ends.
const Stuck = 30 * time.Second

// Open starts Chromium, attaches to its blank page and loads url there; the
// test's end kills it and every helper process it started. The load is a
// DevTools call, so a page that cannot load fails here with the browser's
// reason, and the first Eval runs on url's document, not on a navigation
// still under way.
func Open(t testing.TB, url string) *Browser {
	t.Helper()
	bin := Binary(t)
	prof := t.TempDir()
	start := time.Now()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+prof, "--remote-debugging-port=0", "--window-size=1100,700", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers die with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &Browser{t: t, cmd: cmd}
	t.Cleanup(b.close)

	var port string
	WaitFor(t, Stuck, "Chromium's DevToolsActivePort", func() bool {
		f, err := os.Open(filepath.Join(prof, "DevToolsActivePort"))
		if err != nil {
			return false
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		if sc.Scan() {
			port = strings.TrimSpace(sc.Text())
		}
		return port != ""
	})
	var wsURL string
	WaitFor(t, Stuck, "the page target", func() bool {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var targets []struct{ Type, URL, WebSocketDebuggerURL string }
		json.NewDecoder(resp.Body).Decode(&targets)
		for _, tg := range targets {
			if tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
				wsURL = tg.WebSocketDebuggerURL
				return true
			}
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), Stuck)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		t.Fatalf("attach to the page: %v", err)
	}
	ws.SetReadLimit(32 << 20) // screenshots
	b.ws = ws
	var nav struct{ ErrorText string }
	json.Unmarshal(b.Call("Page.navigate", map[string]any{"url": url}), &nav)
	if nav.ErrorText != "" {
		t.Fatalf("Chromium could not load %s: %s", url, nav.ErrorText)
	}
	t.Logf("Chromium started and loaded the page in %s", time.Since(start).Round(100*time.Millisecond))
	return b
}

func (b *Browser) close() {
	if b.ws != nil {
		b.ws.CloseNow()
	}
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	b.cmd.Wait()
}

// Call runs one DevTools method and returns its result. One that is not
// answered within Stuck fails the test: the connection cannot be read again
// after a read gives up, so there is no retrying it.
func (b *Browser) Call(method string, params any) json.RawMessage {
	b.t.Helper()
	b.id++
	ctx, cancel := context.WithTimeout(context.Background(), Stuck)
	defer cancel()
	msg, _ := json.Marshal(map[string]any{"id": b.id, "method": method, "params": params})
	if err := b.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	for {
		_, data, err := b.ws.Read(ctx)
		if err != nil {
			b.t.Fatalf("%s got no answer (the browser is stuck or gone): %v", method, err)
		}
		var res struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		json.Unmarshal(data, &res)
		if res.ID != b.id {
			continue // an event
		}
		if res.Error != nil {
			b.t.Fatalf("%s: %s", method, res.Error.Message)
		}
		return res.Result
	}
}

// Eval returns a JavaScript expression's value on the page, as a string.
func (b *Browser) Eval(expr string) string {
	b.t.Helper()
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	json.Unmarshal(b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	return fmt.Sprint(r.Result.Value)
}

// WaitDOM waits up to 20 s until expr is want on the page; a failure names the
// value it had last.
func (b *Browser) WaitDOM(expr, want string) {
	b.t.Helper()
	const within = 20 * time.Second
	got := b.Eval(expr)
	for end := time.Now().Add(within); got != want; got = b.Eval(expr) {
		if time.Now().After(end) {
			b.t.Fatalf("waited %v for %s == %q; it is %q", within, expr, want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// EnvArtifacts names the directory CI keeps test artifacts in.
const EnvArtifacts = "SOTD_ARTIFACTS"

// KeepScreenshot saves the page as it is rendered now as name in
// $SOTD_ARTIFACTS, else in the test's temporary directory, logs where, and
// returns the path.
func (b *Browser) KeepScreenshot(name string) string {
	b.t.Helper()
	dir := os.Getenv(EnvArtifacts)
	if dir == "" {
		dir = b.t.TempDir()
	}
	path := filepath.Join(dir, name)
	b.Screenshot(path)
	b.t.Logf("screenshot: %s", path)
	return path
}

// Screenshot writes the page as it is rendered now to path as a PNG.
func (b *Browser) Screenshot(path string) {
	b.t.Helper()
	var r struct{ Data string }
	json.Unmarshal(b.Call("Page.captureScreenshot", map[string]any{"format": "png"}), &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		b.t.Fatalf("screenshot is not a PNG (%d bytes, %v)", len(png), err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// WaitFor polls ok every 50 ms until it holds, failing the test after d.
func WaitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting %v for %s", d, what)
		}
	}
}
