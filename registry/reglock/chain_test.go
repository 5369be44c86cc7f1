package reglock

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/machine"
)

// TestReclaimChain: markers left by earlier reclaimers. The lock names D; the
// marker reclaim.<D> names the process that took it, and so on.
func TestReclaimChain(t *testing.T) {
	_, me := proofHome(t)
	ppid := os.Getppid()
	dead := func(start string) record { return rec(me, func(h *Holder) { h.PID, h.Start = ppid, start }) }
	d, c := dead("1"), dead("2")
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	tests := []struct {
		name     string
		lock     record
		markers  map[string]string // marker's record -> the line it holds
		deadline time.Duration
		want     string // "" = taken; else the FAILED sentence's tail, %[1]s the path
		kept     []string
		gone     []string
	}{
		{
			name: "a dead creator's marker is passed through its own", lock: d, deadline: time.Second,
			markers: map[string]string{d.line: c.line}, kept: []string{d.line, c.line},
		},
		{
			name: "no walk past the first marker after the deadline", lock: d, deadline: 0,
			markers: map[string]string{d.line: c.line},
			want:    "registry lock %[1]s is held by testbox pid %[2]d start 1 (0s old): its reclaim chain was still being walked at the deadline. If it is dead, run any comm command on testbox.",
		},
		{
			name: "a live creator's reclaim is left to it", lock: d, deadline: time.Second,
			markers: map[string]string{d.line: live.line},
			want:    "registry lock %[1]s is held by testbox pid %[2]d start 1 (1s old): it is dead, but its reclaim by testbox pid %[2]d did not finish: it is running. If it is dead, run any comm command on testbox.",
		},
		{
			name: "a marker naming a record the walk passed ends it", lock: d, deadline: time.Second,
			markers: map[string]string{d.line: c.line, c.line: d.line},
			want:    "registry lock %[1]s still held (1s old): its reclaim marker %[1]s.reclaim." + dotted(c.line) + " names " + d.line + ", which its reclaim chain already holds, so no reclaim can pass it. If its holder is dead, remove %[1]s by hand and retry.",
		},
		{
			name: "a marker naming this process is adopted and kept", lock: d, deadline: 0,
			markers: map[string]string{d.line: me.line}, kept: []string{d.line},
		},
		{
			name: "this process's own lock and marker: the marker goes with the lock", lock: me.record, deadline: 0,
			markers: map[string]string{me.line: me.line}, gone: []string{me.line},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := proofHome(t)
			writeRecord(t, path, tt.lock.line)
			for of, line := range tt.markers {
				writeRecord(t, path+".reclaim."+dotted(of), line)
			}
			c := newClock()
			l, err := Take(path, c.opts(tt.deadline))
			if tt.want != "" {
				want := fmt.Sprintf(tt.want, path, ppid)
				if err == nil || err.Error() != want {
					t.Fatalf("Take = %v\nwant %s", err, want)
				}
				if readLine(t, path) != tt.lock.line {
					t.Fatal("a refused take changed the lock")
				}
				return
			}
			if err != nil {
				t.Fatalf("Take: %v", err)
			}
			defer l.Release()
			for _, of := range tt.kept {
				if _, err := os.Stat(path + ".reclaim." + dotted(of)); err != nil {
					t.Errorf("marker for %s not kept: %v", of, err)
				}
			}
			for _, of := range tt.gone {
				if _, err := os.Stat(path + ".reclaim." + dotted(of)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("marker for %s kept: %v", of, err)
				}
			}
		})
	}
}

func dotted(line string) string { return strings.ReplaceAll(line, ":", ".") }
