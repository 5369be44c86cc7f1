//go:build linux

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/internal/crashfs"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/registry"
)

// TestFiledSurvivesPowerLoss runs a comm home on crashfs, a file system that
// forgets what was not synced: a real daemon, senders on both routes (to an inbox
// that exists and to new ones), polls, joins and status writes; then, at a random
// moment, every process is killed and the file system crashes. Every line
// answered filed must be there once and whole, the registry one valid document
// holding every completed join, every cursor and offset index valid or absent,
// and the polls after the crash must show every line the polls before it did not,
// and none they did. Strict mode is POSIX (a new name is durable only once its
// folder is synced), lenient ext4's (also once the file is).
func TestFiledSurvivesPowerLoss(t *testing.T) {
	t.Parallel()
	trials, load := 1, time.Second
	if testutil.Soak {
		trials, load = 10, 3*time.Second
	}
	for _, mode := range []crashfs.Mode{crashfs.Strict, crashfs.Lenient} {
		t.Run(mode.String(), func(t *testing.T) {
			var sum crashTally
			for i := range trials {
				seed := uint64(time.Now().UnixNano())
				t.Run(fmt.Sprintf("trial%d", i), func(t *testing.T) {
					t.Logf("seed %d", seed)
					sum.add(crashTrial(t, mode, rand.New(rand.NewPCG(seed, uint64(i))), load))
				})
			}
			t.Logf("%s: %d trials, %d lines answered filed, %d lost; %d lines shown by polls before the crashes", mode, sum.trials, sum.filed, sum.lost, sum.shown)
		})
	}
}

// crashTally counts a campaign's trials and lines.
type crashTally struct{ trials, filed, lost, shown int }

func (c *crashTally) add(o crashTally) {
	c.trials += o.trials
	c.filed += o.filed
	c.lost += o.lost
	c.shown += o.shown
}

// crashLoad is every process a trial starts under load, so that the crash can
// kill them all, and what their answers said.
type crashLoad struct {
	t   *testing.T
	b   *box
	dir string // every process's working folder, off the mount

	wg    sync.WaitGroup
	mu    sync.Mutex
	down  bool // the crash came: nothing more starts
	procs []*exec.Cmd
	filed map[string][]string // lines answered filed, by receiver
	shown map[string][]string // lines polls that exited 0 showed, by receiver, in order
	maybe map[string]bool     // lines a killed poll printed (its cursor may have moved)
	joins []string            // handles whose join exited 0
}

// start runs cmd unless the crash came.
func (l *crashLoad) start(cmd *exec.Cmd) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return false
	}
	if err := cmd.Start(); err != nil {
		l.t.Errorf("start %v: %v", cmd.Args, err)
		return false
	}
	l.procs = append(l.procs, cmd)
	return true
}

// sender runs a helper that sends to @to on route until killed, noting each
// line answered filed as it is answered.
func (l *crashLoad) sender(route, from, to string) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(l.b.env(from), append(helperEnvs(route, from, to, 1<<30), reportEnv)...)
	cmd.Dir = l.dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if !l.start(cmd) {
		return
	}
	l.wg.Go(func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i, ok := strings.CutPrefix(sc.Text(), "filed "); ok {
				n, _ := strconv.Atoi(i)
				l.mu.Lock()
				l.filed[to] = append(l.filed[to], senderText(from, n))
				l.mu.Unlock()
			}
		}
		if err := cmd.Wait(); !l.killed() {
			l.t.Errorf("%s sender %s stopped before the crash: %v: %s", route, from, err, stderr.String())
		}
	})
}

func (l *crashLoad) killed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

// repeat runs `sotd args…` as handle again and again until the crash (run i is
// run(i)), giving done the output of each run that exited 0 and killed the
// output of the one the crash killed.
func (l *crashLoad) repeat(run func(i int) (handle string, args []string), done, killed func(i int, out []byte)) {
	l.wg.Go(func() {
		for i := 0; ; i++ {
			handle, args := run(i)
			cmd := exec.Command(sotdBin, args...)
			cmd.Env, cmd.Dir = l.b.env(handle), l.dir
			var out bytes.Buffer
			cmd.Stdout = &out
			if !l.start(cmd) {
				return
			}
			switch err := cmd.Wait(); {
			case err == nil:
				done(i, out.Bytes())
			case l.killed():
				if killed != nil {
					killed(i, out.Bytes())
				}
				return
			}
		}
	})
}

