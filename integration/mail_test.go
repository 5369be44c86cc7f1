package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/internal/testutil"
)

func TestJoinSendPollThroughTheBinary(t *testing.T) {
	t.Parallel()
	b := newBox(t, "box")
	b.serve()
	b.must("alice", "join", "--expertise", "go, storage")
	b.must("bob", "join")

	if out := b.must("bob", "send", "@alice", "@alice starts with an at sign"); out != "  filed -> @alice\n" {
		t.Fatalf("send printed %q", out)
	}
	out := b.must("alice", "poll")
	if !strings.Contains(out, "@bob (") || !strings.Contains(out, "): @alice starts with an at sign") {
		t.Fatalf("poll did not show bob's line:\n%s", out)
	}
	if out := b.must("alice", "poll"); !strings.Contains(out, "no new mail for @alice") {
		t.Fatalf("second poll showed mail again:\n%s", out)
	}

	r := b.run("bob", "", "send", "@nobody", "hi")
	if r.code != 1 || r.stdout != "FAILED -> @nobody: no box knows that handle: nobody\n" {
		t.Fatalf("send to an unknown handle: exit %d, %q", r.code, r.stdout)
	}
	// A control character in the handle is printed escaped.
	for bad, shown := range map[string]string{"@../etc": "@../etc", "@a/b": "@a/b", "@" + strings.Repeat("z", 65): "@" + strings.Repeat("z", 65), "@a\x01b": `@a\x01b`} {
		r := b.run("bob", "", "send", bad, "hi")
		if r.code != 1 || !strings.HasPrefix(r.stdout, "FAILED -> "+shown+": not a handle") {
			t.Errorf("send %q: exit %d, %q", bad, r.code, r.stdout)
		}
	}

	list := b.must("alice", "list")
	if !strings.Contains(list, "@alice (me)") || !strings.Contains(list, "@bob") || !strings.Contains(list, "live") {
		t.Fatalf("list:\n%s", list)
	}
}

func TestSendWithoutDaemonSaysSo(t *testing.T) {
	t.Parallel()
	b := newBox(t, "box")
	b.must("alice", "join")
	b.must("bob", "join")
	// No daemon ever ran, so no inbox-lock-manager record names this box's
	// manager: the client may not append itself and has nowhere to hand the line.
	r := b.run("bob", "", "send", "@alice", "hi")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "FAILED -> @alice: no sotd daemon found; ") {
		t.Fatalf("exit %d, %q", r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(b.home, "inbox", "alice.jsonl")); err == nil {
		t.Fatal("a refused send left an inbox behind")
	}
}

func TestSendFileBodyFromStdin(t *testing.T) {
	t.Parallel()
	b := newBox(t, "box")
	b.serve()
	b.must("alice", "join")
	b.must("bob", "join")
	body := "line one\nline two with \"quotes\"\n"
	if r := b.run("bob", body, "send", "@alice", "--file", "-"); r.code != 0 {
		t.Fatalf("send --file -: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	out := b.must("alice", "poll", "--json")
	var ls []struct{ Msg string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &ls); err != nil || len(ls) != 1 || ls[0].Msg != body {
		t.Fatalf("poll --json = %q (%v), want the body byte for byte", out, err)
	}
}

// Sixteen processes send 500 lines each (60 without the soak tag) into one inbox,
// half through their own append (route 1) and half through the daemon's group
// commit; every line must be there once, whole, with a unique id.
func TestManyWritersMixedRoutes(t *testing.T) {
	parallelUnlessSoak(t)
	const procs = 16
	each := 60
	if testutil.Soak {
		each = 500
	}
	b := newBox(t, "box")
	b.serve()
	b.must("sink", "join")
	var senders []string
	for i := 0; i < procs; i++ {
		s := fmt.Sprintf("s%02d", i)
		senders = append(senders, s)
		b.must(s, "join")
	}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i, s := range senders {
		route := "direct"
		if i%2 == 1 {
			route = "daemon"
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(b.env(s), helperEnvs(route, s, "sink", each)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil {
				errs <- fmt.Errorf("%s sender %s: %v: %s", route, s, err, stderr.String())
			}
			if r := strings.TrimSpace(stdout.String()); r != "retries=0" {
				t.Logf("%s sender %s: %s (lines refused with nothing appended, sent again)", route, s, r)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	raw, err := os.ReadFile(filepath.Join(b.home, "inbox", "sink.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		t.Fatal("the inbox does not end with a whole line")
	}
	seen := map[string]bool{}
	ids := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var l struct{ From, To, Msg, ID string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is torn or not JSON: %v: %q", n, err, sc.Text())
		}
		if l.To != "sink" || l.ID == "" {
			t.Fatalf("line %d: %+v", n, l)
		}
		if seen[l.Msg] {
			t.Fatalf("line %d filed twice: %q", n, l.Msg)
		}
		if ids[l.ID] {
			t.Fatalf("line %d reuses id %s", n, l.ID)
		}
		seen[l.Msg], ids[l.ID] = true, true
	}
	for _, s := range senders {
		for i := 0; i < each; i++ {
			if !seen[senderText(s, i)] {
				t.Fatalf("message %d of %s is missing", i, s)
			}
		}
	}
	if n != procs*each {
		t.Fatalf("%d lines, want %d", n, procs*each)
	}
}
