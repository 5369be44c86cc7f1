package ancestry

import (
	"errors"
	"testing"
)

// TestClassify: classify calls a process an agent layer (native or a node host)
// by the base name of argv[0] or of its program file, or, for node, by an
// argument that names an agent or lies in an agent's npm package.
func TestClassify(t *testing.T) {
	const cc = "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"
	for _, tc := range []struct {
		name string
		p    Proc
		want bool
	}{
		{"claude by argv[0]", Proc{Argv: []string{"claude", "-p", "hi"}}, true},
		{"claude by path", Proc{Argv: []string{"/home/u/.local/bin/claude"}}, true},
		{"codex", Proc{Argv: []string{"codex", "exec", "x"}}, true},
		{"claude by program file, argv[0] renamed", Proc{Argv: []string{"agent-host"}, Exe: "/opt/claude"}, true},
		{"a versioned native install is named by argv[0]", Proc{Argv: []string{"claude"}, Exe: "/home/u/.local/share/claude/versions/2.0.50"}, true},
		{"Windows program file, any case", Proc{Argv: []string{`C:\Users\u\AppData\Roaming\npm\CLAUDE.EXE`}}, true},
		{"codex.exe", Proc{Argv: []string{"codex.exe"}}, true},
		{"a name that only starts like an agent", Proc{Argv: []string{"claude-monitor"}}, false},
		{"a name that only ends like one", Proc{Argv: []string{"myclaude"}}, false},
		{"case matters off Windows program files", Proc{Argv: []string{"Claude"}}, false},
		{"bash", Proc{Argv: []string{"bash", "-c", "claude -p hi"}}, false},
		{"node in claude's package", Proc{Argv: []string{"node", "--no-warnings", cc, "-p", "hi"}}, true},
		{"node on claude's npm shim", Proc{Argv: []string{"/usr/bin/node", "/usr/local/bin/claude"}}, true},
		{"node in codex's package, Windows path", Proc{Argv: []string{`C:\Program Files\nodejs\node.exe`, `C:\Users\u\AppData\Roaming\npm\node_modules\@openai\codex\bin\codex.js`}}, true},
		{"node on the package folder itself", Proc{Argv: []string{"nodejs", "/usr/lib/node_modules/@openai/codex"}}, true},
		{"node by program file", Proc{Argv: []string{"MainThread", cc}, Exe: "/usr/bin/node"}, true},
		{"node in another package of the scope", Proc{Argv: []string{"node", "/x/node_modules/@openai/codex-sdk/index.js"}}, false},
		{"node running something else", Proc{Argv: []string{"node", "server.js"}}, false},
		{"a node whose title is claude", Proc{Argv: []string{"claude"}, Exe: "/usr/bin/node"}, true},
		{"python on claude's script is no host", Proc{Argv: []string{"python3", cc}}, false},
		{"node with arguments unknown is not counted (Check refuses it)", Proc{Argv: []string{"node.exe"}, ArgsUnknown: true}, false},
		{"a native agent with arguments unknown is one", Proc{Argv: []string{"claude.exe"}, ArgsUnknown: true}, true},
		{"nothing read", Proc{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := classify(tc.p)
			if got := k == nativeAgent || k == nodeAgent; got != tc.want {
				t.Fatalf("classify(%+v) = %v, an agent %v; want %v", tc.p, k, got, tc.want)
			}
		})
	}
}

// AgentOf names what classify finds from a command line alone (a row's argv,
// before any process runs it).
func TestAgentOf(t *testing.T) {
	const cc = "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"
	for _, tc := range []struct {
		argv []string
		want Agent
	}{
		{[]string{"claude", "--resume"}, "claude"},
		{[]string{"/home/u/.local/bin/claude"}, "claude"},
		{[]string{`C:\npm\CLAUDE.EXE`}, "claude"},
		{[]string{"codex"}, "codex"},
		{[]string{"node", "--no-warnings", cc}, "claude"},
		{[]string{"/usr/bin/node", "/usr/local/bin/codex", "exec"}, "codex"},
		{[]string{"nodejs", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}, "codex"},
		{[]string{"node", "server.js"}, ""},
		{[]string{"bash", "-c", "claude"}, ""},
		{[]string{"claude-monitor"}, ""},
		{[]string{"sh"}, ""},
		{nil, ""},
	} {
		if got := AgentOf(tc.argv); got != tc.want {
			t.Errorf("AgentOf(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

func TestLayers(t *testing.T) {
	const cli = "/n/node_modules/@openai/codex/bin/codex.js"
	for _, tc := range []struct {
		name  string
		specs []string // top first, as line takes them
		want  int
		err   error
	}{
		{"none", []string{"init", "bash", "sotd send"}, 0, nil},
		{"one", []string{"init", "claude", "bash", "sotd send"}, 1, nil},
		{"claude under claude", []string{"init", "claude", "claude -p hi", "sotd send"}, 2, nil},
		{"node host and its native child with equal arguments count once",
			[]string{"init", "node " + cli + " exec fix it", "codex exec fix it", "bash", "sotd send"}, 1, nil},
		{"node flags before the script do not count in the comparison",
			[]string{"init", "node --max-old-space-size=4096 " + cli + " exec x", "codex exec x", "sotd send"}, 1, nil},
		{"different arguments count twice",
			[]string{"init", "node " + cli + " exec fix it", "codex exec other", "sotd send"}, 2, nil},
		{"one argument more counts twice",
			[]string{"init", "node " + cli + " exec", "codex exec --json", "sotd send"}, 2, nil},
		{"a child that is not direct counts twice",
			[]string{"init", "node " + cli + " exec x", "sh", "codex exec x", "sotd send"}, 2, nil},
		{"a native agent with arguments unknown never pairs",
			[]string{"init", "node " + cli, "? codex", "sotd send"}, 2, nil},
		{"a native agent above a node host does not pair with it",
			[]string{"init", "codex exec x", "node " + cli + " exec x", "sotd send"}, 2, nil},
		{"a node with arguments unknown is refused",
			[]string{"init", "? node", "bash", "sotd send"}, 0, ErrUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, _, leaf := line(1, tc.specs...)
			chain, err := walk(tb, leaf, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := layers(chain)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("layers error = %v, want %v", err, tc.err)
			}
			if len(got) != tc.want {
				t.Fatalf("layers = %d (%s), want %d", len(got), names(got), tc.want)
			}
		})
	}
}
