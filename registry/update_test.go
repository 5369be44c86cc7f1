package registry

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/registry/reglock"
)

func TestUpdateWritesAndKeepsOthersFields(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, `{"protocol_version":1,"hub":{"v":2},"agents":{"old-box":{"host":"box","tmux":{"pane":"%1"}}}}`)
	err := Update(h, RuledWait, func(d *Doc) error {
		d.Agents["new-box"] = &Entry{Host: "box", Root: "/p/new", Expertise: []string{"go"}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(h)
	if err != nil {
		t.Fatal(err)
	}
	if d.Agents["new-box"].Root != "/p/new" || string(d.Agents["old-box"].Extra["tmux"]) != `{"pane":"%1"}` || string(d.Extra["hub"]) != `{"v":2}` {
		t.Errorf("after update: %+v", d)
	}
	fi, err := os.Stat(h.Registry())
	if err != nil || fi.Mode().Perm() != home.FileMode {
		t.Errorf("registry mode %v (%v), want %v", fi.Mode().Perm(), err, home.FileMode)
	}
	assertNoLitter(t, h)
}

func TestUpdateThatChangesNothingWritesNothing(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*Doc) error
	}{
		{"ErrSkip", func(d *Doc) error { d.Agents["x"] = &Entry{Host: "h"}; return ErrSkip }},
		{"wrapped ErrSkip", func(*Doc) error { return fmt.Errorf("row gone: %w", ErrSkip) }},
		{"the same bytes", func(*Doc) error { return nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			b, fi := mustRead(t, h.Registry())
			if err := Update(h, RuledWait, tc.fn); err != nil {
				t.Fatal(err)
			}
			assertUnchanged(t, h.Registry(), b, fi)
			assertNoLitter(t, h)
		})
	}
}

func TestUpdateReturnsTheFuncsErrorAndWritesNothing(t *testing.T) {
	h := newHome(t)
	b, fi := mustRead(t, h.Registry())
	mine := errors.New("no registry row for 'x'")
	err := Update(h, RuledWait, func(d *Doc) error {
		d.Agents["x"] = &Entry{}
		return mine
	})
	if err != mine {
		t.Fatalf("Update = %v, want the func's own error", err)
	}
	assertUnchanged(t, h.Registry(), b, fi)
	assertNoLitter(t, h)
}

// Rewriting an unreadable registry is the wipe: Update must never do it.
func TestUpdateNeverRewritesAnUnreadableRegistry(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
	}{
		{"missing", os.Remove},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }},
		{"corrupt", func(p string) error { return os.WriteFile(p, []byte(`{"agents":{"a":{"host":"b"}`), 0o600) }},
		{"two documents", func(p string) error { return os.WriteFile(p, []byte(good+good), 0o600) }},
		{"agents not an object", func(p string) error { return os.WriteFile(p, []byte(`{"agents":"x"}`), 0o600) }},
		{"a directory", func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			restoreFS(t)
			fsys.sleep = func(time.Duration) {}
			if err := tc.make(h.Registry()); err != nil {
				t.Fatal(err)
			}
			var b []byte
			var fi os.FileInfo
			if tc.name != "missing" {
				b, fi = mustRead(t, h.Registry())
			}
			called := false
			err := Update(h, RuledWait, func(d *Doc) error { called = true; return nil })
			var ue *UpdateError
			if !errors.As(err, &ue) || err.Error() != "the registry could not be read or updated, so nothing was written" {
				t.Fatalf("Update = %v, want the protocol's FAILED reason", err)
			}
			if !errors.Is(err, ErrUnreadable) || called {
				t.Errorf("cause %v wraps ErrUnreadable %v; fn called %v", ue.Err, errors.Is(err, ErrUnreadable), called)
			}
			if tc.name == "missing" {
				if _, err := os.Lstat(h.Registry()); err == nil {
					t.Error("Update created a missing registry")
				}
			} else {
				assertUnchanged(t, h.Registry(), b, fi)
			}
			assertNoLitter(t, h)
		})
	}
}

func TestUpdateFaultsWriteNothing(t *testing.T) {
	tests := []struct {
		name   string
		inject func()
		want   string
	}{
		{"flush fails", func() { fsys.sync = func(*os.File) error { return syscall.EIO } },
			"the registry update could not be flushed (input/output error), so nothing was written"},
		{"rename fails", func() {
			fsys.rename = func(from, to string) error {
				return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EXDEV}
			}
		}, "the registry update could not be renamed into place (rename "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			b, fi := mustRead(t, h.Registry())
			restoreFS(t)
			tc.inject()
			err := Update(h, RuledWait, func(d *Doc) error { d.Agents["x-box"] = &Entry{Host: "box"}; return nil })
			var ue *UpdateError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), ", so nothing was written") {
				t.Fatalf("Update = %q, want %q…", err, tc.want)
			}
			assertUnchanged(t, h.Registry(), b, fi)
			assertNoLitter(t, h)
		})
	}
}

