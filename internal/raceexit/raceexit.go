// Package raceexit spares a race-built test binary, and every process it
// starts, the race detector's sleep at exit. The detector sleeps a second as
// a process exits while other goroutines live, so that their late reports get
// out; in a test binary they always live, so each package of the suite slept
// a second at its end, and each race-built helper process a second more. A
// race is still reported when it happens, and still fails its test, or its
// process with status 66; one that happens during the exit itself goes
// unreported.
//
// A test binary imports it for its init (testutil does, so every package
// whose tests use testutil has it): it puts atexit_sleep_ms=0 in GORACE, which
// the detector reads only as a process starts, so on Unix the binary runs
// itself again at once with it, and elsewhere only the processes it starts
// have it. Without -race it does nothing.
package raceexit

import (
	"os"
	"strings"
)

// setting is GORACE with the sleep off and the caller's own options kept.
func setting() string { return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0") }

// quick reports whether GORACE already says how long to sleep at exit; a
// caller's own choice is kept.
func quick() bool { return strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") }
