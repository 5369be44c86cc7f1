package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// complete sources the bash script and runs its completion function on line,
// as bash does when Tab is pressed at its end: COMP_LINE and COMP_POINT hold
// the line, COMP_WORDS the words bash split it into at COMP_WORDBREAKS.
func complete(t *testing.T, script, line string) []string {
	t.Helper()
	prog := `source "$1"
COMP_LINE=$2 COMP_POINT=${#2}
COMP_WORDS=($(printf '%s\n' "$2" | sed 's/[@:=]/ & /g')) COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
[[ $2 == *[[:space:]@:=] ]] && COMP_CWORD=${#COMP_WORDS[@]}
_sotd
printf '%s\n' "${COMPREPLY[@]}"
`
	out, err := exec.Command("bash", "-c", prog, "bash", script, line).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

func scriptFile(t *testing.T, shell string) string {
	t.Helper()
	b, err := completionScript(shell)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "sotd."+shell)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script := scriptFile(t, "bash")
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	agentOnPath(t)
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sotd sen", []string{"send", "sent"}},
		{"sotd se", []string{"send", "sent", "serve", "service", "session-socket-path"}},
		{"sotd service ", []string{"install", "uninstall", "print"}},
		{"sotd service print -", []string{"--dry-run", "--os", "--bin"}},
		{"sotd service print --os w", []string{"windows"}},
		{"sotd poll --j", []string{"--json"}},
		{"sotd completion ", []string{"bash", "zsh"}},
		{"sotd hook p", []string{"prompt", "pretool", "posttool", "permission"}},
		{"sotd send --b", []string{"--broadcast"}},
		{"sotd send @bob --r", []string{"--reply-to"}},
		{"sotd lo", []string{"lock-clear", "lock-manager", "log"}},
		{"sotd log -", []string{"--since", "--grep", "--json"}},
		{"sotd wake check screen.txt --w", []string{"--windows"}},
		{"sotd rows screen --o", []string{"--out"}},
		{"sotd despawn --", []string{}},
		{"sotd ru", []string{"run"}},
		{"sotd run -- zzage", []string{"zzagent"}},
		{"sotd spawn --label x -- zzage", []string{"zzagent"}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if got := complete(t, script, tc.line); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%q completes to %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// zshDriver types each line and Tab into an interactive zsh on a pseudo
// terminal, then turns the completed line into a command that prints it.
const zshDriver = `
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "autoload -U compinit; compinit -u -D; source ${(q)1}; PS1='> '"
for typed in "${@[2,-1]}"; do
	zpty -w z "$typed"$'\t\C-aprint -r -- COMPLETED: \n'
	integer n=0
	while zpty -r z line; do
		line=${line//$'\r'/}
		[[ $line == COMPLETED:* ]] && { print -r -- "$line"; break }
		(( ++n > 500 )) && { print -r -- "COMPLETED: nothing for $typed"; break }
	done
done
zpty -d z
`

func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (Debian: apt-get install zsh); the zsh script is not checked")
	}
	script := scriptFile(t, "zsh")
	if out, err := exec.Command("zsh", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	agentOnPath(t)
	args := []string{"-f", "-c", zshDriver, "zsh", script}
	var want []string
	for _, tc := range [][2]string{
		{"sotd joi", "sotd join"},
		{"sotd service pr", "sotd service print"},
		{"sotd service print --os w", "sotd service print --os windows"},
		{"sotd poll --j", "sotd poll --json"},
		{"sotd log --g", "sotd log --grep"},
		{"sotd completion z", "sotd completion zsh"},
		{"sotd run -- zzage", "sotd run -- zzagent"},
	} {
		args = append(args, tc[0])
		want = append(want, "COMPLETED: "+tc[1])
	}
	// A completion that stays ambiguous leaves zsh's menu waiting for a key, so
	// the driver is bounded rather than left to the test binary's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "zsh", args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	if got := nonEmptyLines(string(out)); !reflect.DeepEqual(got, want) {
		t.Fatalf("zsh completed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// agentOnPath puts a program named zzagent, which no box has, first on PATH:
// the name the program after run's "--" completes to.
func agentOnPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zzagent"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func nonEmptyLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestNewVerbIsCompleted: a verb added to the table is completed, with the
// words and flags of its usage lines.
func TestNewVerbIsCompleted(t *testing.T) {
	frob := verb{"zzfrob", "frob things", `
usage: sotd zzfrob start|stop [--hard] [--mode fast|slow]
       sotd zzfrob status @handle --watch

Prose mentioning --not-a-flag is not read.`, nil}
	verbs = append(verbs, group{"Test", []verb{frob}})
	defer func() { verbs = verbs[:len(verbs)-1] }()
	got := completionOf(frob)
	want := completion{
		Name: "zzfrob", Synopsis: "frob things",
		Subs:    []string{"start", "stop", "status"},
		Flags:   []string{"--hard", "--mode", "--watch"},
		Values:  map[string][]string{"--mode": {"fast", "slow"}},
		Handles: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("completionOf = %+v\nwant %+v", got, want)
	}
	for _, shell := range []string{"bash", "zsh"} {
		b, err := completionScript(shell)
		if err != nil || !strings.Contains(string(b), "zzfrob") || !strings.Contains(string(b), "fast slow") {
			t.Fatalf("%s script lacks the new verb (%v)", shell, err)
		}
	}
}

// TestBashCompletionInteractive types Tab into a real interactive bash on a
// tmux pane and reads the pane: bash itself splits the line at
// COMP_WORDBREAKS, which holds @, so "sotd send @b" must still complete to
// "@bob", and a row's id completes after despawn and rows screen.
func TestBashCompletionInteractive(t *testing.T) {
	for _, tool := range []string{"bash", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	env := append(os.Environ(), "SOT_COMM_HOME="+filepath.Join(dir, "comm"), "SOT_SELF_HOST=box", "SOT_SOCKET=", "SOT_HOSTS="+filepath.Join(dir, "none.toml"))
	sotd := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command("sotd", args...)
		cmd.Env = append(env, "SOT_COMM_NAME="+name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sotd %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	serve := exec.Command("sotd", "serve", "--http", "off")
	serve.Env = env
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Signal(os.Interrupt)
		serve.Wait()
		exec.Command("tmux", "-S", filepath.Join(dir, "comm", "run", "box", "tmux", "rows.sock"), "kill-server").Run()
	})
	sock := filepath.Join(dir, "comm", "run", "box", "sotd.sock")
	testutil.Eventually(t, 10*time.Second, "the daemon's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	sotd("alice", "join")
	sotd("bob", "join")
	row := sotd("", "spawn", "--cwd", dir, "--", "sleep", "60")
	// The row ends before the daemon stops, so nothing writes to the home
	// while the test removes it.
	t.Cleanup(func() {
		despawn := exec.Command("sotd", "despawn", row)
		despawn.Env = env
		despawn.Run()
	})

	tmuxSock := filepath.Join(dir, "t.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", tmuxSock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	shell := "exec env -i PATH=" + quote(os.Getenv("PATH")) + " HOME=" + quote(dir) + " TERM=xterm" +
		" SOT_COMM_HOME=" + quote(filepath.Join(dir, "comm")) + " SOT_SELF_HOST=box SOT_COMM_NAME=alice" +
		" PS1='$ ' bash --norc --noprofile -i"
	tmux("new-session", "-d", "-x", "160", "-y", "40", shell)
	t.Cleanup(func() { exec.Command("tmux", "-S", tmuxSock, "kill-server").Run() })
	pane := func() string { return tmux("capture-pane", "-p") }
	// lastLine is the pane's last non-blank line: the prompt being typed at.
	lastLine := func() string {
		lines := nonEmptyLines(pane())
		if len(lines) == 0 {
			return ""
		}
		return lines[len(lines)-1]
	}
	typeLine := func(keys string, want func() bool, what string) {
		t.Helper()
		tmux("send-keys", "-t", "0", "C-u")
		tmux("send-keys", "-t", "0", "-l", keys)
		tmux("send-keys", "-t", "0", "Tab")
		testutil.Eventually(t, 10*time.Second, what, want)
	}
	defer func() {
		if t.Failed() {
			t.Logf("the pane shows:\n%s", pane())
		}
	}()
	testutil.Eventually(t, 10*time.Second, "bash's prompt", func() bool { return lastLine() == "$" })
	// The quotes keep the command line itself from reading as its output.
	tmux("send-keys", "-t", "0", "-l", `source <(sotd completion bash) && complete -p sotd && echo LOAD""ED`)
	tmux("send-keys", "-t", "0", "Enter")
	testutil.Eventually(t, 10*time.Second, "the script loaded", func() bool { return strings.Contains(pane(), "\nLOADED\n") })
	tmux("send-keys", "-t", "0", "-l", "clear")
	tmux("send-keys", "-t", "0", "Enter")
	testutil.Eventually(t, 10*time.Second, "a clear pane", func() bool { return strings.TrimSpace(pane()) == "$" })

	typeLine("sotd send @b", func() bool { return lastLine() == "$ sotd send @bob" }, `"sotd send @b" + Tab completing to "@bob"`)
	// Two candidates: Tab twice lists them, as bash shows them, and keeps the line.
	tmux("send-keys", "-t", "0", "C-u")
	tmux("send-keys", "-t", "0", "-l", "sotd send @")
	tmux("send-keys", "-t", "0", "Tab", "Tab")
	testutil.Eventually(t, 10*time.Second, `"sotd send @" + Tab Tab listing both handles`, func() bool {
		p := pane()
		return strings.Contains(p, "alice") && strings.Contains(p, "bob") && lastLine() == "$ sotd send @"
	})
	typeLine("sotd despawn ", func() bool { return lastLine() == "$ sotd despawn "+row }, `"sotd despawn " + Tab completing to the row's id`)
	typeLine("sotd rows screen ", func() bool { return lastLine() == "$ sotd rows screen "+row }, `"sotd rows screen " + Tab completing to the row's id`)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
