package reglock

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSelfOnAMountWithoutFreshReads: a lock on a mount that proves no fresh
// read (here procfs) is taken with a record that has no proof fields, and such
// a record is never this process's own.
func TestSelfOnAMountWithoutFreshReads(t *testing.T) {
	me := newSelf("/proc", testHost)
	if me.proves || !strings.Contains(me.noProof, "filesystem (proc) does not prove a fresh read") {
		t.Fatalf("proves=%v, %q", me.proves, me.noProof)
	}
	if want := fmt.Sprintf("testbox:-:-:-:%d:-", os.Getpid()); me.line != want {
		t.Fatalf("record %q, want %q", me.line, want)
	}
	if me.isMe(me.record) {
		t.Fatal("a proofless record was read as this process's own")
	}
	tests := []struct {
		name  string
		x     Holder
		place place
	}{
		{"a holder with proof", Holder{"testbox", "m", "b", "n", 1, "2"}, placeElsewhere},
		{"a holder without", Holder{"testbox", "-", "-", "-", 1, "-"}, placeNoProof},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, p, why := me.judge(tt.x)
			if v != unprovable || p != tt.place || why != me.noProof {
				t.Fatalf("judge = %v, %v, %q", v, p, why)
			}
		})
	}
}