// poller polls @handle until the crash.
func (l *crashLoad) poller(handle string) {
	l.repeat(func(int) (string, []string) { return handle, []string{"poll", "--json"} }, func(_ int, out []byte) {
		msgs, err := pollMsgs(out)
		if err != nil {
			l.t.Errorf("a poll of @%s before the crash: %v", handle, err)
		}
		l.mu.Lock()
		l.shown[handle] = append(l.shown[handle], msgs...)
		l.mu.Unlock()
	}, func(_ int, out []byte) {
		msgs, _ := pollMsgs(out)
		l.mu.Lock()
		for _, m := range msgs {
			l.maybe[m] = true
		}
		l.mu.Unlock()
	})
}

// pollMsgs reads the messages `poll --json` printed.
func pollMsgs(out []byte) ([]string, error) {
	var lines []struct{ Msg string }
	if err := json.Unmarshal(out, &lines); err != nil {
		return nil, fmt.Errorf("poll --json printed %q: %v", out, err)
	}
	msgs := make([]string, len(lines))
	for i, ln := range lines {
		msgs[i] = ln.Msg
	}
	return msgs, nil
}

// crash kills every process (the daemon too) and waits for them all.
func (l *crashLoad) crash(d *daemon) {
	l.mu.Lock()
	l.down = true
	for _, c := range l.procs {
		c.Process.Kill()
	}
	l.mu.Unlock()
	d.kill()
	l.wg.Wait()
}

// crashTrial is one trial: load, a crash at a random moment within load, checks.
func crashTrial(t *testing.T, mode crashfs.Mode, rng *rand.Rand, load time.Duration) crashTally {
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	fsys := crashfs.Mount(t, mnt, mode)
	b := newBox(t, "box")
	// The daemon's socket is off the mount (crashfs holds no sockets), in a
	// folder the daemon makes itself: it serves in no existing folder open to
	// others, as the test's temporary folder is.
	b.home, b.sock = filepath.Join(mnt, "comm"), filepath.Join(dir, "run", "sotd.sock")
	d := b.serve()
	l := &crashLoad{t: t, b: b, dir: dir, filed: map[string][]string{}, shown: map[string][]string{}, maybe: map[string]bool{}}
	for _, h := range []string{"r0", "r1", "r2", "s0", "s1", "s2", "s3"} {
		b.must(h, "join")
		l.joins = append(l.joins, h)
	}
	const first = "r0's inbox exists before the load"
	b.must("s0", "send", "@r0", first)
	l.filed["r0"] = []string{first}

	l.sender("direct", "s0", "r0")
	l.sender("daemon", "s1", "r0")
	l.sender("direct", "s2", "r1")
	l.sender("daemon", "s3", "r2")
	l.poller("r0")
	l.poller("r1")
	l.repeat(func(i int) (string, []string) { return fmt.Sprintf("j%d", i), []string{"join"} }, func(i int, _ []byte) {
		l.mu.Lock()
		l.joins = append(l.joins, fmt.Sprintf("j%d", i))
		l.mu.Unlock()
	}, nil)
	l.repeat(func(i int) (string, []string) { return "r2", []string{"status", "working", fmt.Sprintf("step %d", i)} }, func(int, []byte) {}, nil)

	// The random moment of the crash: this sleep is the experiment, not a wait
	// for anything to happen.
	time.Sleep(load/10 + time.Duration(rng.Int64N(int64(load-load/10))))
	l.crash(d)
	if err := fsys.Crash(rng); err != nil {
		t.Fatalf("crash: %v", err)
	}

	tally := crashTally{trials: 1}
	inboxes := map[string][]string{}
	for _, h := range []string{"r0", "r1", "r2"} {
		inboxes[h] = inboxMsgs(t, b, h)
		tally.filed += len(l.filed[h])
		tally.shown += len(l.shown[h])
		tally.lost += checkFiled(t, h, l.filed[h], inboxes[h])
	}
	checkRegistry(t, b, l.joins)
	checkReadFiles(t, b)

	b.serve() // a box starts again after a power loss
	for _, h := range []string{"r0", "r1", "r2"} {
		checkShown(t, h, inboxes[h], l.shown[h], pollAll(t, b, h), l.maybe)
	}
	return tally
}

// inboxMsgs is the message of every whole line of @h's inbox, in order; a torn
// last line (an append the crash cut, never answered) is left out.
func inboxMsgs(t *testing.T, b *box, h string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.home, "inbox", h+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.LastIndexByte(raw, '\n'); i+1 < len(raw) {
		raw = raw[:i+1]
	}
	var msgs []string
	for n, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var l struct{ Msg string }
		if err := json.Unmarshal(line, &l); err != nil {
			t.Errorf("line %d of @%s's inbox is torn or not JSON: %v: %q", n+1, h, err, line)
		}
		msgs = append(msgs, l.Msg)
	}
	return msgs
}

