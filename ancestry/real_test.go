//go:build linux || darwin

package ancestry

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/machine"
)

// These tests build real process trees from the test binary itself: each
// process runs as one hop of a plan (named by a symlink or a copy called claude,
// node, …) and starts the next, and the last one waits for its stdin to close.

const planEnv = "ANCESTRY_TEST_PLAN"

type hop struct {
	Name   string   `json:"name"`             // the program file, in the plan's folder
	Args   []string `json:"args"`             // its arguments
	Argv0  string   `json:"argv0,omitempty"`  // argv[0] when it is not the program file's path
	Copy   bool     `json:"copy,omitempty"`   // a copy of the test binary, not a symlink
	Detach bool     `json:"detach,omitempty"` // start the next hop and exit at once
}

type plan struct {
	Dir   string `json:"dir"`
	Hops  []hop  `json:"hops"`
	Index int    `json:"index"` // the hop this process is
	// When the home is set, the last hop reads one line from stdin, then calls
	// Allowed and prints its answer.
	Home, Host, Row string
}

func TestMain(m *testing.M) {
	if s := os.Getenv(planEnv); s != "" {
		os.Exit(runHop(s))
	}
	goleak.VerifyTestMain(m)
}

func runHop(s string) int {
	var p plan
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		fmt.Fprintln(os.Stderr, "bad plan:", err)
		return 2
	}
	fmt.Printf("hop %d %d\n", p.Index, os.Getpid())
	if p.Index+1 < len(p.Hops) {
		cmd := p.command(p.Index + 1)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start the next hop:", err)
			return 1
		}
		if p.Hops[p.Index].Detach {
			return 0
		}
		_ = cmd.Wait()
	} else if p.Home != "" {
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return 1
		}
		fmt.Printf("allowed %v\n", Allowed(home.Home{Dir: p.Home}, p.Host, p.Row))
	}
	// Every hop lives until the test closes stdin, so a detached hop's parent
	// outlives it.
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

func (p plan) command(i int) *exec.Cmd {
	next := p
	next.Index = i
	b, err := json.Marshal(next)
	if err != nil {
		panic(err)
	}
	h := p.Hops[i]
	cmd := exec.Command(filepath.Join(p.Dir, h.Name), h.Args...)
	if h.Argv0 != "" {
		cmd.Args[0] = h.Argv0
	}
	cmd.Env = append(os.Environ(), planEnv+"="+string(b))
	return cmd
}

// tree is a running plan: pids[i] is hop i's process.
type tree struct {
	pids  []int
	in    *os.File
	lines *bufio.Reader
	out   *os.File
}

func (tr *tree) leaf() int { return tr.pids[len(tr.pids)-1] }

