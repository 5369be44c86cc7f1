package reglock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/machine"
)

// TestInspect: one look judges the holder as Take would, and touches nothing.
func TestInspect(t *testing.T) {
	_, me := proofHome(t)
	ppid := os.Getppid()
	live := rec(me, func(h *Holder) { h.PID, h.Start = ppid, machine.Start(ppid) })
	gone := rec(me, func(h *Holder) { h.PID, h.Start = testutil.ReapedPID(t, envHelper+"=exit"), "1" })
	tests := []struct {
		name   string
		make   func(path string) error // nil: no lock
		state  State
		holder *record
		why    string
		fix    string // a substring; "" when no fix is named
	}{
		{name: "free", state: Free, why: "no process holds it"},
		{name: "running", make: holding(live.line), state: HeldLive, holder: &live, why: "it is running"},
		{name: "exited", make: holding(gone.line), state: HeldDead, holder: &gone, why: "it has exited", fix: "Run sotd lock-clear."},
		{name: "another machine", make: holding("far:feedface:b00t:4026531836:4343:99"), state: HeldUnsure,
			why: "it is on another machine", fix: "run any comm command on far"},
		{name: "not a record", make: holding("garbage"), state: HeldByHand,
			why: "its record names no holder (garbage)", fix: "If its holder is dead, remove"},
		{name: "an older version's folder", make: func(p string) error { return os.Mkdir(p, 0o700) }, state: HeldByHand,
			why: "it is a folder", fix: "by hand"},
		{name: "unreadable record", make: func(p string) error { return os.Symlink(p+".nowhere", p) }, state: HeldUnsure,
			why: "its record could not be read (no such file or directory)", fix: "Retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := proofHome(t)
			if tt.make != nil {
				if err := tt.make(path); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadDir(filepath.Dir(path))
			in := Inspect(path, testHost, time.Now())
			if in.State != tt.state || !strings.HasPrefix(in.Why, tt.why) {
				t.Fatalf("Inspect = %+v; want state %d, why %q", in, tt.state, tt.why)
			}
			if (tt.fix == "") != (in.Fix == "") || !strings.Contains(in.Fix, tt.fix) {
				t.Fatalf("fix %q, want %q", in.Fix, tt.fix)
			}
			if tt.holder != nil && (in.Holder == nil || *in.Holder != tt.holder.Holder) {
				t.Fatalf("holder %+v, want %+v", in.Holder, tt.holder.Holder)
			}
			if after, _ := os.ReadDir(filepath.Dir(path)); len(after) != len(before) {
				t.Fatalf("Inspect changed the folder: %d entries, then %d", len(before), len(after))
			}
		})
	}
}

func holding(line string) func(string) error {
	return func(p string) error { return os.WriteFile(p, []byte(line+"\n"), 0o600) }
}
