//go:build agents && !windows

package integration

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/internal/fakeopenai"
	"github.com/sotcomm/sotd/internal/testutil"
)

// TestCodexAsksAboutAHookEditedAfterInstall: the trust `sotd hooks install`
// records is for the hooks as it wrote them. A Stop hook edited by hand after
// the install (a timeout added) is one the real Codex no longer trusts: a new
// session opens on "Hooks need review", and sotd doctor names the hook and how
// to go on. (The hooks as written run with no review: see
// TestCodexMailNeedsNoApproval and TestNewcomer.)
func TestCodexAsksAboutAHookEditedAfterInstall(t *testing.T) {
	t.Parallel()
	codex, b, proj, settings := trustBox(t)
	editStopHook(t, settings)
	b.serve()
	out := b.run("", "", "doctor").stdout
	if !strings.Contains(out, "WARN  codex hooks    Codex skips sotd's hooks in "+settings+": changed since sotd wrote them, and not trusted as they are now: Stop") ||
		!regexp.MustCompile(`(?m)^healthy, \d+ warnings? \(see WARN above\)$`).MatchString(out) {
		t.Errorf("doctor after the edit:\n%s", out)
	}
	id := spawnRow(t, b, "Codex-box", "codex", proj, codex)
	testutil.Eventually(t, agentStep, `Codex asking for review of the edited hook ("Hooks need review")`, func() bool {
		return strings.Contains(b.run("", "", "rows", "screen", id).stdout, "Hooks need review")
	})
}

// TestCodexListsInstalledHooksTrusted asks the real Codex itself, through its
// app-server's hooks/list, what it makes of the hooks `sotd hooks install`
// wrote: each is trusted, by the very hash sotd computes and recorded. A hook
// edited by hand after the install is "modified" to Codex, as to sotd.
func TestCodexListsInstalledHooksTrusted(t *testing.T) {
	t.Parallel()
	codex, b, proj, settings := trustBox(t)
	agree := func(want map[string]hooks.Trust) {
		t.Helper()
		ct, err := hooks.ReadCodexTrust(settings)
		if err != nil {
			t.Fatal(err)
		}
		listed := codexHooksList(t, b, codex, proj)
		for _, h := range ct.Hooks {
			l, ok := listed[h.Key]
			switch {
			case !ok:
				t.Errorf("Codex lists no hook at %s (%s): %v", h.Key, h.Command, listed)
			case l.CurrentHash != h.Hash:
				t.Errorf("%s: Codex hashes it %s, sotd %s", h.Key, l.CurrentHash, h.Hash)
			case l.TrustStatus != string(want[h.Key]) || h.Trust != want[h.Key]:
				t.Errorf("%s: Codex calls it %s, sotd %s; want %s", h.Key, l.TrustStatus, h.Trust, want[h.Key])
			}
		}
	}
	want := map[string]hooks.Trust{}
	ct, err := hooks.ReadCodexTrust(settings)
	if err != nil || len(ct.Hooks) != 7 {
		t.Fatalf("the installed hooks: %v %v", ct.Hooks, err)
	}
	for _, h := range ct.Hooks {
		want[h.Key] = hooks.Trusted
	}
	agree(want)

	editStopHook(t, settings)
	want[settings+":stop:0:0"] = hooks.Modified
	agree(want)
}

// trustBox is a box whose Codex home has sotd's hooks installed (and so
// trusted), for a project folder: the real codex, the box, the folder and
// hooks.json.
func trustBox(t *testing.T) (codex string, b *box, proj, settings string) {
	t.Helper()
	codex = realCodex(t, "Codex's trust in sotd's hooks")
	api, err := fakeopenai.Start(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	b = newBox(t, "box")
	proj = filepath.Join(filepath.Dir(b.home), "proj")
	return codex, b, proj, filepath.Join(codexInstalled(t, b, api, "", nil, proj), "hooks.json")
}

// editStopHook edits sotd's Stop hook in hooks.json by hand, as a person
// might: a timeout added.
func editStopHook(t *testing.T, settings string) {
	t.Helper()
	body, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), `"command": "sotd hook stop",`, `"command": "sotd hook stop", "timeout": 5,`, 1)
	if edited == string(body) {
		t.Fatalf("no Stop hook to edit in:\n%s", body)
	}
	if err := os.WriteFile(settings, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
}

// listedHook is one hook as Codex's hooks/list reports it.
type listedHook struct {
	Key, Command, CurrentHash, TrustStatus string
}

// codexHooksList runs the real Codex's app-server on stdio in box b's
// environment and returns its hooks/list for cwd, by key.
func codexHooksList(t *testing.T, b *box, codex, cwd string) map[string]listedHook {
	t.Helper()
	cmd := exec.Command(codex, "app-server")
	cmd.Env, cmd.Dir = b.env(""), cwd
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	cwdJSON, _ := json.Marshal([]string{cwd})
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"sotd-test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":` + string(cwdJSON) + `}}`,
	} {
		if _, err := io.WriteString(in, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan map[string]listedHook, 1)
	go func() {
		defer close(got)
		dec := json.NewDecoder(out)
		for {
			var r struct {
				ID     int `json:"id"`
				Result struct {
					Data []struct {
						Hooks []listedHook `json:"hooks"`
					} `json:"data"`
				} `json:"result"`
			}
			if dec.Decode(&r) != nil {
				return
			}
			if r.ID == 2 {
				m := map[string]listedHook{}
				for _, d := range r.Result.Data {
					for _, h := range d.Hooks {
						m[h.Key] = h
					}
				}
				got <- m
				return
			}
		}
	}()
	select {
	case m, ok := <-got:
		if !ok {
			t.Fatal("codex app-server ended without answering hooks/list")
		}
		return m
	case <-time.After(agentStep):
		t.Fatalf("codex app-server did not answer hooks/list in %v", agentStep)
	}
	return nil
}
