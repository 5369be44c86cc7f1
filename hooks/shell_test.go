package hooks

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
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
		{"env -S splits its string", "env -S 'sotd send @a hi'", true},
		{"env -S glued", "env '-Ssotd poll'", true},
		{"env --split-string=", "env '--split-string=sotd poll'", true},
		{"env -S then more words", "env -S 'sotd send' @a hi", true},
		{"watch", "watch -n 5 sotd poll", true},
		{"watch a quoted line", "watch 'sotd poll | head'", true},
		{"parallel's command", "parallel sotd send @x ::: a b", true},
		{"parallel's operands", "parallel ::: 'sotd poll'", true},
		{"busybox sh -c", "busybox sh -c 'sotd poll'", true},
		{"python3 -c", `python3 -c 'import os; os.system("sotd send @a hi")'`, true},
		{"perl -e", `perl -e 'system("comm-poll.sh")'`, true},
		{"node -e", `node -e 'require("child_process").execSync("sotd poll")'`, true},
		{"sotd mcp, fed a file", "sotd mcp < calls.jsonl", true},
		{"sotd stdio-bridge", "sotd stdio-bridge --endpoint x", true},
		{"sotd sent", "sotd sent", true},
		{"sotd log reads the session's mail", "sotd log @bob --grep x", true},
		{"watch of something else", "watch -n 5 date", false},
		{"python3 of something else", "python3 -c 'print(1)'", false},
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

		// What only a parser sees: quoting joined and decoded, and commands
		// that other programs run.
		{"an ANSI-C quoted name", `$'sotd' send @x hi`, true},
		{"an ANSI-C escaped name", `$'\x73otd' poll`, true},
		{"a name in two quotings", `"so"'td' poll`, true},
		{"a backslash in the name", `s\otd poll`, true},
		{"an ANSI-C quoted verb", `sotd $'poll'`, true},
		{"find -exec", `find . -exec sotd poll \;`, true},
		{"find -execdir after another action", `find . -name x -exec true {} + -execdir comm-poll.sh \;`, true},
		{"find -ok through a shell", `find . -ok sh -c 'sotd poll' ';'`, true},
		{"sudo find -exec", `sudo find / -exec sotd poll {} +`, true},
		{"an assignment's substitution", "x=$(sotd poll)", true},
		{"a local's substitution", "f() { local x=$(sotd poll); }", true},
		{"bash -c in single quotes", `bash -c 'sotd send @a hi'`, true},
		{"bash -c with a variable in it", `bash -c "cd $dir && sotd poll"`, true},
		{"sh -c in ANSI-C quotes", `sh -c $'sotd\x20poll'`, true},
		{"bash -c in bash -c", `bash -c "bash -c 'sotd poll'"`, true},
		{"eval of a quoted line", `eval 'sotd send @a hi'`, true},
		{"xargs running a shell", `echo x | xargs sh -c 'sotd poll'`, true},
		{"a process substitution", "diff <(sotd list) /dev/null", true},
		{"a substitution in a parameter default", `echo "${x:-$(sotd poll)}"`, true},
		{"in a test", `[[ -n $(sotd poll) ]]`, true},
		{"in a case", "case $x in a) sotd poll;; esac", true},
		{"in a while condition", "while sotd poll; do :; done", true},
		{"a substitution in an unquoted heredoc", "cat <<EOF\nmail: $(sotd poll)\nEOF", true},
		{"a heredoc fed to bash", "bash <<'EOF'\ncd x\nsotd send @a hi\nEOF", true},
		{"a heredoc fed to sh -s", "sh -s -- arg <<EOF\ncomm-poll.sh\nEOF", true},
		{"a here-string fed to bash", `bash <<< 'sotd poll'`, true},
		{"bash fed a heredoc with an escaped dollar", "bash <<EOF\necho \\$(sotd poll)\nEOF", true},

		{"echo's arguments", "echo sotd poll", false},
		{"printf's arguments", `printf '%s\n' sotd poll`, false},
		{"a quoted heredoc's substitution", "cat <<'EOF'\nmail: $(sotd poll)\nEOF", false},
		{"a heredoc fed to a non-shell", "python3 <<'EOF'\nsotd poll\nEOF", false},
		{"bash -c ignores its stdin", "bash -c 'echo hi' <<EOF\nsotd poll\nEOF", false},
		{"bash running a script with a heredoc for it", "bash build.sh <<EOF\nsotd poll\nEOF", false},
		{"an ANSI-C name that is not sotd", `$'sotd\x2e' poll`, false},
		{"a name cut by an ANSI-C NUL", `$'sotdx\0' poll`, false},
		{"find without an action", "find . -name sotd -o -name poll", false},
		{"find -exec of another program", `find . -exec grep sotd {} \;`, false},
		{"a variable as the name", "$SOTD poll", false},
		{"bash -c of a variable", `bash -c "$cmd"`, false},
		{"a function named like a verb", "poll() { echo; }; poll", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RunsCommVerb(tt.command)
			if err != nil || got != tt.want {
				t.Errorf("RunsCommVerb(%q) = %v, %v; want %v", tt.command, got, err, tt.want)
			}
		})
	}
}

// A command the guard cannot read is an error, not a pass: what it could not
// check might run a verb.
func TestRunsCommVerbUnreadable(t *testing.T) {
	nested := "sotd poll"
	for range maxNesting + 1 {
		q, err := syntax.Quote(nested, syntax.LangBash)
		if err != nil {
			t.Fatal(err)
		}
		nested = "bash -c " + q
	}
	tests := []struct {
		name, command, says string
	}{
		{"an open quote", `sotd poll "`, "does not parse as bash"},
		{"an open substitution", `echo $(sotd poll`, "does not parse as bash"},
		{"an open quote in bash -c", `bash -c 'echo "hi'`, "does not parse as bash"},
		{"shells nested too deep", nested, "nested more than 8 deep"},
		{"too long", "echo " + strings.Repeat("x", maxCommand), "longer than 128 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RunsCommVerb(tt.command)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("RunsCommVerb(%.60q) = %v, %v; want an error that says %q", tt.command, got, err, tt.says)
			}
		})
	}
}

// Deep nesting within the bound is read to its bottom, in time.
func TestRunsCommVerbReadsDeepNesting(t *testing.T) {
	deep := strings.Repeat("$(", 10000) + "sotd poll" + strings.Repeat(")", 10000)
	if got, err := RunsCommVerb(deep); !got || err != nil {
		t.Errorf("10,000 nested substitutions: %v, %v; want the poll at the bottom seen", got, err)
	}
	nested := "sotd poll"
	for range maxNesting {
		q, _ := syntax.Quote(nested, syntax.LangBash)
		nested = "bash -c " + q
	}
	if got, err := RunsCommVerb(nested); !got || err != nil {
		t.Errorf("%d nested shells: %v, %v; want the poll at the bottom seen", maxNesting, got, err)
	}
}

func FuzzRunsCommVerb(f *testing.F) {
	for _, s := range []string{"sotd poll", `bash -c "$(echo 'x')"`, "cat <<-E\n\tx\n\tE", "a\\", `"unterminated`, "'open", "$(", "`", "2>", "<<",
		`$'sotd' send @x hi`, `find . -exec sotd poll \;`, `$'\x00\u12\c'`, "bash <<E\n$(sotd poll)\nE", `eval "$x" '$(y)'`, `sh -c "${a:-$(b)}"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		RunsCommVerb(s)
	})
}
