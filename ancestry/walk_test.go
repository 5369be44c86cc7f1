package ancestry

import (
	"errors"
	"fmt"
	"testing"
)

func TestWalk(t *testing.T) {
	for _, tc := range []struct {
		name    string
		table   func() (fakeTable, int)
		wantLen int
		wantErr error
	}{
		{"to the top", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "sshd", "bash", "sotd send")
			return tb, leaf
		}, 4, nil},
		{"exactly MaxWalk processes", func() (fakeTable, int) {
			tb, _, leaf := line(1, repeat("sh", MaxWalk)...)
			return tb, leaf
		}, MaxWalk, nil},
		{"one past MaxWalk is refused", func() (fakeTable, int) {
			tb, _, leaf := line(1, repeat("sh", MaxWalk+1)...)
			return tb, leaf
		}, MaxWalk, ErrUnreadable},
		{"a parent that is not there ends the walk as the top", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "bash", "sotd send")
			delete(tb.procs, 2)
			return tb, leaf
		}, 1, nil},
		{"an ended parent, as a table says it", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "bash", "sotd send")
			tb.errs[2] = fmt.Errorf("%w: cannot open", ErrEnded)
			return tb, leaf
		}, 1, nil},
		{"an unreadable ancestor is refused", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "bash", "sotd send")
			tb.errs[1] = errors.New("permission denied")
			return tb, leaf
		}, 2, ErrUnreadable},
		{"the process itself unreadable is refused", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "sotd send")
			tb.errs[2] = fmt.Errorf("%w: gone", ErrEnded)
			return tb, leaf
		}, 0, ErrUnreadable},
		{"a parent started after its child is a reused pid: the top", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "explorer", "sotd send")
			p := tb.procs[2]
			p.Start = "99999"
			tb.procs[2] = p
			return tb, leaf
		}, 1, nil},
		{"unknown start times are not compared", func() (fakeTable, int) {
			tb, _, leaf := line(1, "init", "bash", "sotd send")
			p := tb.procs[2]
			p.Start = "-"
			tb.procs[2] = p
			return tb, leaf
		}, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, leaf := tc.table()
			chain, err := walk(tb, leaf, nil)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("walk error = %v, want %v", err, tc.wantErr)
			}
			if len(chain) != tc.wantLen {
				t.Fatalf("walk read %d processes, want %d: %+v", len(chain), tc.wantLen, chain)
			}
			for i := 1; i < len(chain); i++ {
				if chain[i].PID != chain[i-1].PPID {
					t.Fatalf("chain[%d] is pid %d, not the parent %d of chain[%d]", i, chain[i].PID, chain[i-1].PPID, i-1)
				}
			}
			if len(chain) > 0 && chain[0].PID != leaf {
				t.Fatalf("the walk starts at %d, want %d", chain[0].PID, leaf)
			}
		})
	}
}

func TestWalkStopsWhereTold(t *testing.T) {
	tb, _, leaf := line(1, repeat("bash", 70)...)
	chain, err := walk(tb, leaf, func(p Proc) bool { return p.PID == leaf-3 })
	if err != nil {
		t.Fatalf("a walk stopped within the cap failed: %v", err)
	}
	if len(chain) != 4 || chain[3].PID != leaf-3 {
		t.Fatalf("walk = %+v, want 4 processes ending at %d", chain, leaf-3)
	}
}

// repeat is n copies of s.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
