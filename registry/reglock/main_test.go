package reglock

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper processes the multi-process tests start: this test binary again,
// with REGLOCK_HELPER naming what to do.
const (
	envHelper = "REGLOCK_HELPER"
	envPath   = "REGLOCK_PATH"
	envOut    = "REGLOCK_OUT"
	envRounds = "REGLOCK_ROUNDS"
	testHost  = "testbox"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envHelper); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

func helper(mode string) int {
	path := os.Getenv(envPath)
	switch mode {
	case "hold":
		// Take the lock, say so with the record, and hold it until killed.
		l, err := Take(path, Options{Host: testHost, Deadline: 5 * time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(l.rec)
		time.Sleep(time.Hour)
		return 0
	case "contend":
		return contend(path, os.Getenv(envOut))
	case "exit":
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

// contend: two goroutines, each taking the lock rounds times and writing an
// "in" and an "out" line to out while holding it, each line its own open and
// append, so any overlap of two holders shows as interleaved lines.
func contend(path, out string) int {
	rounds, _ := strconv.Atoi(os.Getenv(envRounds))
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := range 2 {
		wg.Go(func() {
			tag := fmt.Sprintf("%d.%d", os.Getpid(), g)
			for range rounds {
				l, err := Take(path, Options{Host: testHost, Deadline: 30 * time.Second})
				if err != nil {
					errs <- err
					return
				}
				err = appendLine(out, tag+" in")
				time.Sleep(time.Millisecond)
				if err == nil {
					err = appendLine(out, tag+" out")
				}
				if rerr := l.Release(); err == nil {
					err = rerr
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// holder is a helper process holding the lock.
type holder struct {
	cmd *exec.Cmd
	rec record
}

// startHolder starts a helper that takes the lock at path and holds it.
func startHolder(t *testing.T, path string) *holder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"=hold", envPath+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("holder did not take the lock: %v", err)
	}
	h, ok := ParseHolder(strings.TrimSuffix(line, "\n"))
	if !ok {
		t.Fatalf("holder printed %q, not a record", line)
	}
	return &holder{cmd: cmd, rec: record{line: h.String(), Holder: h}}
}

// kill SIGKILLs the holder and reaps it, so its pid names no process.
func (h *holder) kill(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	h.cmd.Wait()
}

// clock is an injected clock whose Sleep moves it, with a hook to act while a
// Take sleeps (a poll or the settle).
type clock struct {
	mu   sync.Mutex
	t    time.Time
	naps []time.Duration
	hook func(time.Duration)
}

func newClock() *clock { return &clock{t: time.Now().Round(0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.naps = append(c.naps, d)
	hook := c.hook
	c.mu.Unlock()
	if hook != nil {
		hook(d)
	}
}

func (c *clock) opts(deadline time.Duration) Options {
	return Options{Host: testHost, Deadline: deadline, Now: c.Now, Sleep: c.Sleep}
}

// home is a fresh comm home and its lock path, on a mount that proves deaths;
// a test that needs proof is skipped where the temp folder's mount gives none.
func proofHome(t *testing.T) (string, self) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".registry.lock")
	me := newSelf(filepath.Dir(path), testHost)
	if !me.proves {
		t.Skipf("no proof of death here: %s", me.noProof)
	}
	return path, me
}

// writeRecord puts line in place as the lock or a marker.
func writeRecord(t *testing.T, path, line string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// rec builds a record from me with some fields changed.
func rec(me self, change func(*Holder)) record {
	h := me.Holder
	change(&h)
	return record{line: h.String(), Holder: h}
}

// onMessage is a log handler that runs fn when a record with msg is logged.
type onMessage struct {
	msg string
	fn  func(slog.Record)
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.fn(r)
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }
