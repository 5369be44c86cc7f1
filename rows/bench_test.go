//go:build !windows

package rows_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

// cpuNow is the CPU time used so far by this process and the children it has
// reaped (the tmux clients each call runs), so a tmux call's cost is counted.
func cpuNow(b *testing.B) time.Duration {
	var self, kids syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids); err != nil {
		b.Fatal(err)
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// tmuxServerCPU reads the CPU time of a tmux backend's server, which is no
// child of this process; on Linux from /proc (in clock ticks of 10 ms), and as
// zero elsewhere or for the PTY.
func tmuxServerCPU(b *testing.B, bk rows.Backend) func() time.Duration {
	none := func() time.Duration { return 0 }
	tb, ok := bk.(*rows.Tmux)
	if !ok || runtime.GOOS != "linux" {
		return none
	}
	out, err := exec.Command("tmux", "-S", tb.Socket(), "display-message", "-p", "#{pid}").Output()
	if err != nil {
		b.Fatal(err)
	}
	stat := filepath.Join("/proc", strings.TrimSpace(string(out)), "stat")
	return func() time.Duration {
		raw, err := os.ReadFile(stat)
		if err != nil {
			b.Fatal(err)
		}
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		return time.Duration(utime+stime) * 10 * time.Millisecond
	}
}

// benchRows reports CPU milliseconds per op beside wall time: the wake loop's
// budget is CPU, and tmux's cost is in its client processes and its server.
func benchRows(b *testing.B, rowCount int, op func(bk rows.Backend, ids []string) error) {
	for _, k := range kinds(b) {
		b.Run(k.name, func(b *testing.B) {
			bk := k.make(b, rows.Options{})
			var ids []string
			for range rowCount {
				spec := rows.Spec{Label: "bench", Agent: rows.Claude, Argv: []string{fakeAgent}}
				info, err := bk.Start(spec)
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, info.Spec.ID)
			}
			for _, id := range ids {
				rowstest.WaitScreen(b, bk, id, wait, "the prompt", atPrompt(""))
			}
			server := tmuxServerCPU(b, bk)
			b.ResetTimer()
			start, serverStart := cpuNow(b), server()
			for b.Loop() {
				if err := op(bk, ids); err != nil {
					b.Fatal(err)
				}
			}
			used := cpuNow(b) - start + server() - serverStart
			b.ReportMetric(float64(used)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// One Screen of one row: what the wake reads of a row with mail waiting.
func BenchmarkScreen(b *testing.B) {
	benchRows(b, 1, func(bk rows.Backend, ids []string) error {
		_, err := bk.Screen(ids[0])
		return err
	})
}

// One List of 50 rows: what the wake loop reads every tick when no mail waits.
func BenchmarkList50(b *testing.B) {
	benchRows(b, 50, func(bk rows.Backend, ids []string) error {
		_, err := bk.List()
		return err
	})
}
