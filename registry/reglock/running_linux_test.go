package reglock

import (
	"os/exec"
	"testing"

	"github.com/sotcomm/sotd/machine"
)

func TestRunning(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	me := Me(testHost)
	of := func(pid int) Holder { h := me; h.PID, h.Start = pid, machine.Start(pid); return h }
	with := func(change func(*Holder)) Holder { h := of(child.Process.Pid); change(&h); return h }
	for _, tc := range []struct {
		name string
		h    Holder
		want bool
	}{
		{"this process", me, true},
		{"a running child", of(child.Process.Pid), true},
		{"its pid with another start tick", with(func(h *Holder) { h.Start = "1" + h.Start }), false},
		{"no start tick", with(func(h *Holder) { h.Start = machine.Unknown }), false},
		{"another boot", with(func(h *Holder) { h.Boot = "another-boot" }), false},
		{"another pid namespace", with(func(h *Holder) { h.PIDNS = "1" }), false},
		{"another machine", with(func(h *Holder) { h.Machine = "another-machine" }), false},
		{"a proofless record", Holder{Name: testHost, Machine: "-", Boot: "-", PIDNS: "-", PID: child.Process.Pid, Start: "-"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Running(tc.h); got != tc.want {
				t.Fatalf("Running(%s) = %v, want %v", tc.h, got, tc.want)
			}
		})
	}
	// Once it has exited and been reaped, its record names no running process.
	h := of(child.Process.Pid)
	child.Process.Kill()
	child.Wait()
	if Running(h) {
		t.Fatalf("Running(%s) after pid %d exited", h, child.Process.Pid)
	}
	if r, ok := ParseHolder(me.String()); !ok || !Running(r) {
		t.Fatalf("this process's record %q does not read back as running", me)
	}
}
