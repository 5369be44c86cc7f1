//go:build linux

package machine

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestIDAndNamespaceKnown(t *testing.T) {
	for name, got := range map[string]string{"ID": ID(), "PIDNamespace": PIDNamespace()} {
		if got == Unknown || got == "" {
			t.Errorf("%s() = %q on a Linux box that has it", name, got)
		}
	}
	if _, err := strconv.ParseUint(PIDNamespace(), 10, 64); err != nil {
		t.Errorf("PIDNamespace() = %q, want the namespace's inode number", PIDNamespace())
	}
}

func TestStartOfSelf(t *testing.T) {
	first := Start(os.Getpid())
	if _, err := strconv.ParseUint(first, 10, 64); err != nil {
		t.Fatalf("Start(self) = %q, want a clock-tick count", first)
	}
	if again := Start(os.Getpid()); again != first {
		t.Fatalf("Start(self) moved from %s to %s", first, again)
	}
}

func TestStartOfNoProcess(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	// pid_max is one more than the largest pid the kernel hands out.
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{pidMax, 0, -1} {
		if got := Start(pid); got != Unknown {
			t.Errorf("Start(%d) = %q for a pid no process has, want %q", pid, got, Unknown)
		}
	}
}

func TestMountsHere(t *testing.T) {
	ms, err := Mounts()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := MountOf(ms, wd); !ok || m.FSType == "" {
		t.Fatalf("the working folder %s is on no mount of %d read from /proc/self/mountinfo", wd, len(ms))
	}
}
