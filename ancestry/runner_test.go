package ancestry

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
)

func TestRunnerRecords(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	const host = "box"
	r, err := LoadRunners(h, host)
	if err != nil || len(r) != 0 {
		t.Fatalf("LoadRunners with no folder = %v, %v; want none", r, err)
	}
	self, err := mustTable(t).Proc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := RecordRunner(h, host, "ws-a", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(h.Dir, "run", host, "runners")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != home.DirMode {
		t.Fatalf("runner folder %s: %v, %v; want mode %v", dir, fi, err, home.DirMode)
	}
	// Records the daemon of another boot or pid namespace left name no process
	// here; a temp file beside the records is no record.
	for name, body := range map[string]string{
		"ws-old":        "pid=1 start=1 boot=another-boot pidns=" + machine.PIDNamespace() + "\n",
		"ws-elsewhere":  "pid=1 start=1 boot=" + machine.Boot() + " pidns=another-ns\n",
		"ws-b.tmp.12.1": "half",
		"ws-c":          "pid=1 start=1 boot=" + machine.Boot() + " pidns=" + machine.PIDNamespace() + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err = LoadRunners(h, host)
	if err != nil {
		t.Fatal(err)
	}
	want := Runners{"ws-a": {PID: os.Getpid(), Start: self.Start}, "ws-c": {PID: 1, Start: "1"}}
	if len(r) != len(want) || r["ws-a"] != want["ws-a"] || r["ws-c"] != want["ws-c"] {
		t.Fatalf("LoadRunners = %+v, want %+v", r, want)
	}
	if got := r.RowOf(self); got != "ws-a" {
		t.Fatalf("RowOf(this process) = %q, want ws-a", got)
	}
	other := self
	other.Start = "1"
	if got := r.RowOf(other); got != "" {
		t.Fatalf("RowOf(same pid, another start) = %q, want none", got)
	}
	if err := ForgetRunner(h, host, "ws-a"); err != nil {
		t.Fatal(err)
	}
	if err := ForgetRunner(h, host, "ws-a"); err != nil {
		t.Fatalf("forgetting a forgotten runner: %v", err)
	}
	if r, err = LoadRunners(h, host); err != nil || len(r) != 1 {
		t.Fatalf("LoadRunners after ForgetRunner = %+v, %v; want only ws-c", r, err)
	}
}

func TestRunnerRecordRefusals(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	for _, row := range []string{"", "..", "a/b", "../x", strings.Repeat("w", 65)} {
		if err := RecordRunner(h, "box", row, os.Getpid()); !errors.Is(err, home.ErrBadHandle) {
			t.Errorf("RecordRunner(row %q) = %v, want a refusal of the id", row, err)
		}
		if err := ForgetRunner(h, "box", row); !errors.Is(err, home.ErrBadHandle) {
			t.Errorf("ForgetRunner(row %q) = %v, want a refusal of the id", row, err)
		}
	}
	gone := exitedPid(t)
	if err := RecordRunner(h, "box", "ws-a", gone); !errors.Is(err, ErrEnded) {
		t.Errorf("RecordRunner(an exited pid) = %v, want ErrEnded", err)
	}
}

func TestLoadRunnersRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"no newline", "pid=1 start=1 boot=b pidns=n", "does not end in a newline"},
		{"a missing field", "pid=1 start=1 boot=b\n", "it has no pidns"},
		{"not key=value", "pid=1 start=1 boot=b pidns=n junk\n", `"junk" is not key=value`},
		{"a field twice", "pid=1 pid=2 start=1 boot=b pidns=n\n", "pid is given twice"},
		{"a pid that is not one", "pid=x start=1 boot=" + machine.Boot() + " pidns=" + machine.PIDNamespace() + "\n", `pid "x" is not a process id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home.Home{Dir: t.TempDir()}
			dir := filepath.Join(h.Dir, "run", "box", "runners")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "ws-a"), []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadRunners(h, "box")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "restart the daemon") {
				t.Fatalf("LoadRunners = %v, want an error saying %q and the recovery", err, tc.want)
			}
		})
	}
	// A file where the folder should be: the records cannot be read, so no
	// process can be judged, and Allowed refuses even one that names no row.
	h := home.Home{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(h.Dir, "run", "box"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.Dir, "run", "box", "runners"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ForHome(h, "box"); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("ForHome over an unreadable records folder = %v, want ErrUnreadable", err)
	}
	err := Allowed(h, "box", "")
	if !errors.Is(err, ErrRefused) || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "refused, not trusted") {
		t.Fatalf("Allowed over an unreadable records folder = %v, want a refusal wrapping ErrRefused and ErrUnreadable", err)
	}
}

// exitedPid is the pid of a process that ran and was reaped.
func exitedPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func mustTable(t *testing.T) Table {
	t.Helper()
	tb, err := OSTable()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}
