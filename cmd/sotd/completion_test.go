package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// complete sources the bash script and runs its completion function on line,
// as bash does when Tab is pressed at its end.
func complete(t *testing.T, script, line string) []string {
	t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	arr := make([]string, len(words))
	for i, w := range words {
		arr[i] = "'" + w + "'"
	}
	prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(arr, " ") + ")\nCOMP_CWORD=" +
		strconv.Itoa(len(words)-1) + "\n_sotd\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	out, err := exec.Command("bash", "-c", prog).CombinedOutput()
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
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sotd sen", []string{"send", "sent"}},
		{"sotd se", []string{"send", "sent", "serve", "service", "session-socket-path"}},
		{"sotd service ", []string{"install", "uninstall", "print", "--dry-run", "--os", "--bin"}},
		{"sotd service print --os w", []string{"windows"}},
		{"sotd poll --j", []string{"--json"}},
		{"sotd completion ", []string{"bash", "zsh"}},
		{"sotd hook p", []string{"prompt", "pretool", "posttool", "permission"}},
		{"sotd send --b", []string{"--broadcast"}},
		{"sotd wake check screen.txt --w", []string{"--windows"}},
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
	args := []string{"-f", "-c", zshDriver, "zsh", script}
	var want []string
	for _, tc := range [][2]string{
		{"sotd joi", "sotd join"},
		{"sotd service pr", "sotd service print"},
		{"sotd service print --os w", "sotd service print --os windows"},
		{"sotd poll --j", "sotd poll --json"},
		{"sotd completion z", "sotd completion zsh"},
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
