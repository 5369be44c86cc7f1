package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/wire"
)

func call(t testing.TB, c *wire.Client, req wire.CommFile) (wire.CommFiled, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got wire.CommFiled
	err := c.Call(ctx, wire.OpCommFile, req, &got)
	return got, err
}

// wantRefusal checks err is the daemon's refusal with code, saying says.
func wantRefusal(t testing.TB, err error, code, says string) {
	t.Helper()
	var re *wire.Refusal
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a %s refusal", err, code)
	}
	if re.Code != code || !strings.Contains(re.Sentence, says) {
		t.Fatalf("refusal %s %q, want %s saying %q", re.Code, re.Sentence, code, says)
	}
}

func TestCommFile(t *testing.T) {
	tests := []struct {
		name string
		req  wire.CommFile
		code string // "" filed
		says string
	}{
		{name: "filed", req: wire.CommFile{From: "alice", To: "bob", Text: "hi bob", Repo: "web", ID: "01HZX0000000000000000000AA"}},
		{name: "broadcast copy", req: wire.CommFile{From: "alice", To: "carol", Text: "to all", Broadcast: true, ID: "01HZX0000000000000000000AB"}},
		{name: "a reply", req: wire.CommFile{From: "alice", To: "bob", Text: "yes", ID: "01HZX0000000000000000000AC", InReplyTo: "01HZX0000000000000000000AA"}},
		{name: "a reply to an id past its bound", req: wire.CommFile{From: "alice", To: "bob", Text: "t", InReplyTo: strings.Repeat("x", 65)}, code: wire.CodeBadRequest, says: "the in_reply_to id is 65 bytes, over the 64 allowed"},
		{name: "receiver climbs out", req: wire.CommFile{From: "alice", To: "../x", Text: "t"}, code: wire.CodeBadHandle, says: `not a handle: "../x" has '/'`},
		{name: "receiver has a slash", req: wire.CommFile{From: "alice", To: "a/b", Text: "t"}, code: wire.CodeBadHandle, says: "not a handle"},
		{name: "receiver has NUL", req: wire.CommFile{From: "alice", To: "a\x00b", Text: "t"}, code: wire.CodeBadHandle, says: "not a handle"},
		{name: "receiver has a control character", req: wire.CommFile{From: "alice", To: "a\x1bb", Text: "t"}, code: wire.CodeBadHandle, says: "not a handle"},
		{name: "receiver of 65 characters", req: wire.CommFile{From: "alice", To: strings.Repeat("b", 65), Text: "t"}, code: wire.CodeBadHandle, says: "is 65 characters, over the 64 allowed"},
		{name: "receiver is ..", req: wire.CommFile{From: "alice", To: "..", Text: "t"}, code: wire.CodeBadHandle, says: "names a folder"},
		{name: "sender is not a handle", req: wire.CommFile{From: "../alice", To: "bob", Text: "t"}, code: wire.CodeBadHandle, says: "the sender is not a handle"},
		{name: "not here", req: wire.CommFile{From: "alice", To: "nobody", Text: "t"}, code: wire.CodeNotHere, says: "no box knows that handle: nobody"},
		{name: "no live session", req: wire.CommFile{From: "alice", To: "stale", Text: "t"}, code: wire.CodeNoLiveSession, says: "no live session holds @stale"},
	}
	r := startRig(t)
	c := r.dial(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, c, tc.req)
			if tc.code != "" {
				wantRefusal(t, err, tc.code, tc.says)
				return
			}
			if err != nil || !got.OK || got.To != tc.req.To || got.Dup {
				t.Fatalf("answer %+v, %v; want ok for %s", got, err, tc.req.To)
			}
			var lines []map[string]any
			for _, l := range r.inbox(t, tc.req.To) {
				if l["id"] == tc.req.ID {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("inbox of %s holds %d lines of id %s, want 1", tc.req.To, len(lines), tc.req.ID)
			}
			wantTo := tc.req.To
			if tc.req.Broadcast {
				wantTo = ""
			}
			want := map[string]any{"from": tc.req.From, "to": wantTo, "repo": tc.req.Repo, "msg": tc.req.Text, "ts": registry.Stamp(testNow), "id": tc.req.ID}
			if tc.req.InReplyTo != "" {
				want["in_reply_to"] = tc.req.InReplyTo
			}
			if fmt.Sprint(lines[0]) != fmt.Sprint(want) {
				t.Fatalf("filed line %v, want %v", lines[0], want)
			}
		})
	}
	// Refusals wrote nothing: only the two filed inboxes (and their locks) exist.
	entries, err := os.ReadDir(r.home.InboxDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "bob.jsonl bob.lock carol.jsonl carol.lock" {
		t.Fatalf("inbox folder holds %q, want only bob's and carol's files", got)
	}
}