// A crashed writer's tmp, even one with the wrong mode, is replaced by a fresh one.
func TestUpdateReplacesACrashedWritersTmp(t *testing.T) {
	h := newHome(t)
	if err := os.WriteFile(h.Registry()+".tmp", []byte("half a regi"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Update(h, RuledWait, func(d *Doc) error { d.Agents["x-box"] = &Entry{Host: "box"}; return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(h.Registry()); fi.Mode().Perm() != home.FileMode {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if e, ok, err := Lookup(h, "x-box"); err != nil || !ok || e.Host != "box" {
		t.Fatalf("Lookup: %v %v %v", e, ok, err)
	}
	assertNoLitter(t, h)
}

// A live holder in another process blocks the write; the lock's FAILED line comes
// back as it is and nothing is written.
func TestUpdateBlockedByALiveHolderWritesNothing(t *testing.T) {
	h := newHome(t)
	b, fi := mustRead(t, h.Registry())
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$")
	cmd.Env = append(os.Environ(), "REGISTRY_HELPER_HOME="+h.Dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	err = Update(h, 200*time.Millisecond, func(d *Doc) error { d.Agents["x"] = &Entry{}; return nil })
	var le *reglock.Error
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "is held by") || !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("Update = %v, want the lock's FAILED line naming pid %d", err, cmd.Process.Pid)
	}
	t.Logf("FAILED: %v", err)
	assertUnchanged(t, h.Registry(), b, fi)
}

// TestHelperHolder holds the registry lock until its stdin closes.
func TestHelperHolder(t *testing.T) {
	dir := os.Getenv("REGISTRY_HELPER_HOME")
	if dir == "" {
		t.Skip("helper process")
	}
	h := home.Home{Dir: dir}
	lk, err := reglock.Take(h.RegistryLock(), reglock.Options{Deadline: RuledWait})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
	lk.Release()
	os.Exit(0)
}

// Several processes update at once through the real lock; every update lands and
// none is lost (the counter each one bumps ends at the total).
func TestConcurrentUpdatesFromProcessesAllLand(t *testing.T) {
	const procs, each = 4, 15
	h := newHome(t)
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUpdater$")
		cmd.Env = append(os.Environ(), "REGISTRY_HELPER_HOME="+h.Dir, "REGISTRY_HELPER_ID="+strconv.Itoa(i), "REGISTRY_HELPER_N="+strconv.Itoa(each))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("helper %d:\n%s", i, out.String())
			}
		})
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v", i, err)
		}
	}
	d, err := Read(h)
	if err != nil {
		t.Fatal(err)
	}
	var count int
	if err := json.Unmarshal(d.Extra["test_count"], &count); err != nil || count != procs*each {
		t.Errorf("counter %d (%v), want %d: an update was lost", count, err, procs*each)
	}
	for i := range procs {
		for k := range each {
			if _, ok := d.Agents[fmt.Sprintf("p%d-%d", i, k)]; !ok {
				t.Errorf("row p%d-%d missing", i, k)
			}
		}
	}
	assertNoLitter(t, h)
}

// TestHelperUpdater adds its rows one update at a time and bumps a shared counter.
func TestHelperUpdater(t *testing.T) {
	dir := os.Getenv("REGISTRY_HELPER_HOME")
	if dir == "" {
		t.Skip("helper process")
	}
	id := os.Getenv("REGISTRY_HELPER_ID")
	n, _ := strconv.Atoi(os.Getenv("REGISTRY_HELPER_N"))
	h := home.Home{Dir: dir}
	for k := range n {
		err := Update(h, RuledWait, func(d *Doc) error {
			var c int
			if raw, ok := d.Extra["test_count"]; ok {
				if err := json.Unmarshal(raw, &c); err != nil {
					return err
				}
			}
			if d.Extra == nil {
				d.Extra = map[string]json.RawMessage{}
			}
			d.Extra["test_count"] = json.RawMessage(strconv.Itoa(c + 1))
			d.Agents["p"+id+"-"+strconv.Itoa(k)] = &Entry{Host: "p" + id, LastSeen: Stamp(time.Now())}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}
