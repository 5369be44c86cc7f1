package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/hooks"
	"github.com/sotcomm/sotd/mail"
)

// Every command the installed instructions name runs as written: the verb and
// its flags exist, and in a joined session each does its job (a send, with no
// daemon here, gets as far as the route).
func TestGuideCommandsRun(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOT_COMM_HOME", filepath.Join(dir, "comm"))
	t.Setenv("SOT_SELF_HOST", "box")
	t.Chdir(dir)
	body := filepath.Join(dir, "body.txt")
	os.WriteFile(body, []byte("line one\nline two\n"), 0o600)
	for _, name := range []string{"bob", "alice"} {
		t.Setenv("SOT_COMM_NAME", name)
		if code, out := runCLI(t, "sotd join"); code != 0 {
			t.Fatalf("join as %s: %d %s", name, code, out)
		}
	}
	// A line in alice's inbox for the guide's reply to name.
	const id = "01KBQ3Z5X8M2N4P6R7S9T0VWXY"
	inbox := filepath.Join(dir, "comm", "inbox", "alice.jsonl")
	os.WriteFile(inbox, []byte(`{"from":"bob","to":"alice","repo":"r","msg":"is it green?","ts":"2026-05-29T18:04:00Z","id":"`+id+`"}`+"\n"), 0o600)
	cmds := regexp.MustCompile("`(sotd [^`]*)`").FindAllStringSubmatch(hooks.Guide(), -1)
	if len(cmds) < 12 {
		t.Fatalf("found %d commands in the guide; the pattern no longer reads it", len(cmds))
	}
	fill := strings.NewReplacer("@handle", "@bob", "@that-handle", "@bob", "PATH", body, "--reply-to ID", "--reply-to "+mail.ShortID(id))
	for _, m := range cmds {
		line := fill.Replace(m[1])
		code, out := runCLI(t, line)
		switch {
		case code == 0:
		case code == client.ExitFailed && strings.Contains(out, "no sotd daemon found"):
		default:
			t.Errorf("%s (from the guide's `%s`): exit %d\n%s", line, m[1], code, out)
		}
	}
}

// runCLI runs one command line (words, 'single' or "double" quoted) in-process,
// with a short body on stdin.
func runCLI(t *testing.T, line string) (int, string) {
	t.Helper()
	var args []string
	for _, m := range regexp.MustCompile(`'([^']*)'|"([^"]*)"|(\S+)`).FindAllStringSubmatch(line, -1) {
		args = append(args, m[1]+m[2]+m[3])
	}
	if args[0] != "sotd" {
		t.Fatalf("%q is not a sotd command", line)
	}
	var out bytes.Buffer
	code := run(args[1:], strings.NewReader("from stdin\n"), &out, &out)
	return code, out.String()
}