func TestDuplicateIDFilesOneLine(t *testing.T) {
	r := startRig(t)
	req := wire.CommFile{From: "alice", To: "bob", Text: "once", ID: "01HZX00000000000000000DUP1"}
	first, err := call(t, r.dial(t), req)
	if err != nil || first.Dup {
		t.Fatalf("first filing: %+v, %v; want ok, not dup", first, err)
	}
	// A retry, and a burst of retries that share one batch.
	var wg sync.WaitGroup
	answers := make(chan wire.CommFiled, 8)
	for range 8 {
		c := r.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := call(t, c, req)
			if err != nil {
				t.Error(err)
			}
			answers <- got
		}()
	}
	wg.Wait()
	close(answers)
	for got := range answers {
		if !got.OK || !got.Dup {
			t.Errorf("retry answered %+v, want ok and dup", got)
		}
	}
	if n := len(r.inbox(t, "bob")); n != 1 {
		t.Fatalf("bob's inbox holds %d lines after retries of one id, want 1", n)
	}
}

func TestConcurrentSendersAllFiledOnce(t *testing.T) {
	r := startRig(t)
	const senders, each = 16, 25
	var wg sync.WaitGroup
	for s := range senders {
		c := r.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				req := wire.CommFile{From: "alice", To: "bob", Text: fmt.Sprintf("%d/%d", s, i), ID: fmt.Sprintf("ID-%02d-%03d", s, i)}
				if got, err := call(t, c, req); err != nil || !got.OK || got.Dup {
					t.Errorf("%s: %+v, %v", req.Text, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	seen := map[any]bool{}
	for _, l := range r.inbox(t, "bob") {
		if seen[l["id"]] {
			t.Fatalf("id %v filed twice", l["id"])
		}
		seen[l["id"]] = true
	}
	if len(seen) != senders*each {
		t.Fatalf("bob's inbox holds %d distinct lines, want %d", len(seen), senders*each)
	}
}

func TestRefusedWhenTheRegistryIsUnreadable(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(path string) error
		says  string
	}{
		{"damaged", func(p string) error { return home.WriteAtomic(p, []byte(`{"agents": [`)) }, "move it aside by hand"},
		{"missing", os.Remove, "there is no registry at"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := startRig(t)
			c := r.dial(t)
			if err := tc.spoil(r.home.Registry()); err != nil {
				t.Fatal(err)
			}
			_, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "t"})
			wantRefusal(t, err, wire.CodeFileFailed, "nothing was filed: the registry could not be read: ")
			wantRefusal(t, err, wire.CodeFileFailed, tc.says)
			err = c.Call(context.Background(), wire.OpRegistryList, struct{}{}, nil)
			wantRefusal(t, err, wire.CodeUnreadable, "nothing can be listed: ")
			wantRefusal(t, err, wire.CodeUnreadable, tc.says)
			if lines := r.inbox(t, "bob"); len(lines) != 0 {
				t.Fatalf("bob's inbox holds %d lines after a refusal", len(lines))
			}
		})
	}
}

func TestRegistryList(t *testing.T) {
	r := startRig(t)
	var got wire.RegistryList
	if err := r.dial(t).Call(context.Background(), wire.OpRegistryList, struct{}{}, &got); err != nil {
		t.Fatal(err)
	}
	doc, err := registry.Parse([]byte(`{"protocol_version":1,"agents":` + string(got.Agents) + `}`))
	if err != nil {
		t.Fatalf("agents %s: %v", got.Agents, err)
	}
	var names []string
	for n, e := range doc.Agents {
		names = append(names, n+"@"+e.Host)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "bob@box carol@box stale@box" {
		t.Fatalf("registry.list names %v, want bob, carol and stale on box", names)
	}
}

func TestInboxLockTimeout(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "0.3")
	r := startRig(t)
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	start := time.Now()
	_, err := call(t, r.dial(t), wire.CommFile{From: "alice", To: "bob", Text: "t"})
	wantRefusal(t, err, wire.CodeFileFailed, "the inbox lock for @bob was held for")
	wantRefusal(t, err, wire.CodeFileFailed, "nothing was appended")
	if el := time.Since(start); el < 250*time.Millisecond {
		t.Fatalf("refused after %s, before the 0.3s lock wait", el)
	}
	if !r.logs.Contains("filing failed") {
		t.Errorf("the failed filing was not logged:\n%s", r.logs.String())
	}
}

func TestLockManagerMismatch(t *testing.T) {
	tests := []struct {
		name   string
		writer string // line 2 of the record the test writes after start
		says   string
	}{
		{"another machine's record", "0123456789abcdef0123456789abcdef", "stop every daemon on this comm folder, on every box that shares it, delete"},
		{"this machine's record after a remount", machine.ID(), "so its folder was remounted: restart the daemon"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := startRig(t)
			c := r.dial(t)
			if _, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "before"}); err != nil {
				t.Fatalf("filing under the daemon's own record: %v", err)
			}
			if err := home.WriteAtomic(r.home.LockManager(), []byte("nfs4 elsewhere:/export\n"+tc.writer+"\n")); err != nil {
				t.Fatal(err)
			}
			_, err := call(t, c, wire.CommFile{From: "alice", To: "bob", Text: "after"})
			wantRefusal(t, err, wire.CodeFileFailed, "the folder's inbox-lock-manager record does not name this daemon's inbox lock")
			wantRefusal(t, err, wire.CodeFileFailed, tc.says)
			if n := len(r.inbox(t, "bob")); n != 1 {
				t.Fatalf("bob's inbox holds %d lines, want only the one filed before", n)
			}
		})
	}
}

func wireReq(to string) wire.CommFile {
	return wire.CommFile{From: "alice", To: to, Text: "hello " + to}
}
