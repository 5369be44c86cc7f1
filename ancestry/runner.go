package ancestry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/machine"
)

// Runner is the process a row runs under, as the daemon recorded it.
type Runner struct {
	PID   int
	Start string // as Proc.Start reads it; machine.Unknown never matches
}

// Runners are this box's recorded row runners, by row id.
type Runners map[string]Runner

// RowOf is the row whose runner p is, "" when it runs none. Two records of
// one process can only be written by hand; the lowest row id keeps the answer
// the same from one call to the next all the same.
func (r Runners) RowOf(p Proc) string {
	best := ""
	for row, run := range r {
		if run.PID == p.PID && machine.Same(run.Start, p.Start) && (best == "" || row < best) {
			best = row
		}
	}
	return best
}

// runnerDir is where the daemon on host records its rows' runners.
func runnerDir(h home.Home, host string) string {
	return filepath.Join(h.RunDir(host), "runners")
}

func runnerPath(h home.Home, host, row string) (string, error) {
	// A row id is not a handle, but the one rule that keeps a name inside its
	// folder is the handle's, and every row id the daemon makes passes it.
	if err := home.CheckHandle(row); err != nil {
		return "", fmt.Errorf("row id %q cannot name a runner record: %w", row, err)
	}
	return filepath.Join(runnerDir(h, host), row), nil
}

// RecordRunner records pid as row's runner on host, with its start read now and
// the boot and pid namespace it belongs to. The daemon calls it as soon as a
// row's process exists, and again for each row Discover finds: a comm command
// the row runs before its runner is recorded is refused.
func RecordRunner(h home.Home, host, row string, pid int) error {
	path, err := runnerPath(h, host, row)
	if err != nil {
		return err
	}
	t, err := OSTable()
	if err != nil {
		return err
	}
	p, err := t.Proc(pid)
	if err != nil {
		return fmt.Errorf("record the runner of row %s: read process %d: %w", row, pid, err)
	}
	if err := home.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	rec := fmt.Sprintf("pid=%d start=%s boot=%s pidns=%s\n", p.PID, p.Start, machine.Boot(), machine.PIDNamespace())
	return home.WriteAtomic(path, []byte(rec))
}

// ForgetRunner removes row's runner record, if any, when the row is removed.
func ForgetRunner(h home.Home, host, row string) error {
	path, err := runnerPath(h, host, row)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the runner record of row %s: %w", row, err)
	}
	return nil
}

// LoadRunners reads the runners recorded on host. A record from another boot or
// pid namespace names no process here and is left out. A folder that is not
// there holds no runners; a record that cannot be read or parsed is an error,
// since it may be the row a process names.
func LoadRunners(h home.Home, host string) (Runners, error) {
	dir := runnerDir(h, host)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Runners{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the row runner records in %s: %w", dir, err)
	}
	boot, pidns := machine.Boot(), machine.PIDNamespace()
	out := Runners{}
	buf := make([]byte, 256)
	for _, e := range entries {
		// WriteAtomic's temp files sit beside the records for a moment.
		if strings.Contains(e.Name(), ".tmp.") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := readSmall(path, buf)
		if err != nil {
			return nil, fmt.Errorf("read row runner record %s: %w", path, err)
		}
		f, err := parseRecord(string(b))
		if err != nil {
			return nil, fmt.Errorf("row runner record %s: %w; remove it and restart the daemon, which records its rows again", path, err)
		}
		if f["boot"] != boot || f["pidns"] != pidns {
			continue
		}
		pid, err := strconv.Atoi(f["pid"])
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("row runner record %s: pid %q is not a process id; remove it and restart the daemon, which records its rows again", path, f["pid"])
		}
		out[e.Name()] = Runner{PID: pid, Start: f["start"]}
	}
	return out, nil
}

// parseRecord reads "pid=… start=… boot=… pidns=…", each key once.
func parseRecord(s string) (map[string]string, error) {
	s, ok := strings.CutSuffix(s, "\n")
	if !ok {
		return nil, errors.New("it does not end in a newline")
	}
	f := map[string]string{}
	for _, kv := range strings.Split(s, " ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return nil, fmt.Errorf("%q is not key=value", kv)
		}
		if _, dup := f[k]; dup {
			return nil, fmt.Errorf("%s is given twice", k)
		}
		f[k] = v
	}
	for _, k := range []string{"pid", "start", "boot", "pidns"} {
		if f[k] == "" {
			return nil, fmt.Errorf("it has no %s", k)
		}
	}
	return f, nil
}
