package raceexit

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestEnvKeepsTheCallersOptions(t *testing.T) {
	t.Setenv("GORACE", "halt_on_error=1")
	if got := setting(); got != "halt_on_error=1 atexit_sleep_ms=0" {
		t.Fatalf("setting() = %q", got)
	}
}

// TestARaceIsStillReported: this race-built test binary runs with the sleep
// off, and a process of it that races and then exits 0 still prints the race
// and exits 66, as with the sleep.
func TestARaceIsStillReported(t *testing.T) {
	if os.Getenv("RACEEXIT_RACE") != "" {
		race()
		os.Exit(0)
	}
	if !raceBuilt {
		t.Skip("the race detector's exit needs -race")
	}
	if !quick() {
		t.Fatalf("this race-built test binary runs with GORACE=%q", os.Getenv("GORACE"))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestARaceIsStillReported$")
	cmd.Env = append(os.Environ(), "RACEEXIT_RACE=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 66 || !strings.Contains(string(out), "WARNING: DATA RACE") {
		t.Fatalf("a racing process exited with %v, want status 66 and the race:\n%s", err, out)
	}
}

// race writes one variable from two goroutines with nothing between them.
func race() {
	var n int
	done := make(chan struct{})
	go func() { n++; close(done) }()
	n++
	<-done
}