// checkFiled requires each line answered filed for @h in its inbox exactly once,
// and returns how many are missing.
func checkFiled(t *testing.T, h string, filed, inbox []string) (lost int) {
	t.Helper()
	count := map[string]int{}
	for _, m := range inbox {
		count[m]++
		if count[m] == 2 {
			t.Errorf("@%s's inbox holds a line twice: %q", h, m)
		}
	}
	for _, m := range filed {
		if count[m] == 0 {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of the %d lines answered filed for @%s are gone after the crash (its inbox holds %d lines)", lost, len(filed), h, len(inbox))
	}
	return lost
}

// checkRegistry requires registry.json to be one valid document that holds
// every handle whose join exited 0 before the crash.
func checkRegistry(t *testing.T, b *box, joins []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(b.home, "registry.json"))
	if err != nil {
		t.Errorf("registry.json after the crash: %v", err)
		return
	}
	doc, err := registry.Parse(raw)
	if err != nil {
		t.Errorf("registry.json after the crash: %v", err)
		return
	}
	for _, h := range joins {
		if doc.Agents[h] == nil {
			t.Errorf("@%s joined before the crash, and the registry after it has no row for it", h)
		}
	}
}

// checkReadFiles requires every read cursor and offset index to be valid or absent.
func checkReadFiles(t *testing.T, b *box) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(b.home, "read"))
	if err != nil {
		t.Errorf("the read folder after the crash: %v", err)
		return
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(b.home, "read", e.Name()))
		if err != nil {
			t.Errorf("read/%s: %v", e.Name(), err)
			continue
		}
		text := strings.TrimSpace(string(raw))
		switch filepath.Ext(e.Name()) {
		case ".cursor":
			if _, err := filer.ParseCursor(text); err != nil && text != "" {
				t.Errorf("read/%s after the crash: %v", e.Name(), err)
			}
		case ".offset":
			f := strings.Fields(text)
			if len(f) != 3 {
				t.Errorf("read/%s after the crash is not an offset index: %q", e.Name(), text)
			}
		}
	}
}

// pollAll polls @h until it shows nothing new, returning what it showed.
func pollAll(t *testing.T, b *box, h string) []string {
	t.Helper()
	var all []string
	for range 50 {
		r := b.run(h, "", "poll", "--json")
		if r.code == 75 {
			continue // busy: the inbox is being written
		}
		if r.code != 0 {
			t.Fatalf("poll of @%s after the crash: exit %d: %s %s", h, r.code, r.stdout, r.stderr)
		}
		msgs, err := pollMsgs([]byte(r.stdout))
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			return all
		}
		all = append(all, msgs...)
	}
	t.Fatalf("@%s's polls after the crash did not run dry", h)
	return nil
}

// checkShown requires the polls before the crash (before, those that exited 0)
// and after it to show every line of the inbox once: none twice, none never,
// except a line a killed poll printed, which may have moved the cursor.
func checkShown(t *testing.T, h string, inbox, before, after []string, maybe map[string]bool) {
	t.Helper()
	shownBefore := map[string]bool{}
	for _, m := range before {
		shownBefore[m] = true
	}
	var again, never, gone []string
	shownAfter := map[string]bool{}
	for _, m := range after {
		if shownBefore[m] {
			again = append(again, m)
		}
		shownAfter[m] = true
	}
	inInbox := map[string]bool{}
	for _, m := range inbox {
		inInbox[m] = true
		if !shownBefore[m] && !shownAfter[m] && !maybe[m] {
			never = append(never, m)
		}
	}
	for _, m := range before {
		if !inInbox[m] {
			gone = append(gone, m)
		}
	}
	someOf(t, again, "@%s: %d lines a poll showed before the crash were shown again after it", h)
	someOf(t, never, "@%s: %d lines of the inbox were never shown, before the crash or after", h)
	someOf(t, gone, "@%s: %d lines a poll showed before the crash are gone from the inbox", h)
}

// someOf fails the test with what (given h and the count) and the first lines of
// msgs, when there are any.
func someOf(t *testing.T, msgs []string, what, h string) {
	t.Helper()
	if len(msgs) == 0 {
		return
	}
	t.Errorf(what+", such as %q", h, len(msgs), msgs[:min(3, len(msgs))])
}