// startTree runs p's hops, one process each, and waits until every one has
// said its pid. Closing stdin at cleanup ends them all.
func startTree(t *testing.T, p plan) *tree {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p.Dir = t.TempDir()
	for _, h := range p.Hops {
		path := filepath.Join(p.Dir, h.Name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if h.Copy {
			b, err := os.ReadFile(self)
			if err == nil {
				err = os.WriteFile(path, b, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink(self, path); err != nil {
			t.Fatal(err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := p.command(0)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	tr := &tree{pids: make([]int, len(p.Hops)), in: inW, out: outR, lines: bufio.NewReader(outR)}
	t.Cleanup(func() {
		tr.in.Close()
		_ = cmd.Wait()
		tr.out.Close()
	})
	for range p.Hops {
		var i, pid int
		if _, err := fmt.Sscanf(tr.readLine(t), "hop %d %d", &i, &pid); err != nil || i < 0 || i >= len(p.Hops) {
			t.Fatalf("a hop said something else: %v", err)
		}
		tr.pids[i] = pid
	}
	return tr
}

func (tr *tree) readLine(t *testing.T) string {
	t.Helper()
	if err := tr.out.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	s, err := tr.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("read from the process tree: %v", err)
	}
	return strings.TrimSuffix(s, "\n")
}

const ccCLI = "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"

var (
	runnerHop = hop{Name: "sh", Args: []string{"-c", "row runner"}}
	leafHop   = hop{Name: "sotd", Args: []string{"send", "@peer", "hi"}}
	claudeHop = hop{Name: "claude"}
	claudeP   = hop{Name: "claude", Args: []string{"-p", "hi"}}
)

// TestRealRowTrees records hop 0 of each tree as the runner of row ws-a and
// judges the last hop, which names ws-a.
func TestRealRowTrees(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hops   []hop
		ok     bool
		agents int
	}{
		{"no agent", []hop{runnerHop, leafHop}, true, 0},
		{"one agent", []hop{runnerHop, claudeHop, {Name: "bash"}, leafHop}, true, 1},
		{"the runner is the agent", []hop{claudeHop, leafHop}, true, 1},
		{"claude -p inside claude", []hop{runnerHop, claudeHop, claudeP, leafHop}, false, 2},
		{"node host and its native child with equal arguments",
			[]hop{runnerHop, {Name: "node", Args: []string{"--no-warnings", ccCLI, "--resume", "x"}}, {Name: "claude", Args: []string{"--resume", "x"}}, leafHop}, true, 1},
		{"node host and its native child with other arguments",
			[]hop{runnerHop, {Name: "node", Args: []string{ccCLI, "--resume", "x"}}, {Name: "claude", Args: []string{"--resume", "y"}}, leafHop}, false, 2},
		{"an agent known by its program file only",
			[]hop{runnerHop, {Name: "copy/claude", Copy: true, Argv0: "agent-host"}, claudeP, leafHop}, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home.Home{Dir: t.TempDir()}
			tr := startTree(t, plan{Hops: tc.hops})
			if err := RecordRunner(h, "box", "ws-a", tr.pids[0]); err != nil {
				t.Fatal(err)
			}
			c, err := ForHome(h, "box")
			if err != nil {
				t.Fatal(err)
			}
			v, err := c.Check(tr.leaf(), "ws-a")
			if err != nil {
				t.Fatal(err)
			}
			if v.OK != tc.ok || len(v.Agents) != tc.agents || v.Runner != "ws-a" {
				t.Fatalf("Check = ok %v, %d agents, runner %q (%s); want ok %v, %d agents", v.OK, len(v.Agents), v.Runner, v.Reason, tc.ok, tc.agents)
			}
			if want := len(tc.hops); len(v.Chain) != want || v.Chain[want-1].PID != tr.pids[0] {
				t.Fatalf("the walk read %d processes, want %d ending at the runner %d", len(v.Chain), want, tr.pids[0])
			}
			for i, p := range v.Chain {
				if p.PID != tr.pids[len(tr.pids)-1-i] || p.ArgsUnknown || p.Exe == "" {
					t.Fatalf("chain[%d] = %+v, want pid %d read in full", i, p, tr.pids[len(tr.pids)-1-i])
				}
				if h := tc.hops[len(tc.hops)-1-i]; h.Argv0 == "" && !slices.Equal(p.Argv[1:], h.Args) {
					t.Fatalf("chain[%d] arguments %q, want %q", i, p.Argv[1:], h.Args)
				}
			}
		})
	}
}

func TestRealRowRefusals(t *testing.T) {
	t.Run("another row's runner", func(t *testing.T) {
		h := home.Home{Dir: t.TempDir()}
		tr := startTree(t, plan{Hops: []hop{runnerHop, claudeHop, leafHop}})
		mustRecord(t, h, "ws-b", tr.pids[0])
		// ws-a's runner is this test process, above ws-b's: the walk meets ws-b first.
		mustRecord(t, h, "ws-a", os.Getpid())
		v := mustCheck(t, h, tr.leaf(), "ws-a")
		if v.OK || v.Runner != "ws-b" || !strings.Contains(v.Reason, "another row's runner") {
			t.Fatalf("Check = %+v, want a refusal naming ws-b's runner", v)
		}
	})
	t.Run("a row that is not its ancestor", func(t *testing.T) {
		h := home.Home{Dir: t.TempDir()}
		row := startTree(t, plan{Hops: []hop{runnerHop, claudeHop}})
		mustRecord(t, h, "ws-a", row.pids[0])
		stray := startTree(t, plan{Hops: []hop{{Name: "bash"}, leafHop}})
		v := mustCheck(t, h, stray.leaf(), "ws-a")
		if v.OK || v.Runner != "" || !strings.Contains(v.Reason, "never ran inside it") {
			t.Fatalf("Check = %+v, want a refusal: ws-a's runner is not an ancestor", v)
		}
	})
	t.Run("reparented away from its row", func(t *testing.T) {
		h := home.Home{Dir: t.TempDir()}
		tr := startTree(t, plan{Hops: []hop{runnerHop, {Name: "bash", Detach: true}, leafHop}})
		mustRecord(t, h, "ws-a", tr.pids[0])
		waitReparented(t, tr.leaf(), tr.pids[1])
		v := mustCheck(t, h, tr.leaf(), "ws-a")
		if v.OK || !strings.Contains(v.Reason, "reparented away from row ws-a") {
			t.Fatalf("Check = %+v, want a refusal: reparented away", v)
		}
	})
}

// TestRealOutsideAnyRow compares with this test process's own ancestry, which
// is whatever runs the tests.
func TestRealOutsideAnyRow(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	base, err := checkNoRow(h, os.Getpid())
	if err != nil {
		t.Skipf("this test's own ancestry cannot be judged here: %v", err)
	}
	tr := startTree(t, plan{Hops: []hop{claudeHop, {Name: "bash"}, leafHop}})
	v, err := checkNoRow(h, tr.leaf())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Agents) != len(base.Agents)+1 || v.Runner != "" || v.OK != (len(base.Agents) == 0) {
		t.Fatalf("Check = ok %v, %d agents (%s); this process has %d above it", v.OK, len(v.Agents), v.Reason, len(base.Agents))
	}
	// Inside a row, a process that names none counts only up to the runner.
	mustRecord(t, h, "ws-a", tr.pids[0])
	v, err = checkNoRow(h, tr.leaf())
	if err != nil || !v.OK || len(v.Agents) != 1 || v.Runner != "ws-a" {
		t.Fatalf("Check inside ws-a naming no row = %+v, %v; want ok with 1 agent", v, err)
	}
}

func TestRealAllowed(t *testing.T) {
	for _, tc := range []struct {
		name string
		hops []hop
		want string
	}{
		{"a session's shell", []hop{runnerHop, claudeHop, {Name: "bash"}, leafHop}, "allowed <nil>"},
		{"an agent inside the session", []hop{runnerHop, claudeHop, claudeP, leafHop}, "allowed this process has no comm identity: 2 agents lie between"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home.Home{Dir: t.TempDir()}
			tr := startTree(t, plan{Hops: tc.hops, Home: h.Dir, Host: "box", Row: "ws-a"})
			mustRecord(t, h, "ws-a", tr.pids[0])
			if _, err := tr.in.WriteString("go\n"); err != nil {
				t.Fatal(err)
			}
			if got := tr.readLine(t); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("the leaf said %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRealWalkOfThisProcess(t *testing.T) {
	chain, err := Walk(os.Getpid())
	if err != nil {
		t.Skipf("this test's own ancestry cannot be read here: %v", err)
	}
	self := chain[0]
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if self.PID != os.Getpid() || self.PPID != os.Getppid() || !slices.Equal(self.Argv, os.Args) || self.Exe != exe {
		t.Fatalf("the walk's first process = %+v, want this one (ppid %d, argv %q, exe %s)", self, os.Getppid(), os.Args, exe)
	}
	if runtime.GOOS == "linux" && self.Start != machine.Start(os.Getpid()) {
		t.Fatalf("start %s, machine.Start says %s", self.Start, machine.Start(os.Getpid()))
	}
	for i := 1; i < len(chain); i++ {
		if chain[i].PID != chain[i-1].PPID {
			t.Fatalf("chain[%d] is %d, not chain[%d]'s parent %d", i, chain[i].PID, i-1, chain[i-1].PPID)
		}
	}
	if top := chain[len(chain)-1]; top.PPID != 0 {
		t.Logf("the walk ended at %s, whose parent %d is not readable here", describe(top), top.PPID)
	}
}

func mustRecord(t *testing.T, h home.Home, row string, pid int) {
	t.Helper()
	if err := RecordRunner(h, "box", row, pid); err != nil {
		t.Fatal(err)
	}
}

func mustCheck(t *testing.T, h home.Home, pid int, row string) Verdict {
	t.Helper()
	c, err := ForHome(h, "box")
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Check(pid, row)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkNoRow judges pid, which names no row.
func checkNoRow(h home.Home, pid int) (Verdict, error) {
	c, err := ForHome(h, "box")
	if err != nil {
		return Verdict{}, err
	}
	return c.Check(pid, "")
}

// waitReparented waits until pid's parent is no longer was.
func waitReparented(t *testing.T, pid, was int) {
	t.Helper()
	tb := mustTable(t)
	testutil.Eventually(t, 10*time.Second, fmt.Sprintf("process %d to leave parent %d", pid, was), func() bool {
		p, err := tb.Proc(pid)
		if err != nil {
			t.Fatal(err)
		}
		return p.PPID != was
	})
}

// BenchmarkAllowed is what every comm verb pays on a box with 50 rows: their
// runner records read, and a walk of this process's whole ancestry, since none
// of the recorded runners is its ancestor.
func BenchmarkAllowed(b *testing.B) {
	h := home.Home{Dir: b.TempDir()}
	dir := filepath.Join(h.Dir, "run", "box", "runners")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	rec := fmt.Sprintf("pid=1 start=0 boot=%s pidns=%s\n", machine.Boot(), machine.PIDNamespace())
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ws-%02d", i)), []byte(rec), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	chain, err := Walk(os.Getpid())
	if err != nil {
		b.Skipf("this process's ancestry cannot be read here: %v", err)
	}
	for b.Loop() {
		if err := Allowed(h, "box", ""); err != nil && !strings.Contains(err.Error(), "agents lie between") {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(chain)), "procs")
}

// BenchmarkWalk is the walk alone: this process's whole ancestry read from the
// OS's table, as every comm verb reads it.
func BenchmarkWalk(b *testing.B) {
	chain, err := Walk(os.Getpid())
	if err != nil {
		b.Skipf("this process's ancestry cannot be read here: %v", err)
	}
	for b.Loop() {
		if _, err := Walk(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(chain)), "procs")
}
