package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
)

// listRow is one row of `sotd list --json`.
type listRow struct {
	Handle string `json:"handle"`
	Live   bool   `json:"live"`
	Me     bool   `json:"me"`
	Box    string `json:"box"`
}

func (b *box) listJSON(handle string) []listRow {
	b.t.Helper()
	var rows []listRow
	out := b.must(handle, "list", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		b.t.Fatalf("sotd list --json on %s printed %q: %v", b.host, out, err)
	}
	return rows
}

// boxesOf is handle -> box of rows.
func boxesOf(rows []listRow) map[string]string {
	m := map[string]string{}
	for _, r := range rows {
		m[r.Handle] = r.Box
	}
	return m
}

// TestNetworkView runs a hub (hb) and two guests (ga, gb), each with its own
// home, and a session on each. Every box's `sotd list` shows all three boxes'
// sessions with their box; completion offers them all; a broadcast files one
// copy on each other box, once; a box killed shows as down within the
// heartbeat window; with the hub gone a guest lists itself and says the rest
// is unknown, and since when.
func TestNetworkView(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "ga", "gb")
	n.quickBeats()
	hb, ga, gb := n.hub, n.boxes["ga"], n.boxes["gb"]
	n.linkAll("ga", "gb")
	n.start("ga", "gb")
	hb.must("hank", "join")
	ga.must("alice", "join")
	gb.must("bob", "join")
	want := map[string]string{"hank": "hb", "alice": "ga", "bob": "gb"}

	for _, b := range []*box{hb, ga, gb} {
		testutil.Eventually(t, 10*time.Second, "every box's sessions in list --json on "+b.host, func() bool {
			got := boxesOf(b.listJSON(""))
			return len(got) == 3 && got["hank"] == "hb" && got["alice"] == "ga" && got["bob"] == "gb"
		})
	}
	out := ga.must("alice", "list")
	for h, box := range want {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "@"+h+" ") {
				line = l
			}
		}
		if !strings.Contains(line, " live ") || !strings.Contains(line, " "+box+" ") {
			t.Fatalf("sotd list on ga: @%s's line is %q, want it live on %s:\n%s", h, line, box, out)
		}
		if mine := strings.Contains(line, "(me)"); mine != (h == "alice") {
			t.Fatalf("sotd list on ga as alice: @%s's line is %q (the (me) mark belongs to alice only)", h, line)
		}
	}
	if strings.Contains(out, "unknown") {
		t.Fatalf("sotd list on ga with every link up says something is unknown:\n%s", out)
	}

	t.Run("completion offers every box's handles", func(t *testing.T) {
		got := completeHandles(t, gb)
		for _, h := range []string{"@alice", "@bob", "@hank"} {
			if !slices.Contains(got, h) {
				t.Fatalf("bash completion on gb offered %q, want %s among them", got, h)
			}
		}
	})

	t.Run("a broadcast is filed once on every other box", func(t *testing.T) {
		r := ga.run("alice", "", "send", "--broadcast", "to everyone")
		if r.code != 0 || r.stdout != "filed -> @bob\nfiled -> @hank\n" {
			t.Fatalf("broadcast from ga: exit %d, %q (stderr %q); want one filed line per receiver", r.code, r.stdout, r.stderr)
		}
		for _, c := range []struct {
			b      *box
			handle string
		}{{gb, "bob"}, {hb, "hank"}} {
			ids := c.b.inboxIDs(c.handle)
			if len(ids) != 1 {
				t.Fatalf("@%s's inbox on %s holds %d ids after one broadcast, want 1: %v", c.handle, c.b.host, len(ids), ids)
			}
			for id, k := range ids {
				if k != 1 {
					t.Fatalf("@%s's inbox on %s holds id %s %d times", c.handle, c.b.host, id, k)
				}
			}
		}
		if ids := ga.inboxIDs("alice"); len(ids) != 0 {
			t.Fatalf("the sender's own inbox got %d lines from its broadcast", len(ids))
		}
		for _, b := range []*box{hb, gb} {
			if _, err := os.Stat(filepath.Join(b.home, "inbox", "alice.jsonl")); err == nil {
				t.Fatalf("%s has an inbox for alice, who lives on ga: a body went where it is not filed", b.host)
			}
		}
	})

	t.Run("a handle no box lists is refused with its sentence", func(t *testing.T) {
		r := ga.run("alice", "", "send", "@nobody", "hello?")
		if r.code != 1 || r.stdout != "FAILED -> @nobody: no box knows that handle: nobody\n" {
			t.Fatalf("send to @nobody: exit %d, %q", r.code, r.stdout)
		}
	})

	t.Run("a box that goes down shows as such within the heartbeat window", func(t *testing.T) {
		n.daemons["gb"].kill()
		killed := time.Now()
		// DeadAfter (6 s with quickBeats) after gb's last beat, plus one view round.
		testutil.Eventually(t, 20*time.Second, "gb down in ga's list", func() bool {
			return strings.Contains(ga.must("alice", "list"), "box gb: unknown — its link is down")
		})
		t.Logf("gb showed as down on ga %s after its kill", time.Since(killed).Round(100*time.Millisecond))
		if got := boxesOf(ga.listJSON("alice")); got["bob"] != "" {
			t.Fatalf("ga still lists @bob of the dead box gb as known: %v", got)
		}
		n.daemons["gb"] = gb.serve()
		n.waitLinked("gb")
		testutil.Eventually(t, 10*time.Second, "gb back in ga's list", func() bool {
			return boxesOf(ga.listJSON("alice"))["bob"] == "gb"
		})
	})

	t.Run("with the hub unreachable a guest lists itself and says the rest is unknown", func(t *testing.T) {
		n.killHub()
		testutil.Eventually(t, 20*time.Second, "the rest unknown on ga", func() bool {
			out := ga.must("alice", "list")
			return strings.Contains(out, "other boxes: unknown — hb is out of reach") && strings.Contains(out, "last known at ")
		})
		got := boxesOf(ga.listJSON("alice"))
		if len(got) != 1 || got["alice"] != "ga" {
			t.Fatalf("ga lists %v with its hub down, want only its own @alice", got)
		}
		n.startHub()
		n.waitLinked("ga")
		testutil.Eventually(t, 15*time.Second, "the network known again on ga", func() bool {
			return len(boxesOf(ga.listJSON("alice"))) == 3
		})
	})
}

// completeHandles is what bash completion offers after `sotd send ` on b.
func completeHandles(t *testing.T, b *box) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the completion script")
	}
	// As bash sets them when Tab is pressed after "sotd send @": the script
	// reads the line, since COMP_WORDS splits at the @.
	script := `source <(sotd completion bash); COMP_LINE='sotd send @'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(sotd send @); COMP_CWORD=2; _sotd; printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = append(b.env(""), "PATH="+filepath.Dir(sotdBin)+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completion: %v", err)
	}
	return strings.Fields(string(out))
}
