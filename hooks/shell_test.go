package hooks

import (
	"strings"
	"testing"
)

func TestRunsCommVerb(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    bool
	}{
		// Runs a comm verb.
		{"sotd send", `sotd send @bob 'done with the backend'`, true},
		{"sotd poll", "sotd poll", true},
		{"each verb: join", "sotd join --name x", true},
		{"each verb: leave", "sotd leave", true},
		{"each verb: status", "sotd status working 'tests'", true},
		{"each verb: list", "sotd list --json", true},
		{"sotd by path", "/usr/local/bin/sotd poll", true},
		{"sotd.exe on Windows", `'C:\Tools\SOTD.EXE' send @a hi`, true},
		{"comm script by path", "~/.sot-comm/bin/comm-poll.sh", true},
		{"comm script through a variable path", "$HOME/.sot-comm/bin/comm-send.sh @bob hi", true},
		{"after cd &&", "cd /tmp && sotd poll", true},
		{"after ;", "true; sotd poll", true},
		{"in a pipe", "sotd poll | head -5", true},
		{"after ||", "false || comm-poll.sh", true},
		{"backgrounded", "sotd poll & wait", true},
		{"on a later line", "echo start\nsotd send @a hi", true},
		{"in a subshell", "(cd x; sotd poll)", true},
		{"in a group", "{ sotd poll; }", true},
		{"after then", "if true; then sotd poll; fi", true},
		{"after do", "for i in 1 2; do comm-send.sh @a $i; done", true},
		{"with an assignment", "SOT_COMM_NAME=x sotd send @a hi", true},
		{"under env", "env -u HOME SOT_COMM_NAME=x sotd poll", true},
		{"under timeout", "timeout 5 sotd poll", true},
		{"under timeout with options", "timeout -s KILL 5 sotd poll", true},
		{"under nohup and nice", "nohup nice -n 5 sotd poll", true},
		{"under sudo -u", "sudo -u me sotd poll", true},
		{"under xargs", "echo hi | xargs -I{} sotd send @a {}", true},
		{"command substitution", "echo $(sotd poll)", true},
		{"substitution in double quotes", `echo "mail: $(comm-poll.sh)"`, true},
		{"backquotes", "echo `sotd poll`", true},
		{"backquotes in double quotes", "echo \"`sotd poll`\"", true},
		{"nested substitution", "echo $(echo $(sotd poll))", true},
		{"bash -c", `bash -c "sotd poll"`, true},
		{"sh -lc", `sh -lc 'cd x && comm-poll.sh'`, true},
		{"bash with a script", "bash ~/.sot-comm/bin/comm-send.sh @a hi", true},
		{"bash -x with a script", "bash -x comm-poll.sh", true},
		{"source", "source ~/.sot-comm/bin/comm-poll.sh", true},
		{"dot", ". comm-poll.sh", true},
		{"eval", `eval "sotd poll"`, true},
		{"escaped newline", "sotd \\\npoll", true},
		{"redirected", "sotd poll >out.txt 2>&1", true},
		{"redirection first", "2>/dev/null sotd poll", true},
		{"after a heredoc", "cat <<EOF\nhello\nEOF\nsotd poll", true},

		// Mentions one, runs none.
		{"empty", "", false},
		{"send in a double-quoted string", `echo "sotd send @bob hi"`, false},
		{"send in a single-quoted string", `echo 'run comm-send.sh'`, false},
		{"a commit message", `git commit -m "send the poll results; list them"`, false},
		{"grep for a script", `grep -rn "comm-poll.sh" .`, false},
		{"reading the script", "cat ~/.sot-comm/bin/comm-send.sh", false},
		{"listing the bin folder", "ls ~/.sot-comm/bin/comm-poll.sh", false},
		{"a word that is not the verb", "echo sotd send", false},
		{"other sotd verbs", "sotd wake check screen.txt", false},
		{"sotd hooks install", "sotd hooks install --claude", false},
		{"sotd with no verb", "sotd", false},
		{"a verb word elsewhere", "git send-email && make list", false},
		{"a comment", "make # then sotd poll", false},
		{"a redirection target", "echo hi > comm-poll.sh", false},
		{"a heredoc body", "cat <<'EOF'\nsotd send @a hi\nEOF", false},
		{"an indented heredoc body", "cat <<-EOF\n\tsotd poll\n\tEOF", false},
		{"a heredoc commit message", "git commit -m \"$(cat <<'EOF'\nsotd send is fixed\nEOF\n)\"", false},
		{"a name built at run time", "$(which sotd) send @a hi", false},
		{"a verb built at run time", "sotd $(echo send) @a hi", false},
		{"bash -c with a string that mentions it", `bash -c 'echo "sotd poll"'`, false},
		{"a script with a similar name", "./mycomm-poll.sh", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RunsCommVerb(tt.command); got != tt.want {
				t.Errorf("RunsCommVerb(%q) = %v, want %v (commands %q)", tt.command, got, tt.want, simpleCommands(tt.command, 0))
			}
		})
	}
}

// A hostile command cannot make the guard recurse without end.
func TestRunsCommVerbBoundsNesting(t *testing.T) {
	deep := strings.Repeat("$(", 10000) + "sotd poll" + strings.Repeat(")", 10000)
	RunsCommVerb(deep)
	deepShell := strings.Repeat(`bash -c "`, 50) + "sotd poll"
	RunsCommVerb(deepShell)
}

func FuzzRunsCommVerb(f *testing.F) {
	for _, s := range []string{"sotd poll", `bash -c "$(echo 'x')"`, "cat <<-E\n\tx\n\tE", "a\\", `"unterminated`, "'open", "$(", "`", "2>", "<<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		RunsCommVerb(s)
	})
}
